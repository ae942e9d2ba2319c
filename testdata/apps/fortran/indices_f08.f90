! `use mpi_f08`: the indices MPI_Waitany, MPI_Testany, MPI_Waitsome and MPI_Testsome
! return. For each of the four, every rank posts an MPI_Isend to itself (in request 3,
! on MPI_COMM_SELF, tag 1..4) and the matching MPI_Irecv (request 2; request 1 is
! MPI_REQUEST_NULL) and completes both with that function, polling until both requests are
! MPI_REQUEST_NULL. Rank 0 prints "indices_f08 NAME I" for every index it got; every rank
! then "indices_f08 ok" when the data arrived (rank 0 only).
program indices_f08
  use mpi_f08
  implicit none
  type(MPI_Request) :: r(3)
  type(MPI_Status) :: sts(3)
  integer :: me, k, i, n, ind(3), v, w, ok, all
  logical :: flag
  character(len=8), parameter :: names(4) = [character(len=8) :: 'waitany', 'testany', &
                                             'waitsome', 'testsome']

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  ok = 1
  do k = 1, 4
    v = 10 * k + me
    w = -1
    r(1) = MPI_REQUEST_NULL
    call MPI_Irecv(w, 1, MPI_INTEGER, 0, k, MPI_COMM_SELF, r(2))
    call MPI_Isend(v, 1, MPI_INTEGER, 0, k, MPI_COMM_SELF, r(3))
    do while (r(2) /= MPI_REQUEST_NULL .or. r(3) /= MPI_REQUEST_NULL)
      n = 0
      select case (k)
      case (1)
        call MPI_Waitany(3, r, i, sts(1))
        n = 1
        ind(1) = i
      case (2)
        call MPI_Testany(3, r, i, flag, sts(1))
        if (flag) n = 1
        ind(1) = i
      case (3)
        call MPI_Waitsome(3, r, n, ind, sts)
      case (4)
        call MPI_Testsome(3, r, n, ind, sts)
      end select
      do i = 1, n
        if (me == 0) print '(a, a, a, i0)', 'indices_f08 ', trim(names(k)), ' ', ind(i)
      end do
    end do
    if (w /= v) ok = 0
  end do
  call MPI_Allreduce(ok, all, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  if (me == 0 .and. all == 1) print '(a)', 'indices_f08 ok'
  call MPI_Finalize()
end program indices_f08

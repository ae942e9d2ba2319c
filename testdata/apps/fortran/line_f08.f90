! `use mpi_f08`: a non-periodic line (MPI_Cart_create) with one MPI_Neighbor_allgather,
! a ring exchange (tag 9) completed by polling MPI_Testall (statuses ignored) until both
! requests are done, MPI_Ireduce (SUM to rank 1) + MPI_Wait, MPI_Comm_free and a final
! MPI_Allreduce that checks every value. Every rank prints "line_f08 tests RANK COUNT",
! the number of MPI_Testall calls it made, and rank 0 then "line_f08 ok".
program line_f08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: line
  type(MPI_Request) :: req(2)
  integer :: me, np, nb(2), inv, outv, tests, total, ok, all
  logical :: done

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [np], [.false.], .false., line)
  ok = 1

  nb = -1
  call MPI_Neighbor_allgather(me, 1, MPI_INTEGER, nb, 1, MPI_INTEGER, line)
  if (me > 0 .and. nb(1) /= me - 1) ok = 0
  if (me < np - 1 .and. nb(2) /= me + 1) ok = 0

  outv = 100 + me
  call MPI_Irecv(inv, 1, MPI_INTEGER, mod(me + np - 1, np), 9, MPI_COMM_WORLD, req(1))
  call MPI_Isend(outv, 1, MPI_INTEGER, mod(me + 1, np), 9, MPI_COMM_WORLD, req(2))
  tests = 0
  done = .false.
  do while (.not. done)
    call MPI_Testall(2, req, done, MPI_STATUSES_IGNORE)
    tests = tests + 1
  end do
  if (inv /= 100 + mod(me + np - 1, np)) ok = 0

  call MPI_Ireduce(me, total, 1, MPI_INTEGER, MPI_SUM, 1, MPI_COMM_WORLD, req(1))
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  if (me == 1 .and. total /= np * (np - 1) / 2) ok = 0
  call MPI_Comm_free(line)

  print '(a, i0, a, i0)', 'line_f08 tests ', me, ' ', tests
  call MPI_Allreduce(ok, all, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  if (me == 0 .and. all == 1) print '(a)', 'line_f08 ok'
  call MPI_Finalize()
end program line_f08

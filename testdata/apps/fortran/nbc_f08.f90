! nbc_mpif.f90 with `use mpi_f08` (every call passes the optional ierror, checked):
! collectives, blocking and non-blocking, on MPI_COMM_WORLD and on a named
! sub-communicator. The ranks split into two halves (even and odd ranks, named "halves"
! with MPI_Comm_set_name, a CHARACTER argument), then: MPI_Iallreduce + MPI_Wait (status
! ignored); MPI_Ibcast from the half's rank 0 and MPI_Ibarrier, completed together by one
! MPI_Waitall (into an array of TYPE(MPI_Status)); MPI_Gather of one integer to the last
! rank; MPI_Reduce (MAX) to the half's rank 0; MPI_Sendrecv of one integer around the ring
! (tag 3); MPI_Comm_free; a final MPI_Allreduce checks every value. Prints "nbc_f08 ok" on
! rank 0.
program nbc_f08
  use mpi_f08
  implicit none
  integer :: ierr, me, np, other, hme
  type(MPI_Comm) :: half
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Status) :: st, sts(2)
  integer :: gathered(64)
  double precision :: x(4), y(4)
  integer :: ok, all, bad

  bad = 0
  call MPI_Init(ierr)
  bad = bad + ierr
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  bad = bad + ierr
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  bad = bad + ierr
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), me, half, ierr)
  bad = bad + ierr
  call MPI_Comm_set_name(half, 'halves', ierr)
  bad = bad + ierr
  hme = me / 2
  ok = 1

  x = me
  call MPI_Iallreduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  bad = bad + ierr
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  bad = bad + ierr
  if (y(4) /= np * (np - 1) / 2) ok = 0

  x = 10 * me
  call MPI_Ibcast(x, 4, MPI_DOUBLE_PRECISION, 0, half, reqs(1), ierr)
  bad = bad + ierr
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(2), ierr)
  bad = bad + ierr
  call MPI_Waitall(2, reqs, sts, ierr)
  bad = bad + ierr
  if (x(1) /= 10 * mod(me, 2)) ok = 0

  call MPI_Gather(me, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, np - 1, MPI_COMM_WORLD, ierr)
  bad = bad + ierr
  if (me == np - 1 .and. gathered(np) /= np - 1) ok = 0

  x = me
  call MPI_Reduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_MAX, 0, half, ierr)
  bad = bad + ierr
  if (hme == 0 .and. y(1) /= np - 2 + mod(me, 2)) ok = 0

  call MPI_Sendrecv(me, 1, MPI_INTEGER, mod(me + 1, np), 3, other, 1, MPI_INTEGER, &
                    mod(me + np - 1, np), 3, MPI_COMM_WORLD, st, ierr)
  bad = bad + ierr
  if (other /= mod(me + np - 1, np) .or. st%MPI_SOURCE /= other) ok = 0
  call MPI_Comm_free(half, ierr)
  bad = bad + ierr
  if (bad /= 0) ok = 0

  call MPI_Allreduce(ok, all, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  if (me == 0 .and. all == 1) print '(a)', 'nbc_f08 ok'
  call MPI_Finalize()
end program nbc_f08

! `include 'mpif.h'`: collectives, blocking and non-blocking, on MPI_COMM_WORLD and on a
! named sub-communicator. The ranks split into two halves (even and odd ranks, named
! "halves" with MPI_Comm_set_name), then: MPI_Iallreduce + MPI_Wait (status ignored);
! MPI_Ibcast from the half's rank 0 and MPI_Ibarrier, completed together by one MPI_Waitall;
! MPI_Gather of one integer to the last rank; MPI_Reduce (MAX) to the half's rank 0;
! MPI_Sendrecv of one integer around the ring (tag 3); MPI_Comm_free; a final MPI_Allreduce
! checks every value. Prints "nbc_mpif ok" on rank 0.
program nbc_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, me, np, half, req, reqs(2), other, hme
  integer :: st(MPI_STATUS_SIZE), gathered(64)
  double precision :: x(4), y(4)
  integer :: ok, all

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), me, half, ierr)
  call MPI_Comm_set_name(half, 'halves', ierr)
  hme = me / 2
  ok = 1

  x = me
  call MPI_Iallreduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (y(4) /= np * (np - 1) / 2) ok = 0

  x = 10 * me
  call MPI_Ibcast(x, 4, MPI_DOUBLE_PRECISION, 0, half, reqs(1), ierr)
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (x(1) /= 10 * mod(me, 2)) ok = 0

  call MPI_Gather(me, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, np - 1, MPI_COMM_WORLD, ierr)
  if (me == np - 1 .and. gathered(np) /= np - 1) ok = 0

  x = me
  call MPI_Reduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_MAX, 0, half, ierr)
  if (hme == 0 .and. y(1) /= np - 2 + mod(me, 2)) ok = 0

  call MPI_Sendrecv(me, 1, MPI_INTEGER, mod(me + 1, np), 3, other, 1, MPI_INTEGER, &
                    mod(me + np - 1, np), 3, MPI_COMM_WORLD, st, ierr)
  if (other /= mod(me + np - 1, np) .or. st(MPI_SOURCE) /= other) ok = 0
  call MPI_Comm_free(half, ierr)

  call MPI_Allreduce(ok, all, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (me == 0 .and. all == 1) print '(a)', 'nbc_mpif ok'
  call MPI_Finalize(ierr)
end program nbc_mpif

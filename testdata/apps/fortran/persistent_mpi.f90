! `use mpi`: persistent requests in a ring, then one Irecv/Isend pair completed with
! MPI_Waitany, and in-place reductions. Each rank sets up MPI_Send_init to its right and
! MPI_Recv_init from its left, runs ROUNDS rounds of MPI_Startall + MPI_Waitall (statuses
! ignored), frees both requests, exchanges once more (tag 6) completing the pair with two
! MPI_Waitany, sums the ranks with MPI_Allreduce(MPI_IN_PLACE) and checks every value with
! a second in-place MPI_Allreduce (MPI_MIN). Prints "persistent_mpi ok" on rank 0.
program persistent_mpi
  use mpi
  implicit none
  integer, parameter :: rounds = 4, n = 8
  integer :: ierr, me, np, right, left, it, i, idx
  integer :: reqs(2), pair(2), st(MPI_STATUS_SIZE)
  double precision :: sendv(n), recvv(n), total
  integer :: ok

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  right = mod(me + 1, np)
  left = mod(me + np - 1, np)
  call MPI_Send_init(sendv, n, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Recv_init(recvv, n, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, reqs(2), ierr)
  ok = 1
  do it = 1, rounds
    sendv = 100 * it + me
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    if (recvv(n) /= 100 * it + left) ok = 0
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)

  sendv = -me
  call MPI_Irecv(recvv, n, MPI_DOUBLE_PRECISION, left, 6, MPI_COMM_WORLD, pair(1), ierr)
  call MPI_Isend(sendv, n, MPI_DOUBLE_PRECISION, right, 6, MPI_COMM_WORLD, pair(2), ierr)
  do i = 1, 2
    call MPI_Waitany(2, pair, idx, st, ierr)
    if (idx /= 1 .and. idx /= 2) ok = 0
  end do
  if (recvv(1) /= -left) ok = 0

  total = me
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= np * (np - 1) / 2) ok = 0
  call MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (me == 0 .and. ok == 1) print '(a)', 'persistent_mpi ok'
  call MPI_Finalize(ierr)
end program persistent_mpi

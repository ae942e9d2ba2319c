! persistent_mpi.f90 with `use mpi_f08` (no ierror arguments: the optional argument is
! absent): persistent requests in a ring, then one Irecv/Isend pair completed with
! MPI_Waitany (into a TYPE(MPI_Status) whose source is checked), and in-place reductions.
! The buffers of the persistent requests are ASYNCHRONOUS (the standard's remedy: Startall
! does not name them, so the compiler may otherwise keep them in registers). The index
! MPI_Waitany returns is not checked: MPICH 4.0.2's mpi_f08 returns C's 0-based one
! (docs/collector.md); the request it set to MPI_REQUEST_NULL is.
! Each rank sets up MPI_Send_init to its right and MPI_Recv_init from its left, runs
! ROUNDS rounds of MPI_Startall + MPI_Waitall (statuses ignored), frees both requests,
! exchanges once more (tag 6) completing the pair with two MPI_Waitany, sums the ranks
! with MPI_Allreduce(MPI_IN_PLACE) and checks every value with a second in-place
! MPI_Allreduce (MPI_MIN). Prints "persistent_f08 ok" on rank 0.
program persistent_f08
  use mpi_f08
  implicit none
  integer, parameter :: rounds = 4, n = 8
  integer :: me, np, right, left, it, i, idx
  logical :: recv_open
  type(MPI_Request) :: reqs(2), pair(2)
  type(MPI_Status) :: st
  double precision, asynchronous :: sendv(n), recvv(n)
  double precision :: total
  integer :: ok

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  right = mod(me + 1, np)
  left = mod(me + np - 1, np)
  call MPI_Send_init(sendv, n, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Recv_init(recvv, n, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, reqs(2))
  ok = 1
  do it = 1, rounds
    sendv = 100 * it + me
    call MPI_Startall(2, reqs)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    if (recvv(n) /= 100 * it + left) ok = 0
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))

  sendv = -me
  call MPI_Irecv(recvv, n, MPI_DOUBLE_PRECISION, left, 6, MPI_COMM_WORLD, pair(1))
  call MPI_Isend(sendv, n, MPI_DOUBLE_PRECISION, right, 6, MPI_COMM_WORLD, pair(2))
  do i = 1, 2
    recv_open = pair(1) /= MPI_REQUEST_NULL
    call MPI_Waitany(2, pair, idx, st)
    if (recv_open .and. pair(1) == MPI_REQUEST_NULL .and. st%MPI_SOURCE /= left) ok = 0
  end do
  if (pair(1) /= MPI_REQUEST_NULL .or. pair(2) /= MPI_REQUEST_NULL) ok = 0
  if (recvv(1) /= -left) ok = 0

  total = me
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (total /= np * (np - 1) / 2) ok = 0
  call MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  if (me == 0 .and. ok == 1) print '(a)', 'persistent_f08 ok'
  call MPI_Finalize()
end program persistent_f08

! `use mpi_f08` with a count of KIND=MPI_COUNT_KIND: MPICH resolves MPI_Send / MPI_Recv to
! its large-count procedures (mpi_send_f08ts_large_, which call MPI-4's MPI_Send_c), which
! gridscope does not record; `gridscope record` refuses the program. Rank 0 sends one
! integer to rank 1 and prints "large_count_f08 ok" when run unrecorded.
program large_count_f08
  use mpi_f08
  implicit none
  integer(kind=MPI_COUNT_KIND) :: one = 1
  integer :: me, v

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  v = 7
  if (me == 0) call MPI_Send(v, one, MPI_INTEGER, 1, 0, MPI_COMM_WORLD)
  if (me == 1) call MPI_Recv(v, one, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (me == 1 .and. v == 7) print '(a)', 'large_count_f08 ok'
  call MPI_Finalize()
end program large_count_f08

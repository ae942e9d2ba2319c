"""Recording real MPI runs: the launcher (`gridscope record -- mpirun ...`) and `merge`."""

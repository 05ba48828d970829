# bench/mpi.sh: the Open MPI setup of the suites across ranks
# (bench/suites/mpi.sh, mpi_faults.sh), sourced by them in suite_run.
#   mpi_env   Open MPI from .carry/mpi where scripts/carry-mpi.sh put it
#             (a machine without its own), the environment of ranks on
#             one host (scripts/ompi_env.sh); sets mp=1 where mpirun is
#             there, else mp=0

. scripts/ompi_env.sh

mpi_env() {
	[ -f .carry/mpi/env.sh ] && . .carry/mpi/env.sh
	ompi_env
	mp=1
	command -v mpirun >/dev/null 2>&1 || mp=0
	[ $mp = 0 ] || note "$(mpirun --version 2>/dev/null | head -n 1)"
}

# bench/mpi.sh: the Open MPI setup of the suites across ranks
# (bench/suites/mpi.sh, mpi_faults.sh), sourced by them in suite_run.
#   mpi_env   Open MPI from .carry/mpi where scripts/carry-mpi.sh put it
#             (a machine without its own), the environment of ranks on
#             one host, perhaps a container run as root without network
#             or ssh; sets mp=1 where mpirun is there, else mp=0

mpi_env() {
	[ -f .carry/mpi/env.sh ] && . .carry/mpi/env.sh
	# shared memory between ranks, local starts, no ptrace-based single
	# copy (containers often forbid it), more ranks than cores allowed
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_plm=isolated
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	export OMPI_MCA_rmaps_base_oversubscribe=1
	# hwloc in mpirun must not load the OpenCL loader (docs/mpi.md)
	export HWLOC_COMPONENTS="${HWLOC_COMPONENTS:--opencl}"
	mp=1
	command -v mpirun >/dev/null 2>&1 || mp=0
	[ $mp = 0 ] || note "$(mpirun --version 2>/dev/null | head -n 1)"
}

# scripts/ompi_env.sh: the environment of Open MPI ranks on one host,
# perhaps a container run as root without network or ssh; sourced by the
# tests across ranks (tests/ranks.sh, tests/sh/icd_env.sh) and the bench
# suites (bench/mpi.sh), then `ompi_env`.

ompi_env() {
	# shared memory between ranks, local starts only, no single-copy
	# mechanism that needs ptrace rights (containers often forbid it);
	# more ranks than cores allowed
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_plm=isolated
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	export OMPI_MCA_rmaps_base_oversubscribe=1
	export PMIX_MCA_pcompress_base_silence_warning=1
	# hwloc in mpirun must not load the OpenCL loader: through CUDA's ICD
	# loader it cuts OCL_ICD_FILENAMES for the ranks (docs/mpi.md, "Ranks
	# that find their GPU"); a setting of the caller's is kept
	export HWLOC_COMPONENTS="${HWLOC_COMPONENTS:--opencl}"
}

# icd_env.sh: OCL_ICD_FILENAMES survives the OpenCL platform listing
# (issue 27; docs/mpi.md, "Ranks that find their GPU").  icd_cut.c, preloaded,
# cuts the variable at its first ':' inside clGetPlatformIDs, as CUDA's
# ICD loader does; libnbrt puts it back, so processes started afterwards
# see every entry.  Under mpirun, whose hwloc may load the OpenCL plugin
# (and through it the cutting loader) before starting ranks, the carried
# and documented HWLOC_COMPONENTS=-opencl keeps the ranks' copy whole.
set -eu
. "$ROOT/tests/lib.sh"
scratch
CC=${CC:-cc}
$CC -shared -fPIC -O1 -o "$T/cut.so" "$ROOT/tests/sh/icd_cut.c" -ldl ||
	die "building icd_cut.c"
FULL="libpocl.so.2:libnbcc-test-none.so.1"
# a sanitized program refuses to start with a library preloaded ahead of
# ASan's runtime unless told the order is meant
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# one process: the runtime lists platforms, the variable stays whole
: >"$T/log"
LD_PRELOAD="$T/cut.so" ICD_CUT_LOG="$T/log" OCL_ICD_FILENAMES="$FULL" \
	"$BIN/nbrun" --list-devices >"$T/out" 2>&1 || true
if [ "$(cat "$T/log")" = "$FULL" ]; then ok "nbrun --list-devices keeps OCL_ICD_FILENAMES"
else bad "after nbrun's listing OCL_ICD_FILENAMES reads '$(cat "$T/log")', not '$FULL'"; fi

# a missing GPU names the ICD setup it saw
NBRT_DEVICE= OCL_ICD_FILENAMES="$FULL" "$BIN/nbrun" "$ROOT/dsl-examples/gravity.nbl" \
	--random 3,3 --const eps2=0.01 --device nbcc-no-such-device >"$T/out" 2>&1 && bad "a missing device ran"
if grep -q "OCL_ICD_FILENAMES='$FULL'" "$T/out"; then ok "a missing device's message names OCL_ICD_FILENAMES"
else bad "a missing device's message: $(cat "$T/out")"; fi

# ranks under mpirun with the cutting loader preloaded into mpirun itself
if command -v mpirun >/dev/null 2>&1; then
	. "$ROOT/scripts/ompi_env.sh"
	ompi_env
	for hw in plain -opencl; do
		if [ $hw = plain ]; then unset HWLOC_COMPONENTS || true; else export HWLOC_COMPONENTS=$hw; fi
		LD_PRELOAD="$T/cut.so" OCL_ICD_FILENAMES="$FULL" mpirun -np 2 \
			sh -c 'echo "$OCL_ICD_FILENAMES"' >"$T/ranks.$hw" 2>/dev/null || true
	done
	if [ "$(sort -u "$T/ranks.-opencl")" = "$FULL" ]; then
		ok "ranks of mpirun with HWLOC_COMPONENTS=-opencl keep OCL_ICD_FILENAMES"
	else bad "ranks with HWLOC_COMPONENTS=-opencl read '$(sort -u "$T/ranks.-opencl" | tr '\n' ' ')'"; fi
	if [ "$(sort -u "$T/ranks.plain")" = "$FULL" ]; then
		echo "note: here mpirun's hwloc does not list OpenCL devices (no hwloc OpenCL plugin): the cut is not reproduced without the setting"
	else
		echo "note: without HWLOC_COMPONENTS=-opencl ranks read '$(sort -u "$T/ranks.plain" | tr '\n' ' ')' (the GPU host's failure, reproduced)"
	fi
	unset HWLOC_COMPONENTS
fi
finish

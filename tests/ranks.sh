# tests/ranks.sh: what the tests of programs across ranks share
# (tests/sh/mpi.sh under mpirun, tests/sh/slurm.sh under srun); sourced
# after tests/lib.sh, with T set.
#   rank_env          the environment of ranks on one host
#                     (scripts/ompi_env.sh), and of Open MPI under the
#                     sanitizers
#   close A B TOL     CSV files A and B (a header, then numbers) equal
#                     within TOL of each column's largest value in B
#   fails WANT CMD... CMD (a launcher, its ranks) ends within 60 s, not 0,
#                     and its lines of PROG: error: are one, starting
#                     with WANT (the launcher's own report aside)

. "$ROOT/scripts/ompi_env.sh"

rank_env() {
	ompi_env
	# Open MPI's own allocations are in tests/lsan.supp; its libraries
	# keep no frame pointers, so only the slow unwinder finds them in a
	# leak's stack; and plugins stay loaded at MPI_Finalize
	if [ -n "${NBCC_SANITIZED:-}" ]; then
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
		export OMPI_MCA_mca_base_component_disable_dlclose=1
		export PMIX_MCA_mca_base_component_disable_dlclose=1
	fi
}

close() {
	awk -F, -v tol="$3" 'NR == FNR { for (c = 1; c <= NF; c++) a[FNR, c] = $c
		n = FNR; next }
	FNR == 1 { next }
	{ for (c = 1; c <= NF; c++) { d = $c - a[FNR, c]; d = d < 0 ? -d : d
		m = $c < 0 ? -$c : $c; if (m > big[c]) big[c] = m
		if (d > diff[c]) diff[c] = d } rows = FNR }
	END { if (rows != n) { print "rows " rows " and " n; exit 1 }
		for (c in diff) if (diff[c] > tol * big[c]) {
			print "column " c ": " diff[c] " of " big[c]; exit 1 } }' \
		"$1" "$2"
}

fails() {
	want=$1
	shift
	rc=0
	timeout 60 "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ $rc != 124 ] || die "a hang: $*"
	[ $rc != 0 ] || die "exit 0: $*"
	got=$(grep ": error: " "$T/err" | grep -v "^srun: " || true)
	case "$got" in
	"$want"*) [ "$(echo "$got" | wc -l)" = 1 ] && return ;;
	esac
	cat "$T/err"
	die "$*: got '$got'"
}

#!/bin/sh
# bench/run.sh: the one driver of nbcc's benchmarks.  A suite is a file
# bench/suites/SUITE.sh naming its parameters and their defaults (those of
# the figures in docs/ it reproduces); each run writes one result file,
# OUT/YYYY-MM-DD-SUITE-DEVICE.txt, whose header says what ran where: the
# suite, the command with every parameter, the UTC date, the device and
# its driver, the commit, the host; then the suite's rows (CSV) and its
# summary (comment lines).
#   sh bench/run.sh SUITE [key=value ...]   one suite (the file's path is
#                                           printed at the end)
#   sh bench/run.sh SUITE help              its parameters and defaults
#   sh bench/run.sh list                    the suites
#   sh bench/run.sh                         make bench: the CPU suite, and
#                                           "transforms" where a GPU answers
# Beside a suite's own parameters every run takes
#   out=DIR     the results directory ($OUT, else bench/results)
#   bin=DIR     the built programs ($BIN, else bin)
#   commit=ID   the commit, where the tree is not a git checkout ($COMMIT)
#   tag=WORD    added to the file name, to tell runs of one day apart
#   cache=DIR   the runtime's kernel cache (default: a fresh one a run)
# Runs from a built tree (make all bin/nbbench): on a GPU machine that has
# no flex, bison or QD, copy the tree with bin/ and run it there.
set -u
ORIG=$(pwd)
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
. bench/lib.sh

die() {
	echo "bench/run.sh: $*" >&2
	exit 2
}
# abs PATH: PATH from the directory the driver was started in
abs() {
	case $1 in /*) echo "$1" ;; *) echo "$ORIG/$1" ;; esac
}

suite=${1:-}
if [ -z "$suite" ]; then # make bench
	sh bench/run.sh cpu || exit 1
	b=${BIN:-bin}
	if "$(abs "$b")/nbrun" --device gpu --device-info >/dev/null 2>&1; then
		sh bench/run.sh transforms
	fi
	exit
fi
if [ "$suite" = list ]; then
	for f in bench/suites/*.sh; do
		printf '%-20s %s\n' "$(basename "$f" .sh)" \
			"$(sed -n 's/^about="\(.*\)"$/\1/p' "$f")"
	done
	exit 0
fi
[ -f "bench/suites/$suite.sh" ] || die "no suite '$suite' (sh bench/run.sh list)"
shift
about= params=
out=${OUT:-bench/results} bin=${BIN:-bin} commit=${COMMIT:-} tag= cache=
bin0=${BIN:-bin}
. "bench/suites/$suite.sh"
for a; do
	case $a in
	help | --help | -h)
		echo "sh bench/run.sh $suite [key=value ...]: $about"
		for p in $params; do
			eval "printf '  %s=\"%s\"\n' $p \"\$$p\""
		done
		echo "  and out=, bin=, commit=, tag=, cache= (sh bench/run.sh with no suite says)"
		exit 0 ;;
	*=*) k=${a%%=*} v=${a#*=} ;;
	*) die "$suite: '$a' is not key=value (sh bench/run.sh $suite help)" ;;
	esac
	case " $params out bin commit tag cache " in
	*" $k "*) eval "$k=\$v" ;;
	*) die "$suite: no parameter '$k' (sh bench/run.sh $suite help)" ;;
	esac
done
BIN=$(abs "$bin")
out=$(abs "$out")
[ -x "$BIN/nbbench" ] || [ -x "$BIN/nbrun" ] ||
	die "no programs in $BIN (make all bin/nbbench)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ -n "$cache" ]; then
	NBRT_CACHE_DIR=$(abs "$cache")
else
	NBRT_CACHE_DIR=$T/cache
fi
mkdir -p "$NBRT_CACHE_DIR" "$out" || exit 1
export NBRT_CACHE_DIR
: >"$T/rows"

# the device a suite names in its "device" parameter, if any; the CPU's
# model otherwise (the host path, PoCL and the plain loop run on it)
dev=${device:-host}
cpu=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
cpu=${cpu:-$(uname -m)}
if [ "$dev" != host ]; then
	"$BIN/nbrun" --device "$dev" --device-info >"$T/info" 2>"$T/err" ||
		die "$suite: no device '$dev': $(tail -n 1 "$T/err")"
fi
info() { sed -n "s/^$1 //p" "$T/info" | head -n 1; }
GPU_NAME=
slug() { tr 'A-Z' 'a-z' | sed 's/([^)]*)//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//' | cut -c1-40; }
case $dev in
host) name=$(echo "$cpu" | slug) ;;
*)
	if [ "$(info type)" = gpu ]; then
		GPU_NAME=$(info device)
		name=$(echo "$GPU_NAME" | slug)
	else
		name=pocl-$(echo "$cpu" | slug)
	fi ;;
esac
day=$(date -u +%Y-%m-%d)
R=$out/$day-$suite-$name${tag:+-$tag}.txt
i=2
while [ -e "$R" ]; do
	R=$out/$day-$suite-$name${tag:+-$tag}-$i.txt
	i=$((i + 1))
done

if [ -z "$commit" ]; then
	# this tree's own checkout, not one around a copy of it
	[ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$ROOT" ] &&
		commit=$(git rev-parse --short=12 HEAD 2>/dev/null) &&
		if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
			commit="$commit (git, with changes not committed)"
		else
			commit="$commit (git)"
		fi || commit="unknown (not a git checkout: pass commit=HASH)"
else
	commit="$commit (given)"
fi

header() {
	echo "# nbcc benchmark result (bench/run.sh)"
	echo "# suite: $suite: $about"
	printf '# command: sh bench/run.sh %s' "$suite"
	for p in $params; do
		eval "printf ' %s=\"%s\"' $p \"\$$p\""
	done
	# another build's programs (main's beside a branch's) say so; the
	# build under test ($BIN of tests/run.sh, else bin/) does not
	[ "$BIN" = "$(abs "$bin0")" ] || printf ' bin="%s"' "$bin"
	echo
	echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	if [ "$dev" = host ]; then
		echo "# device: the host: $cpu"
	else
		echo "# device: $(info device) ($(info type), driver $(info driver_version), $(info compute_units) compute units; --device $dev)"
	fi
	if [ -n "$GPU_NAME" ] && command -v nvidia-smi >/dev/null 2>&1; then
		echo "# nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit \
			--format=csv,noheader 2>/dev/null | head -n 1)"
	fi
	echo "# cpu: $cpu, $(nproc 2>/dev/null || echo '?') cores; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	# the environment that changes what runs (threads, the runtime's and
	# PoCL's switches, the GPU a process sees)
	e=$(env | grep -E '^(NBRT_|OMP_|POCL_|CUDA_VISIBLE_DEVICES=)' | grep -v '^NBRT_CACHE_DIR=' | sort | tr '\n' ' ' | sed 's/ $//')
	[ -z "$e" ] || echo "# environment: $e"
	echo "# commit: $commit"
	echo "# host: $(uname -n), $(uname -sr)"
}

{
	header
	suite_run
	echo $? >"$T/rc"
	echo "# end: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
} | tee "$R"
rc=$(cat "$T/rc" 2>/dev/null || echo 1)
echo "bench/run.sh: $suite: $R" >&2
exit "$rc"

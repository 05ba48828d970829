# suites/oneloop.sh: issue 10's rate targets (docs/oneloop.md).  With
# device=host: the one-loop sums written with QD's dd_real on one core
# (bench/oneloop_qd.cc, -O3 as the C back end's kernels are built; qd=0
# leaves it out where QD is missing) against bin/oneloop's generated dd
# code through the C back end on one core and on all, and through PoCL
# where there is one.  With any other device: bin/oneloop there.  Rates
# are dd operations/s by the paper's convention (28 N^3 a sum), from
# oneloop's kernel time; the ratio is to the faster dd_real variant of
# the same N.  extrapolate=N adds the wall time of a whole --extrapolate
# run at N (16 lambdas), values="N:LAMBDA ..." the I printed there.
about="the one-loop integral's dd code against QD's dd_real (CPU), or on a device"
params="device ns dd qd extrapolate values"
device=host
ns="256 512"
dd=qd
qd=1
extrapolate=""
values=""

# ol ROW-LABEL DD N ARGS...: a row from bin/oneloop --csv's kernel time
ol() {
	ll=$1 ld=$2 ln=$3
	shift 3
	"$@" --n "$ln" --dd "$ld" --csv </dev/null >"$T/o.csv" 2>"$T/err" ||
		{ note "failed: $ll: $(tail -n 1 "$T/err")"; return; }
	awk -F, -v l="$ll" -v d="$ld" -v b="${base:-0}" 'NR == 2 {
		r = 28 * $1 * $1 * $1 / $11
		printf "\"%s\",%s,%d,%.6g,%.4e,%s\n", l, d, $1, $11, r, (b > 0 ? sprintf("%.2f", r / b) : "") }' "$T/o.csv"
}

suite_run() {
	echo "code,dd,n,seconds,ddops_per_s,ratio"
	have_qd=0
	if [ "$device" = host ] && [ "$qd" = 1 ]; then
		${CXX:-c++} -std=c++11 -O3 -march=native -ffp-contract=off \
			-o "$T/oneloop_qd" bench/oneloop_qd.cc -lqd 2>"$T/err" && have_qd=1 ||
			note "no dd_real baseline (QD): $(tail -n 1 "$T/err")"
	fi
	cl=0
	[ "$device" = host ] && "$BIN/oneloop" --n 8 --device cpu </dev/null >/dev/null 2>&1 && cl=1
	for m in $dd; do
		# fills the cache: the rows time kernels, not builds
		if [ "$device" = host ]; then
			"$BIN/oneloop" --n 16 --target c --dd "$m" </dev/null >/dev/null 2>&1
		else
			"$BIN/oneloop" --n 64 --device "$device" --dd "$m" </dev/null >/dev/null 2>&1
		fi
	done
	for n in $ns; do
		base=
		if [ $have_qd = 1 ]; then
			"$T/oneloop_qd" "$n" </dev/null >"$T/qd" || return 1
			base=$(awk '{ r = $(NF - 1); if (r > m) m = r } END { print m }' "$T/qd")
			# oneloop_qd: VARIANT N I = V SECONDS s RATE dd-op/s
			awk -v b="$base" '{ printf "\"dd_real %s, 1 core\",dd_real,%d,%s,%s,%.2f\n",
				$1, $2, $(NF - 3), $(NF - 1), $(NF - 1) / b }' "$T/qd"
		fi
		for m in $dd; do
			if [ "$device" = host ]; then
				ol "oneloop --target c, 1 core" "$m" "$n" env OMP_NUM_THREADS=1 \
					"$BIN/oneloop" --target c
				ol "oneloop --target c, $(nproc) cores" "$m" "$n" "$BIN/oneloop" --target c
				[ $cl = 0 ] || ol "oneloop --device cpu (PoCL)" "$m" "$n" \
					"$BIN/oneloop" --device cpu
			else
				ol "oneloop --device $device" "$m" "$n" "$BIN/oneloop" --device "$device"
			fi
		done
	done
	where="--device $device"
	[ "$device" = host ] && where="--target c"
	for m in $dd; do
		for x in $extrapolate; do
			s=$(date +%s.%N)
			"$BIN/oneloop" $where --n "$x" --dd "$m" --extrapolate </dev/null >"$T/x" 2>&1 ||
				{ note "failed: --extrapolate --n $x --dd $m"; continue; }
			e=$(date +%s.%N)
			note "oneloop $where --n $x --dd $m --extrapolate: wall $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }') s"
			grep "^A = \|^B = \|kernel time" "$T/x" | sed 's/^/#   /'
		done
		for v in $values; do
			note "oneloop $where --n ${v%%:*} --lambda ${v#*:} --dd $m: $("$BIN/oneloop" $where --n "${v%%:*}" --lambda "${v#*:}" --dd "$m" </dev/null | grep '^I =')"
		done
	done
}

# suites/paper000.sh: the experiments of paper 000 (Tables II and III)
# with bin/nbody: one step and 100 steps of the three galaxy runs (--ic
# collision) and the random 100000-body run (--ic cube), with the paper's
# dt and eps, for its variants
#   no-unrolling       --unroll-i=1 --unroll-j=1 --jsplit=1
#   simple-unrolling   --unroll-i=4 --unroll-j=1 --jsplit=1   (Fig. 3)
#   double-unrolling   --unroll-i=4 --unroll-j=4 --jsplit=1   (Fig. 4)
#   nbcc-default       nbcc's and the runtime's own choice
# on the device, and (host=1) the C back end on the host's cores, the
# cpu-only row.  Rows: variant,steps_run, then nbody's --csv row.
about="paper 000's Tables II and III with bin/nbody: unrolling variants and the host"
params="device sizes steps host"
device=gpu
sizes="7500 10000 18000 100000"
steps="1 100"
host=1

# p000 VARIANT STEPS N IC DT EPS FLAGS...
p000() {
	v=$1 s=$2 pn=$3 ic=$4 dt=$5 eps=$6
	shift 6
	r=$("$BIN/nbody" --csv --ic "$ic" -n "$pn" --dt "$dt" --eps "$eps" \
		--steps "$s" "$@" </dev/null 2>"$T/err") ||
		{ note "failed: $v $s $pn: $(tail -n 1 "$T/err")"; return; }
	if [ $first = 1 ]; then
		echo "variant,steps_run,$(echo "$r" | head -n 1)"
		first=0
	fi
	echo "$v,$s,$(echo "$r" | tail -n 1)"
}

suite_run() {
	first=1
	for pn in $sizes; do
		case $pn in
		7500 | 10000) ic=collision dt=0.015625 eps=0.1 ;;
		18000) ic=collision dt=0.0078125 eps=0.01 ;;
		*) ic=cube dt=0.01 eps=0.01 ;;
		esac
		for s in $steps; do
			a="$s $pn $ic $dt $eps --device $device"
			p000 no-unrolling $a --unroll-i=1 --unroll-j=1 --jsplit=1
			p000 simple-unrolling $a --unroll-i=4 --unroll-j=1 --jsplit=1
			p000 double-unrolling $a --unroll-i=4 --unroll-j=4 --jsplit=1
			p000 nbcc-default $a
			[ "$host" = 1 ] && p000 cpu-only "$s" "$pn" $ic $dt $eps --device host --target=c
		done
	done
}

# suites/sort.sh: the device's stable radix sort (runtime/cl/sort.c)
# against the host's (runtime/order.c) on the same (key, value) pairs:
# Morton keys of uniform points (bits=63, the treecode's) and random keys
# of 20 bits (a cell list's), values their indices; for each N and key
# width one row: the medians of `reps` runs of the host sort and of the
# device's whole call (nbrt_sort_kv with NBRT_DEVICE_SORT=1) and its parts
# (staging and upload, the sort on the device, download and unstaging),
# and whether both gave the same array bit for bit.  bench/sortbench.c,
# built by make bin/sortbench.  The dispatch threshold (sortkv.c's
# DEVICE_MIN) is the least N from which device_s beats host_s on a GPU:
# sh bench/run.sh sort device=gpu.
about="device radix sort against the host's: upload, sort, download, bit-for-bit"
params="device ns bits reps"
device=gpu
ns="65536 262144 1048576 4194304"
bits="63 20"
reps=5

suite_run() {
	[ -x "$BIN/sortbench" ] || {
		note "no $BIN/sortbench (make bin/sortbench)"
		return 1
	}
	first=1 rc=0
	: >"$T/sortrows"
	for b in $bits; do
		for n in $ns; do
			"$BIN/sortbench" "$n" "$b" "$device" "$reps" </dev/null \
				>"$T/row" 2>"$T/err" ||
				{ note "failed at N = $n, $b bits: $(tail -n 1 "$T/err")"; rc=1; continue; }
			if [ $first = 1 ]; then head -n 1 "$T/row"; first=0; fi
			tail -n 1 "$T/row" | tee -a "$T/sortrows"
		done
	done
	note "seconds, medians of $reps runs; speedup = host_s / device_s;"
	note "sort_mpairs_s: N over sort_s (the device's passes alone), millions"
	awk -F, '{ printf "# N %8d  %2d bits  host %8.3g ms  device %8.3g ms (upload %.3g, sort %.3g, download %.3g)  %.3gx  same %d\n", $1, $2, $4 * 1e3, $5 * 1e3, $6 * 1e3, $7 * 1e3, $8 * 1e3, $9, $NF }' "$T/sortrows"
	return $rc
}

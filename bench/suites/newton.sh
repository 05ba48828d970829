# suites/newton.sh: Newton's third law on the host (docs/language.md,
# "Newton's third law"): a self run of each kernel with it on and off in
# turn (bench/selfrun.c, built here), per N, precision and OpenMP thread
# count; the summary gives on's speed over off's.  Then the cell lists
# (nbrt_run_cutoff with self): Lennard-Jones in the periodic unit box,
# about 50 neighbours within the cutoff, per N in cell_ns, device and
# precision, whole runs timed (lists, sorts and scatter included); the
# host C path and OpenCL (PoCL, GPUs: runtime/cl/newton.c) have the
# pairs entry, elsewhere "asked-on" computes every pair (PoCL's cell
# lists took 30 s at N = 65536 here: leave it out of devices).  The
# defaults table's newton_min and newton_cells_min rows
# (compiler/defaults.c) come from its result.
about="Newton's third law: self runs on against off, dense (host) and in cell lists (devices), per N and threads"
params="kernels ns precisions threads reps cell_ns devices"
kernels="lennard_jones_self gravity_force"
ns="4096 16384 65536"
precisions="float double"
threads="1 2"
reps=3
cell_ns="262144 1048576"
devices=host

suite_run() {
	${CC:-cc} -std=c11 -O2 -fopenmp -Icompiler -Iruntime -o "$T/selfrun" \
		bench/selfrun.c build/libnbrt.a build/libnbcc.a -lOpenCL -ldl -lm \
		2>"$T/err" || {
		note "selfrun did not build (make all first): $(tail -n 1 "$T/err")"
		return 1
	}
	echo "threads_or_device,kernel,precision,n,newton,median_s,min_s,pairs,pairs_per_s,max_rel_diff,kernel_median_s"
	{
	for k in $kernels; do
		case $k in
		lennard_jones_self) c="sig2=0.0001 eps=1 rc2=0.01" ;;
		gravity_force) c="eps2=0.0001" ;;
		*) c= ;;
		esac
		for p in $precisions; do
			for n in $ns; do
				for th in $threads; do
					OMP_NUM_THREADS=$th "$T/selfrun" "bench/newton/$k.nbl" \
						"$n" "$reps" "$p" host $c 2>"$T/err" |
						sed -n "2,\$s/^/$th,/p" || note "failed: $(tail -n 1 "$T/err")"
				done
			done
		done
	done
	# the cell lists: rc for 50 neighbours at this density
	for p in $precisions; do
		for n in $cell_ns; do
			for dev in $devices; do
				rc=$(awk -v n="$n" 'BEGIN { printf "%.6g", (50 * 3 / (4 * 3.14159265 * n)) ^ (1 / 3) }')
				"$T/selfrun" bench/newton/lennard_jones_self.nbl "$n" \
					"$reps" "$p" "$dev" "sig2=$(awk -v r="$rc" 'BEGIN { print (r / 2.5) ^ 2 }')" \
					eps=1 "rc2=$(awk -v r="$rc" 'BEGIN { print r * r }')" \
					"@cutoff=$rc" @periodic=1 2>"$T/err" |
					sed -n "2,\$s/^/$dev,/;2,\$s/lennard_jones_self.nbl/cells/p" ||
					note "failed: $(tail -n 1 "$T/err")"
			done
		done
	done
	} | tee "$T/newton_rows"
	# on over off, the medians' ratio (asked-on: the device has no
	# pairs entry, every pair computed)
	awk -F, '$5 == "off" { off[$1 FS $2 FS $3 FS $4] = $6 }
		$5 ~ /on$/ { k = $1 FS $2 FS $3 FS $4
			printf "# %-18s %-6s N=%-8s %s=%-4s: %-8s %.4g s, off %.4g s: %.2fx\n",
				$2, $3, $4, $2 == "cells" ? "device" : "threads", $1,
				$5, $6, off[k], off[k] / $6 }' "$T/newton_rows"
}

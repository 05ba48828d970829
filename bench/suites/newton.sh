# suites/newton.sh: Newton's third law on the host (docs/language.md,
# "Newton's third law"): a self run of each kernel with it on and off in
# turn (bench/selfrun.c, built here), per N, precision and OpenMP thread
# count; the summary gives on's speed over off's.  The defaults table's
# newton_min rows (compiler/defaults.c) come from its result.
about="Newton's third law on the host: self runs on against off, per N and threads"
params="kernels ns precisions threads reps"
kernels="lennard_jones_self gravity_force"
ns="4096 16384 65536"
precisions="float double"
threads="1 2"
reps=3

suite_run() {
	${CC:-cc} -std=c11 -O2 -fopenmp -Icompiler -Iruntime -o "$T/selfrun" \
		bench/selfrun.c build/libnbrt.a build/libnbcc.a -lOpenCL -ldl -lm \
		2>"$T/err" || {
		note "selfrun did not build (make all first): $(tail -n 1 "$T/err")"
		return 1
	}
	echo "threads,kernel,precision,n,newton,median_s,min_s,pairs,full_pairs_per_s,max_rel_diff"
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
	done | tee "$T/newton_rows"
	# on over off, the medians' ratio
	awk -F, '$5 == "off" { off[$1 FS $2 FS $3 FS $4] = $6 }
		$5 == "on" { k = $1 FS $2 FS $3 FS $4
			printf "# %s %s N=%s threads=%s: on %.4g s, off %.4g s: %.2fx\n",
				$2, $3, $4, $1, $6, off[k], off[k] / $6 }' "$T/newton_rows"
}

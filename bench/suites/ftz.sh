# suites/ftz.sh: float gravity with IEEE subnormals (--no-ftz), with
# nbcc's -cl-denorms-are-zero (the default for float kernels), and with
# -cl-fast-relaxed-math added by NBRT_CL_OPTIONS, for a few unrollings
# (docs/performance.md, "Flushing subnormals").
. bench/suites/variants.sh
about="float gravity: IEEE subnormals, flushed (the default) and fast relaxed math"
kernels=gravity
ns=524288
precision=float
variants=$(
	for u in "--unroll-i=2" "--unroll-i=2 --unroll-j=2" "--unroll-i=4 --jsplit=2"; do
		printf '%s' "$u --no-ftz;$u;NBRT_CL_OPTIONS=-cl-fast-relaxed-math $u;"
	done
)
rounds=1
reps=5
naive=""

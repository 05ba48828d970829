# suites/autodiff.sh: what derived kernels cost (docs/autodiff.md, issue
# 29's speed goals): the gradient of a Gaussian kernel sum with respect to
# the i-positions (nbcc --grad=xi,yi,zi, reverse mode) and the
# j-positions (--grad=xj,yj,zj, per j) and the CONST width (--grad=g,
# reduced over i and j) against the sum alone (goal: at
# most 2.5x on a GPU), and the jerk derived from gravity.nbl (--jvp) against
# hand-written hermite.nbl (goal: within 10%), in each precision; and the
# gradient of a logsumexp= (bench/autodiff/softmax.nbl: softmax weights,
# the primal's r an input, random here as the other inputs) over its
# primal.  Each time is
# nbrun --time's median kernel time over reps runs of N x N random inputs.
about="derived kernels: Gaussian and logsumexp gradients over their primals, derived jerk over hermite.nbl"
params="device ns precisions reps"
device=host
ns="2048 8192"
precisions="float double"
reps=5
JVP=xi:vxi,yi:vyi,zi:vzi,xj:vxj,yj:vyj,zj:vzj,ax:jx,ay:jy,az:jz,pot:-

# t NAME N PREC KERNEL FLAGS...: one row, the median kernel time
t() {
	name=$1 n=$2 p=$3 k=$4
	shift 4
	"$BIN/nbrun" "$k" --random "$n,$n" --device "$device" --precision="$p" \
		--time --repeat "$reps" "$@" >/dev/null 2>"$T/err" ||
		{ note "failed: $name $n $p: $(tail -n 1 "$T/err")"; return; }
	s=$(sed -n 's/^time: \([^ ]*\) s.*/\1/p' "$T/err" | tail -n 1)
	echo "$name,$n,$p,$s"
}

suite_run() {
	echo "kernel,n,precision,median_s"
	for n in $ns; do
		for p in $precisions; do
			t gauss "$n" "$p" bench/autodiff/gauss.nbl --const g=1
			t gauss_grad "$n" "$p" bench/autodiff/gauss.nbl --const g=1 \
				--grad=xi,yi,zi
			t gauss_gradj "$n" "$p" bench/autodiff/gauss.nbl --const g=1 \
				--grad=xj,yj,zj
			t gauss_gradc "$n" "$p" bench/autodiff/gauss.nbl --const g=1 \
				--grad=g
			t lse "$n" "$p" bench/autodiff/softmax.nbl --const g=1
			t lse_grad "$n" "$p" bench/autodiff/softmax.nbl --const g=1 \
				--grad=xi,yi,zi
			t hermite "$n" "$p" dsl-examples/hermite.nbl --const eps2=0.01
			t derived_jerk "$n" "$p" dsl-examples/gravity.nbl \
				--const eps2=0.01 --jvp=$JVP
		done
	done | tee "$T/rows"
	awk -F, '{ v[$1 FS $2 FS $3] = $4 }
		$1 == "gauss_grad" { printf "# Gaussian gradient / primal, N=%s %s: %.2fx (goal <= 2.5 on a GPU)\n", $2, $3, $4 / v["gauss" FS $2 FS $3] }
		$1 == "gauss_gradj" { printf "# Gaussian BMEM gradient (per j, i and j exchanged) / primal, N=%s %s: %.2fx\n", $2, $3, $4 / v["gauss" FS $2 FS $3] }
		$1 == "gauss_gradc" { printf "# Gaussian CONST gradient (per-i column; nbrun sums it, in dd) / primal, N=%s %s: %.2fx\n", $2, $3, $4 / v["gauss" FS $2 FS $3] }
		$1 == "lse_grad" { printf "# logsumexp= gradient (second run) / primal, N=%s %s: %.2fx\n", $2, $3, $4 / v["lse" FS $2 FS $3] }
		$1 == "derived_jerk" { printf "# derived jerk / hermite.nbl, N=%s %s: %.2fx (goal <= 1.10)\n", $2, $3, $4 / v["hermite" FS $2 FS $3] }' "$T/rows"
}

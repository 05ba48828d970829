# suites/transforms.sh: float gravity on one device for the transform
# settings that matter on a GPU (i- and j-unrolling with and without
# local-memory tiles, j-splits, fast math, work-group sizes) beside
# bench/naive.cl, at the sizes of the reference figures
# (docs/performance.md, "Unrolling and tiling"); make bench runs it where
# a GPU answers.
. bench/suites/variants.sh
about="float gravity: unrolling, tiles, j-split, fast math and work groups beside naive.cl"
kernels=gravity
ns="16384 131072 524288"
precision=float
variants=$(
	for ni in 1 2 4 8; do
		for nj in 1 2; do
			printf '%s' "--unroll-i=$ni --unroll-j=$nj;--unroll-i=$ni --unroll-j=$nj --tile=0;"
		done
	done
	for t in 2 4 8 16; do
		for ni in 1 2 4; do
			printf '%s' "--unroll-i=$ni --jsplit=$t;"
		done
	done
	printf '%s' "--unroll-i=4 --fast-math;--unroll-i=1 --fast-math;--unroll-i=2 --wg=256;--unroll-i=4 --wg=256;--unroll-i=4 --wg=64;--unroll-i=4 --tile=256 --wg=256;"
)
rounds=1
reps=5
naive=cl

# suites/variants.sh: any kernels at any N with any list of variants
# (nbbench flags and NAME=VALUE environment words, ';' between variants),
# in interleaved rounds; the presets jsplit, slices, tiles, transforms
# and ftz are this with other defaults.
about="kernels x N x variants (flags and environment), interleaved rounds"
params="device kernels ns precision variants rounds reps naive old base consts"
device=gpu
kernels=gravity
ns="16384 131072 524288"
precision=float
variants=";--unroll-i=4 --unroll-j=4 --wg=64"
rounds=2
reps=7
naive=""
old=""
base=defaults
consts=""

suite_run() {
	export NBRT_TUNE=0
	compare
}

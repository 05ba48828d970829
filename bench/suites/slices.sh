# suites/slices.sh: float gravity with NBRT_SLICES = 1 to 16 against the
# row's rule (docs/performance.md, "j-slices": when slices pay), for the
# defaults and, with variants=, other unrollings.
. bench/suites/variants.sh
about="float gravity: NBRT_SLICES=1..16 against the row's j-slices, per N"
kernels=gravity
ns="4096 16384 32768 65536 131072 524288"
precision=float
variants=";NBRT_SLICES=1;NBRT_SLICES=2;NBRT_SLICES=4;NBRT_SLICES=8;NBRT_SLICES=16"
rounds=2
reps=7
naive=cl

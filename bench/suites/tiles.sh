# suites/tiles.sh: float gravity with smaller local-memory tiles (more work
# groups a compute unit) for 4 x 4, 4 x 2 and 2 x 2 (docs/performance.md,
# "j-slices": more warps did not help).
. bench/suites/variants.sh
about="float gravity: local-memory tiles of 512 to 2048 for several unrollings"
kernels=gravity
ns="131072 524288"
precision=float
variants=";--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2;--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2 --tile=1536;--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2 --tile=1024;--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2 --tile=512;--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=4 --tile=1024;--unroll-i=4 --unroll-j=4 --wg=128 --jsplit=2 --tile=1024;--unroll-i=4 --unroll-j=4 --wg=128 --jsplit=4 --tile=1024;--unroll-i=2 --unroll-j=2 --wg=128 --jsplit=4 --tile=1024;--unroll-i=4 --unroll-j=2 --wg=64 --jsplit=2 --tile=1024;--unroll-i=4 --unroll-j=2 --wg=128 --jsplit=2 --tile=1024"
rounds=2
reps=7
naive=""

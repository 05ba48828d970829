# suites/examples.sh: every example kernel (and bench/heldout's) at given
# N, precision and variants on one device, in interleaved rounds: the
# float GPU row's candidates (the register budget: 2 x 4 in groups of
# 128, 4 x 4 in groups of 64, the defaults), or with old=NBBENCH the
# defaults of an older build beside the current ones.
. bench/suites/variants.sh
about="every example kernel and bench/heldout at given N, precisions and variants"
kernels="float-examples heldout"
ns="131072 524288"
precision=float
variants="--unroll-i=2 --unroll-j=4 --wg=128;--unroll-i=4 --unroll-j=4 --wg=64;"
rounds=1
reps=3

# suites/jsplit.sh: float gravity at each N with every j-split from 1 to
# 16 beside the runtime's own choice (docs/performance.md, "The j-split"
# and "The split that suits each N"): the split rule of a GPU row.
. bench/suites/variants.sh
about="float gravity: --jsplit=1..16 against the runtime's split, per N"
kernels=gravity
ns="4096 16384 32768 65536 131072 262144 524288 1048576"
precision=float
variants=";--jsplit=1;--jsplit=2;--jsplit=4;--jsplit=8;--jsplit=16"
rounds=1
reps=7
naive=""

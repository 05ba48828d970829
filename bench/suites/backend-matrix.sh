# suites/backend-matrix.sh: the back ends over a random sample of their
# flags (bench/backend_matrix.py: unrollings, splits, tiles, groups, fast
# math, the environment's splitting), each against the untransformed C
# kernel on the same random inputs; a line per failure with what repeats
# it, then "jobs N bad M".  Correctness, not speed; minutes on 2 cores.
about="the back ends over a random sample of their flags, against the plain C kernel (correctness)"
params="combos seed"
combos=40
seed=""

suite_run() {
	[ -n "$seed" ] || seed=$(awk 'BEGIN { srand(); print int(rand() * 1000000) }')
	note "seed $seed"
	python3 bench/backend_matrix.py "$combos" "$seed" </dev/null
}

#!/bin/sh
# make bench: the CPU series of this machine (bench/cpu.sh: float gravity
# against the plain -ffast-math loop on one core, the host C path and
# PoCL's variants, every example host against PoCL, as ratios in one run
# since absolute CPU times on a shared machine are noise).  A GPU, if
# present, gets bench/gpu_tune.sh.
set -u
BIN=${BIN:-bin}
K=dsl-examples/gravity.nbl
BIN=$BIN sh bench/cpu.sh
if "$BIN/nbbench" $K 64 --device gpu -r 1 >/dev/null 2>&1; then
	sh bench/gpu_tune.sh gpu
fi

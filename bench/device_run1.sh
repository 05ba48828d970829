#!/bin/sh
# One device session: probe, correctness on the GPU, then the tuning table.
# Run from the repository root on the device machine, with bin/ and
# .carry/lib carried; results go to $OUT.
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee $OUT/smi.txt
bin/clprobe | cut -c1-400 | tee $OUT/probe.txt
timeout 200 sh bench/gpu_check.sh gpu 2>&1 | tee $OUT/check.txt
timeout 330 sh bench/gpu_tune.sh gpu $OUT/tune.csv
awk -F, 'NR > 1 { printf "%-8s %-60s %8d %.3e\n", $2, $3, $4, $9 }' $OUT/tune.csv

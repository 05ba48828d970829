#!/bin/sh
# device_streams.sh: the end of a launch (docs/performance.md, "j-slices"):
# the PTX of device_run8.sh (v1: 2 x 2 split 4 wg 128, v2: 4 x 4 split 2
# wg 64, v3: split 8; copied from its $OUT into ptxdump/) run by
# bench/ptxrun.c with the j range cut into S parts on S streams, and
# Nsight Compute's active and elapsed cycles of v3.
set -u
export PATH=$PATH:/usr/local/cuda/bin
gcc -O2 -I/usr/local/cuda/include bench/ptxrun.c -o /tmp/ptxrun -lcuda || exit 1
for r in 1 2; do
for n in 131072 524288; do
 for s in 1 2 4 8 16; do
  /tmp/ptxrun ptxdump/v2.ptx $n 4 2 64 4 $s | sort -k5 -g | tail -1 | sed 's/^/v2 4x4T2 /'
  /tmp/ptxrun ptxdump/v1.ptx $n 2 4 128 4 $s | sort -k5 -g | tail -1 | sed 's/^/v1 2x2T4 /'
 done
done
done
ncu --clock-control none -k nbk_gravity -c 1 --metrics smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,sm__cycles_elapsed.avg /tmp/ptxrun ptxdump/v3.ptx 524288 4 8 64 1 2>&1 | tail -4

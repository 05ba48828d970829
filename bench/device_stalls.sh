#!/bin/sh
# device_stalls.sh: the stall reasons and pipe use of the PTX that
# device_run8.sh saved (v1: 2 x 2 split 4 wg 128, v2: 4 x 4 split 2 wg
# 64), through bench/ptxrun.c and Nsight Compute; PTX files in $PTX
# (copied from device_run8.sh's $OUT).
set -u
OUT=${OUT:-/tmp}
PTX=${PTX:-.}
export PATH=$PATH:/usr/local/cuda/bin
N=${N:-524288}
gcc -O2 -I/usr/local/cuda/include bench/ptxrun.c -o /tmp/ptxrun -lcuda || exit 1
i=0
while read -r v ui t wg; do
	ptxas -arch=sm_90 $PTX/$v.ptx -o /tmp/$v.cubin && cuobjdump -sass /tmp/$v.cubin >$OUT/$v.sass
	ncu --clock-control none -k nbk_gravity -c 1 \
		--metrics 'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,regex:^sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active$,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,sm__cycles_elapsed.avg' \
		/tmp/ptxrun $PTX/$v.ptx $N $ui $t $wg 1 >$OUT/stall_$v.txt 2>&1
	echo "== $v"
	awk '$NF + 0 > 0.02' $OUT/stall_$v.txt | grep -v '^==' | sed 's/  */ /g'
done <<EOT
v1 2 4 128
v2 4 2 64
EOT

#!/bin/sh
# Final device session: correctness of every example on the GPU with the
# released code, the reference-size table with nbcc's defaults, and the
# nbody runs of paper 000 with the defaults.  Results under $OUT.
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp}
K=dsl-examples/gravity.nbl
B=bin/nbbench
timeout 200 sh bench/gpu_check.sh gpu > $OUT/check.txt 2>&1; echo "check rc=$?"
grep -c "^ok" $OUT/check.txt; grep -v "^ok" $OUT/check.txt | head
$B --header > $OUT/ref.csv
for n in 16384 32768 131072 524288 1048576; do
	$B $K $n -r 5 >> $OUT/ref.csv
done
for n in 16384 131072 524288; do $B $K $n -r 3 --precision=double >> $OUT/ref.csv; done
$B dsl-examples/oneloop.nbl 65536 -r 3 --const one=1 --const s=0.3 --const tt=0.2 >> $OUT/ref.csv
awk -F, '{ printf "%-8s %-60s %8s %s\n", substr($2,1,8), $3, $4, $9 }' $OUT/ref.csv
HOST=0 BIN=bin timeout 200 sh bench/paper000.sh gpu $OUT/paper000.csv
cut -d, -f1-4,16-19 $OUT/paper000.csv

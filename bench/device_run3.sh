#!/bin/sh
# Third device session: the j-split sweep behind the runtime's choice, the
# reference-size table, paper 000's experiments and the correctness check,
# all with the current defaults.  Results under $OUT.
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp}
K=dsl-examples/gravity.nbl
B="bin/nbbench"
$B --header > $OUT/sweep.csv
for n in 16384 32768 65536 131072 262144 524288; do
	for t in 1 2 4 8 16; do $B $K $n --jsplit=$t -r 5 >> $OUT/sweep.csv; done
	$B $K $n -r 5 | sed 's/^/auto/' >> $OUT/sweep.csv
done
$B --header > $OUT/ref.csv
for n in 16384 131072 524288; do
	$B $K $n -r 5 >> $OUT/ref.csv
	$B bench/naive.cl $n -r 5 >> $OUT/ref.csv
	NBRT_CL_OPTIONS=-cl-denorms-are-zero $B bench/naive.cl $n -r 5 | sed 's/hand-written/hand-written, -cl-denorms-are-zero/' >> $OUT/ref.csv
	$B $K $n -r 3 --precision=double >> $OUT/ref.csv
done
$B $K 65536 -r 3 --precision=dd >> $OUT/ref.csv
$B dsl-examples/oneloop.nbl 65536 -r 3 --const one=1 --const s=0.3 --const tt=0.2 >> $OUT/ref.csv
BIN=bin timeout 300 sh bench/paper000.sh gpu $OUT/paper000.csv
timeout 150 sh bench/gpu_check.sh gpu > $OUT/check.txt 2>&1; echo "check rc=$?"
grep -c "^ok" $OUT/check.txt; grep -v "^ok" $OUT/check.txt | head
awk -F, '{ printf "%-6s %-55s %8s %s\n", substr($2,1,6), $3, $4, $9 }' $OUT/sweep.csv $OUT/ref.csv
cut -d, -f1-4,16-20 $OUT/paper000.csv

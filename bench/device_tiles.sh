#!/bin/sh
# device_tiles.sh: float gravity on an H200 with smaller local-memory
# tiles (more work groups a compute unit) for the tuner's 4 x 4 and for
# 2 x 2 and 4 x 2 (docs/performance.md, "j-slices"); bin/ and .carry/mpi
# carried, results in $OUT/tiles.csv.
set -u
. .carry/mpi/env.sh
G=dsl-examples/gravity.nbl
B=bin/nbbench
export NBRT_TUNE=0
$B --header > $OUT/tiles.csv
for r in 1 2; do
for n in 131072 524288; do
 for v in "" "--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2" \
  "--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2 --tile=1536" \
  "--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2 --tile=1024" \
  "--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2 --tile=512" \
  "--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=4 --tile=1024" \
  "--unroll-i=4 --unroll-j=4 --wg=128 --jsplit=2 --tile=1024" \
  "--unroll-i=4 --unroll-j=4 --wg=128 --jsplit=4 --tile=1024" \
  "--unroll-i=2 --unroll-j=2 --wg=128 --jsplit=4 --tile=1024" \
  "--unroll-i=4 --unroll-j=2 --wg=64 --jsplit=2 --tile=1024" \
  "--unroll-i=4 --unroll-j=2 --wg=128 --jsplit=2 --tile=1024" ; do
  $B $G $n -r 7 --device gpu $v >> $OUT/tiles.csv
 done
done
done
awk -F, 'NR > 1 { k = $4 " " $3; v[k] = v[k] " " $9 } END { for (k in v) print k, v[k] }' $OUT/tiles.csv | sort -n

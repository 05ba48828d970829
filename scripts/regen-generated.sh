#!/bin/sh
# Writes nbcc's output for every example with default flags into generated/
# (OpenCL C, and beside it the C back end and AMD IL).  tests/sh/generated.sh runs this
# into a scratch directory and fails when the result differs from the tree.
# usage: regen-generated.sh NBCC OUTDIR   (run from the repository root)
set -eu
NBCC=$1
OUT=$2
mkdir -p "$OUT"
for src in dsl-examples/*.nbl; do
	name=$(basename "$src" .nbl)
	"$NBCC" "$src" -o "$OUT/$name.cl"
	"$NBCC" "$src" -o "$OUT/$name.c"
	"$NBCC" "$src" -o "$OUT/$name.il"
done

#!/bin/sh
# seeds.sh NAME DIR: puts the seeds of the fuzz target NAME into DIR (made
# anew; make fuzz and fuzz-check run it from the root): the target's own,
# tests/fuzz/corpus/NAME, and the tests' data that is its kind of input,
# read where it lives, so that no copy of it is kept here:
#   parse  every .nbl of dsl-examples and tests/cases, behind the three
#          bytes fuzz_parse.c reads first: the options, which vary from
#          one file to the next, and 0x37 (make everything, a CPU class)
#   iface  every file of generated/, headers nbcc wrote
#   il     every tests/cases/il/*.il, programs good and malformed
#   ranges every tests/cases/nbrun/*.ranges behind the three bytes
#          fuzz_ranges.c reads first: Ni = Nj = 2 as the cases' CSV
#          files have, and a part [1, 3)
set -eu
name=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
[ ! -d "tests/fuzz/corpus/$name" ] || cp tests/fuzz/corpus/"$name"/* "$dir"/
# byte B as printf's escape
byte() { printf "\\$(printf %03o $(($1 % 256)))"; }
k=0
case $name in
parse)
	for f in dsl-examples/*.nbl tests/cases/*/*.nbl; do
		{ byte $((0x41 + k)); byte $((0x21 + k)); byte $((0x37)); cat "$f"; } \
			>"$dir/$(echo "$f" | tr / -)"
		k=$((k + 1))
	done
	;;
iface) for f in generated/*; do cp "$f" "$dir/generated-${f##*/}"; done ;;
il) for f in tests/cases/il/*.il; do cp "$f" "$dir/"; done ;;
ranges)
	for f in tests/cases/nbrun/*.ranges; do
		{ byte 2; byte 2; byte $((0x21)); cat "$f"; } >"$dir/${f##*/}"
	done
	;;
esac

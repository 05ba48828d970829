#!/bin/sh
# Turns a text file into a C string definition, so generated kernels can
# carry library code (the dd arithmetic) that is kept as a readable source.
# usage: embed.sh FILE NAME > out.c
set -eu
printf '/* generated from %s by scripts/embed.sh; do not edit */\n' "$1"
printf 'const char %s[] =\n' "$2"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$1"
printf ';\n'

#!/bin/sh
# have-libfuzzer.sh CC: true when CC can build a libFuzzer target with the
# sanitizers make fuzz uses; make check skips the fuzz targets otherwise.
CC=${1:-clang}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	'{ (void)d; (void)n; return 0; }' >"$T/t.c"
"$CC" -fsanitize=fuzzer,address,undefined -o "$T/t" "$T/t.c" >/dev/null 2>&1 &&
	"$T/t" -runs=1 >/dev/null 2>&1

# bench/lib.sh: what the suites of bench/suites/ share, sourced by
# bench/run.sh: kernels by name, variants, one nbbench run as one row of
# the result, the naive CUDA kernel's rows, and the summary of interleaved
# rounds (the median of each variant, its ratio to a base variant).
#
# A variant is a string of words: NAME=VALUE words (NAME in capitals) go
# to the environment (NBRT_SLICES=4, NBRT_CL_OPTIONS=-cl-fast-relaxed-math),
# the others to nbbench as flags; the empty variant is nbcc's defaults.  A
# list of variants separates them with ';' (";--jsplit=2" is the defaults
# and a split of 2).  Rows of nbbench-based suites are
#   round,variant,<nbbench's CSV row>
# under one header line; the summary follows as comment lines ("# ").

# note TEXT: a comment line in the result
note() {
	echo "# $*"
}

# kernel_file NAME: the file of a kernel named by its example's name
# (dsl-examples/NAME.nbl), a held-out kernel's (bench/heldout/NAME.nbl),
# "naive" (bench/naive.cl, the hand-written OpenCL kernel), or a path
kernel_file() {
	case $1 in
	naive) echo bench/naive.cl ;;
	*/* | *.nbl | *.cl) echo "$1" ;;
	*) if [ ! -f "dsl-examples/$1.nbl" ] && [ -f "bench/heldout/$1.nbl" ]; then
		echo "bench/heldout/$1.nbl"
	else
		echo "dsl-examples/$1.nbl"
	fi ;;
	esac
}

# kernel_list WORDS: one kernel a line; "examples" is every example,
# "float-examples" every one but oneloop (dd) and hermite (double, two
# results a pair), "heldout" the kernels of bench/heldout/ (written after
# the GPU float row's register budget was chosen, to test it).  A word
# NAME:PRECISION runs NAME in that precision.
kernel_list() {
	for _w in $1; do
		case $_w in
		examples | float-examples)
			for _f in dsl-examples/*.nbl; do
				_b=$(basename "$_f" .nbl)
				case $_w:$_b in float-examples:oneloop | float-examples:hermite) ;;
				*) echo "$_b" ;;
				esac
			done ;;
		heldout) for _f in bench/heldout/*.nbl; do basename "$_f" .nbl; done ;;
		*) echo "$_w" ;;
		esac
	done
}

# variant_label VARIANT: how the rows name it
variant_label() {
	if [ -n "$1" ]; then echo "$1"; else echo defaults; fi
}

# each_variant LIST: writes the variants of LIST into $T/variants, one a
# line, for `while IFS= read -r v; do ...; done <"$T/variants"`
each_variant() {
	printf '%s\n' "$1" | tr ';' '\n' | sed 's/^ *//; s/ *$//' >"$T/variants"
}

# bench_row ROUND LABEL KERNEL[:PRECISION] N[,NJ] VARIANT [NBBENCH]: one
# run of nbbench (or of an older build's, NBBENCH: its own cache) on
# $device, $reps timed runs, in the kernel's precision unless it names
# one, with $consts (NAME=V words); appends "ROUND,LABEL,<row>" to the result
# and to $T/rows.  A failure is a comment line.  With percpu=1 (and perf)
# the row's interactions/s are per CPU-second instead: perf's task-clock
# of the run less that of -r 0 (task_ms), which a shared machine's load
# moves less than the wall clock.
bench_row() {
	_br=$1 _bl=$2 _bk=$3 _bn=$4 _bv=$5 _bnb=${6:-$BIN/nbbench}
	_bp=
	case $_bk in *:*) _bp=${_bk#*:} _bk=${_bk%:*} ;; esac
	[ "$_bk" = naive ] && _bp= # hand-written, float only
	_be="NBRT_CACHE_DIR=$NBRT_CACHE_DIR" _bfl=
	[ "$_bnb" = "$BIN/nbbench" ] || _be="NBRT_CACHE_DIR=$T/cache-old"
	for _bw in $_bv; do
		case $_bw in
		[A-Z]*=*) _be="$_be $_bw" ;;
		*) _bfl="$_bfl $_bw" ;;
		esac
	done
	for _bw in ${consts:-}; do _bfl="$_bfl --const $_bw"; done
	# shellcheck disable=SC2086 # words on purpose
	if env $_be "$_bnb" "$(kernel_file "$_bk")" "$_bn" -r "${reps:-5}" \
		--device "$device" ${_bp:+--precision=$_bp} $_bfl \
		</dev/null >"$T/row" 2>"$T/err" && [ -s "$T/row" ] &&
		{ [ "${percpu:-0}" != 1 ] || percpu_row $_be "$_bnb" \
			"$(kernel_file "$_bk")" "$_bn" --device "$device" \
			${_bp:+--precision=$_bp} $_bfl; }; then
		echo "$_br,\"$_bl\",$(tail -n 1 "$T/row")" | tee -a "$T/rows"
		# a queued row's host and wall time a run, as a comment beside
		# it: where the host's time is the wall's, the row measured the
		# host's pace, not the device's (session 23: N = 4096 on NVIDIA)
		sed -n 's/^nbbench: \([0-9]* queued runs .*\)/# \1/p' "$T/err"
	else
		note "failed: $_bl, $_bk, N = $_bn: $(tail -n 1 "$T/err")"
	fi
}

# task_ms COMMAND...: the task-clock milliseconds of a command, all its
# threads (perf stat), its output in $T/out; fails where perf does not
# work.  Per CPU-second rates divide by it: on a shared machine another
# job's load moves it much less than the wall clock.
task_ms() {
	perf stat -x, -e task-clock -o "$T/perf" "$@" </dev/null >"$T/out" 2>/dev/null &&
		grep task-clock "$T/perf" | cut -d, -f1
}

# percpu_row [NAME=V...] NBBENCH KERNEL N ARGS...: $T/row's interactions/s
# (its third field from the end: the quoted ones before may hold commas)
# per CPU-second, from the task-clock of -r $reps less that of -r 0
percpu_row() {
	_pe=
	while case $1 in [A-Z]*=*) true ;; *) false ;; esac; do
		_pe="$_pe $1"
		shift
	done
	# shellcheck disable=SC2086 # words on purpose
	_p0=$(task_ms env $_pe "$@" -r 0) && _p1=$(task_ms env $_pe "$@" -r "${reps:-5}") ||
		return 1
	awk -F, -v OFS=, -v a="$_p0" -v b="$_p1" '{
		d = (b - a) / 1000; r = d > 0 ? $(NF - 5) * $(NF - 7) * $(NF - 6) / d : 0
		$(NF - 2) = sprintf("%.4e", r); print }' \
		"$T/row" >"$T/row.cpu" && mv "$T/row.cpu" "$T/row"
}

# cpu_probe KERNEL: for the CPU suites, perf=1 where perf stat works
# (task_ms; else a note), cl=1 where KERNEL runs on an OpenCL CPU device
# (PoCL), and a note naming the default device
cpu_probe() {
	perf=0
	perf stat -x, -e task-clock true >/dev/null 2>&1 && perf=1
	[ $perf = 1 ] || note "no perf: per CPU-s of nbbench rows is 0"
	cl=0
	"$BIN/nbbench" "$1" 64 --device cpu -r 1 </dev/null >/dev/null 2>&1 && cl=1
	note "default device: $("$BIN/nbbench" "$1" 64 -r 1 </dev/null | cut -d, -f1)"
}

# MEDIAN: an awk function for the suites' tables, med(a, k, m): the
# median of a[k, 1] .. a[k, m]
MEDIAN='
function med(a, k, m,   i, j, t, v) {
	for (i = 1; i <= m; i++) v[i] = a[k, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
		if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}'

# rows_header: the header line of nbbench-based rows
rows_header() {
	echo "round,variant,$("$BIN/nbbench" --header)"
}

# naive_cuda_build: bench/naive.cu (hand-written CUDA, K = 1, 2, 4
# i-elements a thread) with nvcc -O3 --use_fast_math -arch=$arch (fast
# math, as the reference figures' naive kernel) into $T/naive_cuda;
# fails (with a note) where there is no nvcc
naive_cuda_build() {
	_nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null) || {
		note "no nvcc: no naive CUDA rows"
		return 1
	}
	"$_nvcc" -O3 --use_fast_math -arch="${arch:-native}" -o "$T/naive_cuda" bench/naive.cu \
		>"$T/err" 2>&1 || {
		note "nvcc failed: $(tail -n 1 "$T/err")"
		return 1
	}
}

# naive_cuda_rows ROUND [-q Q] N...: the best K of bench/naive.cu at each N
# (the median of its 7 timed runs; -q Q: each Q launches queued between
# two events, divided by Q, labelled so), as rows like nbbench's
naive_cuda_rows() {
	_cr=$1 _cq=
	shift
	[ "$1" != -q ] || { _cq=$2; shift 2; }
	"$T/naive_cuda" ${_cq:+-q "$_cq"} "$@" </dev/null >"$T/cuda" 2>"$T/err" ||
		note "naive CUDA failed: $(tail -n 1 "$T/err")"
	awk -F, -v r="$_cr" -v d="${GPU_NAME:-CUDA}" -v q="$_cq" '$1 ~ /^naive_cuda(_q)?_best$/ {
		printf "%s,\"naive CUDA%s\",\"%s\",naive_cuda,\"--precision=float best K=%s%s\",%s,%s,7,%s,%s,%s,,\n",
			r, q != "" ? ", queue " q : "", d, $3, q != "" ? " --queue " q : "", $2, $2, $4, $4, $5 }' "$T/cuda" | tee -a "$T/rows"
}

# summary BASE [BY]: for the rows so far ($T/rows), each variant's median
# interactions/s over its runs (in the order first run), and its ratio to
# the fastest variant whose label matches the regular expression BASE in
# the same group: the same N and precision, and with BY=kernel (the
# default) the same kernel
summary() {
	[ -s "$T/rows" ] || return 0
	awk -v base="$1" -v by="${2:-kernel}" '
	function csv(s, f,   n, i, c, q, cur) {
		n = 0; cur = ""; q = 0
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (q) {
				if (c != "\"") cur = cur c
				else if (substr(s, i + 1, 1) == "\"") { cur = cur c; i++ }
				else q = 0
			} else if (c == "\"") q = 1
			else if (c == ",") { f[++n] = cur; cur = "" }
			else cur = cur c
		}
		f[++n] = cur
		return n
	}
	function med(k,   m, i, j, t, v) {
		m = cnt[k]
		for (i = 1; i <= m; i++) v[i] = val[k, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		lo[k] = v[1]; hi[k] = v[m]
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	{
		csv($0, f)
		prec = "float"
		if (match(f[5], /--precision=[a-z]+/))
			prec = substr(f[5], RSTART + 12, RLENGTH - 12)
		g = f[6] " " prec (by == "kernel" ? " " f[4] : "")
		k = f[4] SUBSEP f[6] SUBSEP prec SUBSEP f[2]
		if (!(k in cnt)) { order[++nk] = k; grp[k] = g; lab[k] = f[2] }
		val[k, ++cnt[k]] = f[11] + 0
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; m[k] = med(k)
			if (lab[k] ~ base && m[k] > best[grp[k]]) best[grp[k]] = m[k]
		}
		print "# summary: the median interactions/s of each variant over its runs;"
		print "# ratio: to the fastest variant matching /" base "/ of the same N, precision" (by == "kernel" ? " and kernel" : "")
		printf "# %-18s %8s %-6s %-50s %4s %10s %10s %10s %7s\n", "kernel", "N", "prec", "variant", "runs", "median", "min", "max", "ratio"
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, p, SUBSEP)
			b = best[grp[k]]
			printf "# %-18s %8s %-6s %-50s %4d %10.4g %10.4g %10.4g %7s\n", p[1], p[2], p[3], p[4], cnt[k], m[k], lo[k], hi[k], (b > 0 ? sprintf("%.3f", m[k] / b) : "-")
		}
	}' "$T/rows"
}

# compare: every N x kernel x precision x variant of the suite's
# parameters ($precision a list; empty: each kernel's own), in
# $rounds interleaved rounds, so that a shared machine's load falls on
# every variant alike; with naive=cl the hand-written OpenCL kernel at
# each N, with old=NBBENCH an older build's nbbench beside each variant;
# then the summary against $base (default: nbcc's defaults)
compare() {
	rows_header
	each_variant "${variants:-}"
	for _round in $(seq "$rounds"); do
		for _n in $ns; do
			case " ${naive:-} " in *" cl "*)
				bench_row "$_round" "naive OpenCL" naive "$_n" "" ;;
			esac
			for _k in $(kernel_list "$kernels"); do
				for _p in ${precision:-own}; do
					_kp=$_k
					case $_p:$_k in own:* | *:*:*) ;; *) _kp=$_k:$_p ;; esac
					while IFS= read -r _v; do
						_lab=$(variant_label "$_v")
						[ -z "${old:-}" ] || bench_row "$_round" \
							"old: $_lab" "$_kp" "$_n" "$_v" "$old"
						bench_row "$_round" "$_lab" "$_kp" "$_n" "$_v"
					done <"$T/variants"
				done
			done
		done
	done
	summary "^${base:-defaults}\$"
}

# cached_ptx ENTRY: the PTX of an entry of the runtime's cache where
# NVIDIA's OpenCL stored it (runtime/cache.c: the data, then the key,
# which opens with its length and a colon, then the trailer)
cached_ptx() {
	sed -n '/^\/\/ Generated by NVIDIA/,$p' "$1" | tr -d '\000' |
		awk '/^\}?[0-9]+:/ { if ($0 ~ /^\}/) print "}"; exit } { print }'
}


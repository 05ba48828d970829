/* nbcc.h: the compiler as a library.  This is the only compiler header the
 * runtime and the programs include: options, the one-call compile entry, and
 * the kernel interface (what a generated kernel expects, in what order). */
#ifndef NBCC_H
#define NBCC_H

#include <stddef.h>
#include <stdio.h>

/* What this header declares is the public API, exported by libnbcc.so;
 * the library is built with -fvisibility=hidden, so nothing else is. */
#pragma GCC visibility push(default)

#define NBCC_VERSION "0.1.0"

typedef enum { NB_FLOAT, NB_DOUBLE, NB_DD } nb_prec;
typedef enum { NB_LMEM, NB_BMEM, NB_RMEM, NB_CONST } nb_role;
#define NB_NROLE 4

const char *nb_prec_name(nb_prec p);   /* "float", "double", "dd" */
/* A value of precision p in memory is nb_prec_scalars(p) machine scalars
 * (a dd is hi and lo) of nb_prec_scalar_bytes(p) bytes each. */
int nb_prec_scalars(nb_prec p);
size_t nb_prec_scalar_bytes(nb_prec p);
double nb_prec_unit(nb_prec p);        /* unit roundoff: 2^-24 for float */
const char *nb_role_name(nb_role r);   /* "LMEM", ... */

/* What an RMEM holds after the j loop, set by the reductions into it
 * (docs/language.md, "Reductions").  A count is a sum of conditions; an
 * argmin/argmax is a j index (-1 for an empty j range); all three are
 * integers.  The names are the interface header's words. */
typedef enum { NB_SUM, NB_COUNT, NB_MIN, NB_MAX, NB_ARGMIN, NB_ARGMAX,
               NB_LOGSUMEXP } nb_red;
#define NB_NRED 7
const char *nb_red_name(nb_red r);     /* "sum", "count", "min", ... */
/* Whether the result is an integer (count, argmin, argmax). */
int nb_red_integer(nb_red r);
/* Whether a result over part of the j range can be combined with the
 * next part's from the stored result alone; an index cannot (the value
 * it is the index of is gone), so the runtime never cuts their j range. */
int nb_red_resumes(nb_red r);

typedef struct nb_options {
	nb_prec precision;    /* type of untyped declarations */
	const char *target;   /* "opencl", "c", "amdil"; NULL: from the output name */
	int unroll_i;         /* NI >= 1: i-elements per work item; 0: auto */
	int unroll_j;         /* NJ >= 1: j-elements per inner iteration */
	int jsplit;           /* T >= 1: work items sharing one i-group */
	int split_warps;      /* OpenCL: the T work items of an i-group in
	                         T different warps, a warp's 32 items at one
	                         split position (--split-warps) */
	int sched;            /* 0: none, 1: interleave unrolled copies */
	int fast_math;        /* allow reassociation and native functions */
	int fma;              /* contract a*b+c into fma (float, double) */
	int ftz;              /* float-only GPU kernels flush subnormals */
	int dd_qd;            /* dd arithmetic as QD's defaults (--dd=qd) */
	int approx;           /* C back end, and OpenCL for a CPU: approximate
	                         float functions where the precision allows
	                         (prec.c); --no-approx */
	int cpu;              /* the OpenCL device is a CPU (defaults differ) */
	const char *devclass; /* the device class whose row of the defaults
	                         table applies ("gpu-nvidia", "cpu-avx512",
	                         "host-avx2"); NULL: "cpu" or "gpu" by cpu */
	int wg;               /* OpenCL work-group size, 0: default */
	int tile;             /* j-elements per local-memory tile, 0: default,
	                         -1: none (read through the cache) */
	const char *kname;    /* kernel name, NULL: from the file name */
	int ranges;           /* also write the entry of block-sparse runs
	                         (nbrt_run_ranges): C and OpenCL */
	int rtasks;           /* OpenCL's ranges entry without tiles, one
	                         i-element a task: this many tasks a work
	                         group, T work items each (0 or 1: one a work
	                         group; set by the runtime, runtime/ranges.c) */
	const char *jvp;      /* --jvp=x:v,...: forward-mode derivatives */
	const char *grad;     /* --grad=x,...: gradients (docs/autodiff.md) */
	const char *grad_of;  /* --grad-of=r,...: of these results only */
	unsigned given;       /* NB_GIVEN_* bits: set by nb_options_parse */
} nb_options;

/* Which options were given explicitly (so a source's own nbcc-options
 * line does not override them). */
enum {
	NB_GIVEN_PRECISION = 1, NB_GIVEN_UNROLL_I = 2, NB_GIVEN_UNROLL_J = 4,
	NB_GIVEN_JSPLIT = 8, NB_GIVEN_SCHED = 16, NB_GIVEN_FAST_MATH = 32,
	NB_GIVEN_FMA = 64, NB_GIVEN_WG = 128, NB_GIVEN_TILE = 256,
	NB_GIVEN_TARGET = 512, NB_GIVEN_NAME = 1024, NB_GIVEN_FTZ = 2048,
	NB_GIVEN_DD = 4096, NB_GIVEN_APPROX = 8192, NB_GIVEN_RANGES = 16384,
	NB_GIVEN_SPLIT_WARPS = 32768,
};

void nb_options_init(nb_options *o);

/* Parses one command-line flag shared by every program that compiles
 * kernels (--precision=P or --precision P, --unroll-i=N, ...).  `next` is
 * the argument after it (or NULL).  Returns how many arguments it took (1
 * or 2), 0 if the flag is not a compiler flag, -1 on a bad value (message
 * in err). */
int nb_options_parse(nb_options *o, const char *arg, const char *next,
                     char *err, size_t errlen);
/* Checks a struct filled in by hand against the values nb_options_parse
 * takes (the same table), each field's special values too (unroll_i and
 * wg 0, tile 0 and -1, NULL strings): returns 0, or -1 with a message
 * naming the field, its value and what it may hold in err ("unroll_i =
 * 1000: it must be 0 (chosen for the target) or an integer from 1 to
 * 64").  nb_compile refuses a struct this refuses, with its message. */
int nb_options_check(const nb_options *o, char *err, size_t errlen);
/* Whether arg ("--wg", "--wg=64") is a compiler flag: 2 if it takes a
 * value, 1 if it takes none, 0 if it is no compiler flag.  So a program
 * can read its command line with its own flags and the compiler's alike
 * (apps/common/opt.c). */
int nb_options_flag(const char *arg);
/* Calls warn once for each flag in o->given that the target (a --target
 * name; NULL: the default) never reads, with a message such as "--wg
 * applies to OpenCL C kernels only; ignored for target c"; returns how
 * many.  For a command line (nbcc's): nb_compile does not ask, since the
 * runtime gives such flags to every back end alike (its tuner's
 * variants) and a source's nbcc-options line may be meant for any. */
int nb_options_ignored(const nb_options *o, const char *target,
                       void (*warn)(const char *fmt, ...));
/* One line per compiler flag, for --help texts.  The --target line names
 * the compiler's targets (target.c), so the text is made on each thread's
 * first call. */
const char *nb_options_help_text(void);

/* The target ("opencl", "c", ...) whose output extension a file name ends
 * in: "k.cl" and ".cl" give "opencl"; NULL if none does. */
const char *nb_target_of_ext(const char *path);
/* The targets in words, for help texts and messages: NB_TL_NAMES "opencl,
 * c or amdil", NB_TL_EXTS ".cl, .c or .il", NB_TL_LANGS ".cl (OpenCL C),
 * .c (C11), .il (AMD IL)".  The text lives in a static buffer of the
 * calling thread, made on its first call. */
enum { NB_TL_NAMES, NB_TL_EXTS, NB_TL_LANGS };
const char *nb_target_list(int what);

/* The defaults table (compiler/defaults.c): the variant a kernel gets
 * when neither its command line nor its source fixes one, per target,
 * device class and widest precision, each row from a measured sweep
 * (docs/performance.md, "The defaults table"). */
typedef struct nb_defaults {
	const char *target;   /* "opencl", "c", "amdil" */
	const char *devclass; /* "gpu-nvidia", "cpu-avx512", "host", "" */
	int prec;             /* an nb_prec, or -1: any */
	int unroll_i, unroll_j;
	int wg, tile;         /* 0: the back end's own (128; one work group) */
	/* a .nbl on a GPU whose j-split is left open gets the smallest
	 * power of two (at most 16) giving this many i-elements times split
	 * per compute unit; 0: no split chosen */
	int split_items;
	int split_min;        /* and at least this split (0 or 1: none) */
	const char *source;   /* the sweep the row was written from */
	/* j-slices for a launch of a kernel that may be sliced
	 * (nb_iface.slices) and is long enough to pay for adding them up
	 * (runtime/launch.c); 0 or 1: none */
	int slices;
	/* a register budget (32-bit words, the estimate of --stats): a
	 * kernel over it at the row's i-unroll takes half the i-elements a
	 * work item, in a group of twice the work items, until it fits;
	 * 0: none (compiler/driver.c) */
	int regs;
	/* with a budget: the least rows of i-elements a group holds (its
	 * work items over the j-split); the group doubles until it does */
	int rows;
	/* the host C path: a self run (nbrt_run_self) of a kernel with a
	 * pairs entry computes each pair once from this many elements up,
	 * where it was measured faster; 0: never (Newton's third law) */
	int newton_min;
	/* and so in cell lists (nbrt_run_cutoff, self) */
	int newton_cells_min;
	/* OpenCL's dense Newton entry sums a pair's term apart and adds it
	 * to the i- and the j-side, where it was measured faster than
	 * adding each of the term's sinks to each side (emit_opencl.c's
	 * dense_term); 0: the sinks a side */
	int newton_apart;
	/* OpenCL's one-launch entry reads a float kernel's inputs from the
	 * runtime's arrays (their float copies, NB_DIN, runtime/cl/run.c) in
	 * runs of at most this many pairs (Ni x Nj), where it was measured
	 * faster than converting them first; 0: in every run (in double and
	 * dd always: their tiles read the same bytes or fewer) */
	long long din_max;
	/* OpenCL on a GPU: a run whose i-elements make one wave of groups
	 * of 32 (Ni in (2/3, 1] x 32 x compute units), with Nj at most 4 Ni,
	 * of a kernel that is not a single sum, runs 1 x wave_uj split
	 * wave_split ways across warps (--split-warps, groups of 32 x
	 * wave_split items), the split summed in the group; 0: never
	 * (runtime/launch.c, nbrt_wave) */
	int wave_split, wave_uj;
} nb_defaults;
/* The row for a device class: the class itself, else the classes it
 * narrows ("cpu-avx512" -> "cpu"), else the target's last class; NULL
 * for an unknown target. */
const nb_defaults *nb_defaults_find(const char *target,
                                    const char *devclass, nb_prec p);
/* Whether --device-class may name it: a class of the table, or one
 * narrower than a class of the table ("gpu-amd"). */
int nb_defaults_class_ok(const char *devclass);
/* The same among target's rows (NULL: any target's). */
int nb_defaults_class_of(const char *target, const char *devclass);

/* Writes the flags that differ from the defaults, as a command line. */
void nb_options_str(const nb_options *o, char *buf, size_t len);

/* One variable of the kernel's interface. */
typedef struct nb_var {
	char *name;
	nb_role role;
	nb_prec type;
	int pack;   /* BMEM: which packed vector holds it; -1 otherwise */
	int comp;   /* BMEM: component within that vector */
	nb_red red; /* RMEM: its reduction (NB_SUM otherwise) */
	/* RMEM: the pair term for j is +1 (SYMMETRIC) or -1 (ANTISYMMETRIC)
	 * times the term for i; 0: neither (docs/language.md) */
	int sym;
} nb_var;

/* A BMEM pack: `width` values of `type` fetched by one vector load.  In
 * memory a pack is an array of elements of `vwidth` scalars (float or
 * double; 1, 2 or 4); value `comp` of an element sits in scalar `comp`, or
 * for dd in scalars 2*comp (hi) and 2*comp+1 (lo).  Unused lanes are 0. */
typedef struct nb_pack {
	nb_prec type;
	int width;  /* values held (float/double 1..4, dd 1..2) */
	int vwidth; /* scalars per element */
} nb_pack;

/* The interface of a compiled kernel.  Arguments are, in order:
 *   int ni, int nj, int ibase, int jbase, int accum,
 *   each LMEM (declaration order), each BMEM pack, each CONST, each RMEM.
 * A launch covers i in [ibase, ibase+ni) and j in [jbase, jbase+nj); with
 * accum = 0 results are stored, otherwise added to what the arrays hold.
 * dd values are two doubles (hi, lo) side by side. */
/* The OpenCL dense Newton entry's i-elements a work item (its blocks are
 * wg x this): the emitter's NB_DU and runtime/cl/newton.c's block.  4:
 * bench/newtonpeer's best in double on an H200 (docs/performance.md). */
#define NB_DENSE_U 4
/* Its work group where none is given (runtime/newton.c): float's row
 * would give 256 to a variant of one i-element (blocks of 1024), and at
 * N = 16384 on an H200 128 ran 0.165 ms against 0.270 (64 and 256: as
 * 256 or worse; double the same at 128 and 256 from 65536 on:
 * docs/performance.md, session 16). */
#define NB_DENSE_WG 128

typedef struct nb_iface {
	char *kernel;      /* the user's name for the kernel */
	char *entry;       /* its symbol: the OpenCL kernel function, or the
	                      C entry taking arrays as a table (nbk_K_entry);
	                      generated code prefixes every name it takes
	                      from the user (see compiler/emit.h) */
	char *target;      /* "opencl", "c", "amdil" */
	char *source;      /* the .nbl it came from */
	char *flags;       /* nbcc flags used */
	char *options;     /* build options the kernel asks of its compiler
	                      (OpenCL build options, or cc flags), from a
	                      fixed list the runtime checks */
	nb_prec precision; /* default precision used */
	int unroll_i, unroll_j, jsplit;
	int wg, tile;      /* OpenCL launch shape; tile 0: no local staging */
	/* ranges: 1 when the code has the entry of block-sparse runs, named
	 * entry "_ranges" (nb_options.ranges); indices: which of the indices
	 * i (1) and j (2) the kernel reads, which a run on sorted copies must
	 * map back to the caller's (from a file without the ranges line, 3:
	 * unknown, so taken as both) */
	int ranges, indices;
	int slices;        /* 1: the launch's second dimension may cut the j
	                      range into slices (OpenCL, sums only): slice s
	                      of S stores its sums at s * ni + (i - ibase) of
	                      each RMEM array, for the runtime to add up;
	                      2: the same where the argument nb_cnt is NULL,
	                      else the kernel adds them up itself (nb_part,
	                      nb_cnt after the RMEM arrays: emit_opencl.c) */
	int nvar;
	nb_var *var;
	int npack;
	nb_pack *pack;
	/* The entry of Newton's third law (nbk_K_pairs), where every RMEM
	 * is SYMMETRIC or ANTISYMMETRIC: runtime/newton.c (C) and
	 * runtime/cl/newton.c (OpenCL, only unrolled 1 x 1 and unsplit, with
	 * nbk_K_pairs_fold) say what it takes; NULL: none */
	char *pairs;
	double flops;      /* counted flops per interaction */
	double flops_conv; /* by the 38-flop convention where it applies, else 0 */
} nb_iface;

int nb_iface_count(const nb_iface *f, nb_role role);
/* Index into var[] of the named variable, -1 if none. */
int nb_iface_find(const nb_iface *f, const char *name);
void nb_iface_free(nb_iface *f);
/* The first line of every interface header (the text a file nbcc wrote
 * is known by), and the extension of nbcc's sources. */
#define NB_IFACE_MAGIC "nbcc-interface 1"
#define NB_SOURCE_EXT ".nbl"
/* Writes the interface as the header comment lines of generated code, each
 * line started by `prefix` (" * " for C and OpenCL, "; " for AMD IL). */
void nb_iface_print(const nb_iface *f, FILE *out, const char *prefix);
/* Reads an interface from the header of a generated file.  Returns NULL and
 * a message in err if the text carries none or it is malformed. */
nb_iface *nb_iface_parse(const char *text, size_t len, char *err, size_t errlen);
/* Whether the runtime takes a file as code nbcc wrote (its interface read
 * from the header) rather than a source to compile: by its name's
 * extension (a target's, nb_target_of_ext; NB_SOURCE_EXT is a source's),
 * else by NB_IFACE_MAGIC within the first 4 KiB of its text. */
int nb_is_generated(const char *name, const char *src, size_t len);
/* Whether s is a C identifier in ASCII (kernel and variable names). */
int nb_is_ident(const char *s);

/* The kernel ABI of AMD IL (docs/amdil.md; compiler/amdil/abi.c): the elements of
 * each role (LMEM: i, BMEM: j, RMEM: results) are records in one raw UAV.
 * Sets off[v], for each of the f->nvar variables, to its byte offset in
 * its role's record (-1 for the other roles) and returns the record's
 * size in bytes, a multiple of 16 (0 when the role has no variables). */
size_t nb_il_record(const nb_iface *f, nb_role role, long *off);

/* What a compilation produced. */
typedef struct nb_output {
	char *code;        /* generated text (NUL-terminated), NULL on failure */
	size_t len;
	nb_iface *iface;   /* NULL on failure */
	int errors, warnings;
} nb_output;

/* Compiles one source.  Diagnostics go to diag (may be NULL to discard).
 * emit selects what `code` holds: "code" (the target's output), "tokens",
 * "ast", "ir", "stats", "explain".  Returns 0 on success. */
int nb_compile(const char *path, const char *src, size_t len,
               const nb_options *o, const char *emit, FILE *diag,
               nb_output *out);
void nb_output_free(nb_output *out);

/* Decimal text and the numeric types, exactly (ddtext.c).  Only plain
 * decimals are read: [+-] digits [. digits] [(e|E) [+-] digits] with a
 * digit before the exponent (".5" and "5." too, as nbcc's literals); no
 * blanks, hex, nan or inf.  Why a text was refused: */
enum {
	NB_NUM_SYNTAX = -1,    /* not a plain decimal: "", "1.5x", "0x10" */
	NB_NUM_NONFINITE = -2, /* "nan", "inf", "infinity" (any case, signed) */
	NB_NUM_RANGE = -3      /* finite text beyond the type's range: "1e999" */
};
/* Reads s[0..n) as type t into v: v[0] the value (a float widened to
 * double), v[1] the low part of a dd, else 0.  float and double are
 * correctly rounded; dd is hi = RN(x), lo = RN(x - hi) with x - hi taken
 * exactly (QD's c_dd_read is an ulp of lo off in many cases).  Underflow
 * gives the nearest subnormal or zero.  Returns 0, or an NB_NUM_* code
 * with v zeroed. */
int nb_num_read(const char *s, size_t n, nb_prec t, double v[2]);
/* nb_num_read(s, n, NB_DD, v): the dd (v[0], v[1]) nearest the decimal. */
int nb_dd_read(const char *s, size_t n, double v[2]);
/* Writes the dd hi + lo (normalized first) rounded to the fewest
 * significant digits, 32 at least, that nb_dd_read reads back as the same
 * dd, in the style of printf's %.32g: no trailing zeros, exponent form
 * below 1e-4 and from 1e32 ("0.1", "-0", "9.5367431640625e-07"); "nan",
 * "inf" or "-inf" if it is not finite.  As snprintf: stores at most len
 * bytes, NUL included, and returns the length of the whole text (a dd
 * with a large hi and a tiny lo takes up to about 650 characters). */
int nb_dd_write(char *buf, size_t len, double hi, double lo);

/* Reads a whole file ("-" is standard input).  Returns NULL with a message
 * in err on failure. */
char *nb_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* The same, refusing a file of more than max bytes ("'F' is larger than
 * 16 MiB") before reading more than max + 1 of them. */
char *nb_read_file_max(const char *path, size_t max, size_t *len, char *err,
                       size_t errlen);
/* The largest source nbcc compiles (docs/language.md, "Limits"). */
#define NB_MAX_SOURCE ((size_t)16 << 20)
/* Output files (outfile.c, whose header gives the rules: a temporary made
 * exclusively and renamed over a new file or a regular file, keeping its
 * mode and owner, or the data written in place where a replacement could
 * not keep them (hard links, a read-only directory); FIFOs and devices
 * written straight; symbolic links never replaced; an input of the run
 * never written).  "-" is standard output.
 *   nb_out o;
 *   if (nb_out_open(&o, path, 0, err, n)) fail;
 *   fprintf(o.f, ...);
 *   if (nb_out_commit(&o, err, n)) fail;   (or nb_out_abort(&o) to drop it)
 * A failure leaves what the path held as it was, and no temporary. */
typedef struct nb_out {
	FILE *f;    /* write here */
	char *name; /* the path as given, for messages */
	char *path; /* what the temporary replaces; NULL: written straight */
	char *tmp;  /* the temporary, or NULL */
	int std;    /* f is stdout itself */
	int slot;   /* the temporary's in nb_tmp_add, or -1 */
	int fd;     /* written in place: the file, f a staging copy; or -1 */
} nb_out;
enum { NB_OUT_PRIVATE = 1 }; /* a new file's mode 0600 whatever the umask */
int nb_out_open(nb_out *o, const char *path, int flags, char *err,
                size_t errlen);
int nb_out_commit(nb_out *o, char *err, size_t errlen);
void nb_out_abort(nb_out *o);
/* The file open as fd is an input of this run, never to be written by
 * nb_out_* (nb_read_file notes every file it reads); only once
 * nb_in_guard was called, as a program's run calls it (apps/common/opt.c):
 * a library's long-lived user may write what it read long before. */
void nb_in_guard(void);
void nb_in_note(int fd);
/* The whole of data through nb_out_*.  Returns 0, or -1 with a message. */
int nb_write_file_mode(const char *path, const char *data, size_t len,
                       int flags, char *err, size_t errlen);
int nb_write_file(const char *path, const char *data, size_t len, char *err,
                  size_t errlen);

/* Temporaries removed should a fatal signal end the process (SIGHUP,
 * SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXCPU, SIGXFSZ, where their
 * action is the default one: a program's own handlers stay): tmpfiles.c.
 * nb_tmp_add keeps a copy of path (a file, or a directory emptied first)
 * and returns its slot, -1 if it cannot (the temporary is then only not
 * removed on a signal); nb_tmp_drop forgets it again. */
int nb_tmp_add(const char *path);
void nb_tmp_drop(int slot);
/* In a child of fork() that does not exec: the parent's temporaries are
 * not the child's to remove, whatever signal ends it; forgets them and
 * puts the default action back where tmpfiles.c had put its handler. */
void nb_tmp_child(void);

/* s with the bytes a terminal would act on escaped (\n, \x1b, \\; bytes
 * that are not UTF-8 as \xHH), for a file or device name in a message.
 * The result lives in one of 8 static buffers that later calls reuse (so
 * up to 8 may appear in one message; main thread only); very long names
 * are cut short, ending in "...". */
const char *nb_esc(const char *s);

/* Another program's output (a C compiler's messages, an OpenCL build
 * log) escaped as nb_esc does, but every line kept a line: newlines and
 * tabs stay.  Not cut short; malloc'd (NULL: out of memory). */
char *nb_esc_lines(const char *s);

/* For bindings in other languages (python/nbcc), which read no C header
 * and so can neither see its constants nor assume a struct's layout
 * (query.c).  NBCC_VERSION: */
const char *nb_version(void);
/* The name of value v of the enum called type, NULL where it has no such
 * value: "nb_prec" ("float", "double", "dd", as nb_prec_name), "nb_role"
 * ("LMEM", ...), "nb_red" ("sum", ...), whose values run up from 0, and
 * "nb_num" (NB_NUM_SYNTAX "syntax", NB_NUM_NONFINITE "nonfinite",
 * NB_NUM_RANGE "range"), whose values run down from -1, with no gap: a
 * binding counts them by asking until NULL. */
const char *nb_enum_name(const char *type, int v);
/* NB_SOURCE_EXT: ".nbl" */
const char *nb_source_ext(void);
/* NB_MAX_SOURCE, so a binding refuses a larger file before reading it */
size_t nb_max_source(void);
/* An nb_options on the heap, nb_options_init'ed (NULL when out of
 * memory), to fill through nb_options_parse; freed by nb_options_free. */
nb_options *nb_options_new(void);
void nb_options_free(nb_options *o);
/* nb_compile's text alone: the code it produced (malloc'd, NUL-terminated;
 * the caller frees it with free()) and its length in *outlen, or NULL when
 * the compile failed (diagnostics in diag, as nb_compile). */
char *nb_compile_text(const char *path, const char *src, size_t len,
                      const nb_options *o, const char *emit, FILE *diag,
                      size_t *outlen);
/* An interface's field by the key of its line in the header: "kernel",
 * "entry", "target", "source", "flags", "options" (their text, not
 * escaped) or "precision" (its name); NULL for a field not set or another
 * key. */
const char *nb_iface_field(const nb_iface *f, const char *key);
/* Variable i of the interface (var[i], from 0): its name, and in *role,
 * *type and *red (each may be NULL) its nb_role, nb_prec and nb_red; NULL
 * past the last. */
const char *nb_iface_var(const nb_iface *f, int i, int *role, int *type,
                         int *red);

#pragma GCC visibility pop

#endif

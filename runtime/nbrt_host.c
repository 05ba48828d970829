/* nbrt_host.c: the host back end (nbrt_host_backend).  Kernels from the C
 * back end are compiled by the system's C compiler into a shared object
 * (cached on disk), loaded with dlopen and called through their entry
 * (nbk_KERNEL_entry); OpenMP inside the kernel spreads the i range over the
 * cores. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <limits.h>
#include <link.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nbrt_impl.h"

/* Never -ffast-math: dd arithmetic needs every rounding as written;
 * -std=c11 (not gnu11) also keeps gcc from contracting a*b+c. */
/* -fno-math-errno and -fno-trapping-math change no value (nothing reads
 * errno or the FP flags) but let gcc vectorize sqrt and selects */
/* x86-64: under float's estimates (compiler/emit_c.c, c_build_options)
 * gcc would compute a vector sqrtf, and the one under 1/sqrtf, from
 * rsqrt and a Newton step, which loads the multiply pipes more than
 * vsqrtps loads the divider (0.8 of its speed on a Zen 4; one switch
 * covers both); the division keeps its estimate. */
#if defined __x86_64__
#define ARCHFLAGS " '-mrecip=!vec-sqrt'"
#else
#define ARCHFLAGS ""
#endif
#define CFLAGS "-std=c11 -O3 -march=native -fno-math-errno -fno-trapping-math" \
	ARCHFLAGS " -fopenmp -fPIC -shared"

/* The device (rt->priv). */
typedef struct Host {
	char *cc;          /* the C compiler command */
	char *extra;       /* $NBRT_HOST_CFLAGS: after CFLAGS, so they win */
	char *hostkey;     /* compiler version and CPU; NULL until needed */
	struct Argv *words; /* the words of cc, CFLAGS and extra */
} Host;

/* The C back end's entry, as emit_c.c writes it. */
typedef void (*entry_fn)(long ni, long nj, long ibase, long jbase,
                         int accum, void *const *arr, const double *cst);

/* Its entry of block-sparse runs (nbrt_rplan's arrays as longs). */
typedef void (*ranges_fn)(long ntask, const long *task, const long *roff,
                          const long *rng, const long *imap,
                          const long *jmap, int accum, void *const *arr,
                          const double *cst);

/* Its entry of Newton's third law (nbrt_nplan's tasks and counters). */
typedef void (*pairs_fn)(long n, long ntask, const long *task, long *done,
                         void *const *arr, void *const *jarr,
                         const double *cst);

/* A loaded kernel (k->priv). */
typedef struct Prog {
	void *dl;
	entry_fn entry;
	ranges_fn ranges; /* NULL: none */
	pairs_fn pairs;   /* NULL: none */
} Prog;

/* A command's words, for posix_spawnp. */
typedef struct Argv {
	char **v; /* NULL-terminated */
	size_t n, cap;
} Argv;

static int push(Argv *a, char *w)
{
	if (!w)
		return -1;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		char **v = realloc(a->v, cap * sizeof *v);
		if (!v) {
			free(w);
			return -1;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = w;
	a->v[a->n] = NULL;
	return 0;
}

static void argv_free(Argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (Argv){0};
}

/* Adds the words of s, split as sh splits them but with none of its
 * expansions or operators: $NBRT_CC and $NBRT_HOST_CFLAGS keep sh's
 * quoting ("ccache gcc", '-mrecip=!vec-sqrt', "-DX=a b"), and a $(...),
 * ` or ; in them is a byte of a word for cc, never a command (through
 * popen's sh they ran).  Returns 0, 1 where a quote is left open, -1 out
 * of memory. */
static int split(Argv *a, const char *s)
{
	char *w = malloc(strlen(s) + 1);
	if (!w)
		return -1;
	size_t n = 0;
	int in = 0, q = 0; /* in a word; in quote q */
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (q == '\'') {
			if (c == '\'')
				q = 0;
			else
				w[n++] = c;
		} else if (q == '"') {
			if (c == '"')
				q = 0;
			else if (c == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
				if (*++p != '\n')
					w[n++] = *p;
			} else
				w[n++] = c;
		} else if (c == ' ' || c == '\t' || c == '\n') {
			if (in) {
				w[n] = 0;
				if (push(a, strdup(w))) {
					free(w);
					return -1;
				}
				in = 0;
				n = 0;
			}
		} else {
			in = 1;
			if (c == '\'' || c == '"')
				q = c;
			else if (c == '\\' && p[1]) {
				if (*++p != '\n')
					w[n++] = *p;
			} else
				w[n++] = c;
		}
	}
	int r = q ? 1 : 0;
	if (!q && in) {
		w[n] = 0;
		r = push(a, strdup(w));
	}
	free(w);
	return r;
}

/* The words as one line for messages: each that sh would take apart
 * quoted, as shq would (what a user can paste to a shell), control
 * bytes left to nb_esc. */
static char *argv_text(const Argv *a)
{
	size_t len = 1;
	for (size_t i = 0; i < a->n; i++)
		len += 4 * strlen(a->v[i]) + 3;
	char *t = malloc(len), *o = t;
	if (!t)
		return NULL;
	for (size_t i = 0; i < a->n; i++) {
		const char *w = a->v[i];
		int plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyz"
		                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                            "0123456789_-+=/.,:@%") == strlen(w);
		if (i)
			*o++ = ' ';
		if (!plain)
			*o++ = '\'';
		for (; *w; w++)
			if (*w == '\'' && !plain) {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *w;
			}
		if (!plain)
			*o++ = '\'';
	}
	*o = 0;
	return t;
}

/* Runs argv with no shell; returns its standard output, and its standard
 * error too unless `quiet`, and its exit status in *status (-1: killed;
 * 127, with *err set, where it could not be started). */
static char *capture(char *const *argv, int quiet, int *status, int *err)
{
	extern char **environ;
	*status = -1;
	*err = 0;
	int fd[2];
	if (pipe2(fd, O_CLOEXEC))
		return NULL;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r = posix_spawn_file_actions_init(&fa);
	if (!r)
		r = posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	if (!r)
		r = quiet ? posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
		                                             O_WRONLY, 0) :
		    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	if (!r)
		r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (r) {
		close(fd[0]);
		*status = 127;
		*err = r;
		return NULL;
	}
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	char buf[4096];
	ssize_t n;
	while ((n = read(fd[0], buf, sizeof buf)) != 0)
		if (n > 0 && m)
			fwrite(buf, 1, (size_t)n, m);
		else if (n < 0 && errno != EINTR)
			break;
	close(fd[0]);
	if (m)
		fclose(m);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = -1;
			break;
		}
	if (st != -1 && WIFEXITED(st))
		*status = WEXITSTATUS(st);
	while (s && len && s[len - 1] == '\n')
		s[--len] = 0;
	return s;
}

/* The compiler's command line before its kernel's own options: $NBRT_CC
 * (`from`: else $CC), CFLAGS, $NBRT_HOST_CFLAGS, each as sh would split
 * it, checked when the device opens. */
static int host_words(nbrt *rt, Host *h, const char *from)
{
	if (!(h->words = calloc(1, sizeof *h->words)))
		return nbrt_fail(rt, "out of memory");
	int r = split(h->words, h->cc);
	if (!r && !h->words->n)
		return nbrt_fail(rt, "%s='%s' names no C compiler", from,
		                 nb_esc(h->cc));
	if (r > 0)
		return nbrt_fail(rt, "%s='%s': a quote is left open", from,
		                 nb_esc(h->cc));
	if (!r)
		r = split(h->words, CFLAGS);
	if (!r && (r = split(h->words, h->extra)) > 0)
		return nbrt_fail(rt, "NBRT_HOST_CFLAGS='%s': a quote is left open",
		                 nb_esc(h->extra));
	return r ? nbrt_fail(rt, "out of memory") : 0;
}

static int host_open(nbrt *rt, const char *spec)
{
	(void)spec; /* one host */
	const char *cc = getenv("NBRT_CC");
	if (!cc || !*cc)
		cc = getenv("CC");
	if (!cc || !*cc)
		cc = "cc";
	const char *extra = getenv("NBRT_HOST_CFLAGS");
	if (!extra)
		extra = "";
	Host *h = calloc(1, sizeof *h);
	rt->priv = h;
	if (h) {
		h->cc = strdup(cc);
		h->extra = strdup(extra);
	}
	rt->name = nbrt_aprintf("host C (%s -O3 -march=native%s%s, OpenMP)", cc,
	                        *extra ? " " : "", extra);
	if (!h || !h->cc || !h->extra || !rt->name)
		return nbrt_fail(rt, "out of memory");
	const char *ncc = getenv("NBRT_CC");
	return host_words(rt, h, ncc && *ncc ? "NBRT_CC" : "CC");
}

static void host_close(nbrt *rt)
{
	Host *h = rt->priv;
	if (h) {
		free(h->cc);
		free(h->extra);
		free(h->hostkey);
		if (h->words)
			argv_free(h->words);
		free(h->words);
		free(h);
	}
	rt->priv = NULL;
}

static int host_describe(const nbrt *rt, FILE *out)
{
	(void)rt;
	fputs("type host\n", out);
	return 0;
}

/* The first line of /proc/cpuinfo starting with key. */
static void cpuinfo(nbrt_key *key, const char *want)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0)
		if (strncmp(line, want, strlen(want)) == 0) {
			nbrt_key_add(key, line, (size_t)n);
			break;
		}
	free(line);
	fclose(f);
}

/* What else decides the machine code of a cached object: the compiler's
 * version, and the CPU that -march=native looked at (a cache directory
 * may be shared between machines). */
static int host_key(nbrt *rt)
{
	Host *h = rt->priv;
	nbrt_key k = {0};
	/* cc is a command line, like make's $(CC): its own words */
	Argv a = {0};
	int st, e, r = split(&a, h->cc);
	char *ver = !r && !push(&a, strdup("--version")) ?
	            capture(a.v, 1, &st, &e) : NULL;
	argv_free(&a);
	nbrt_key_add(&k, ver ? ver : "", ver ? strlen(ver) : 0);
	free(ver);
	cpuinfo(&k, "model name");
	cpuinfo(&k, "flags");
	if (!k.s)
		return nbrt_fail(rt, "out of memory");
	h->hostkey = k.s;
	return 0;
}

/* On the handle, never RTLD_DEFAULT; and since a handle answers for the
 * libraries the object needs too, the function found must be the
 * object's own: an entry line naming kill finds libc's. */
static int own_symbol(nbrt_kernel *k, void *dl, const char *sym, void **fn)
{
	dlerror();
	*fn = dlsym(dl, sym);
	struct link_map *own = NULL, *at = NULL;
	Dl_info di;
	if (!*fn || dlinfo(dl, RTLD_DI_LINKMAP, &own) != 0 ||
	    !dladdr1(*fn, &di, (void **)&at, RTLD_DL_LINKMAP) || at != own)
		return nbrt_fail(k->rt, "%s: the compiled kernel has no function "
		                 "'%s'%s", k->name, sym, *fn ? " of its own" : "");
	return 0;
}

static int open_so(nbrt_kernel *k, const char *so)
{
	Prog *p = k->priv;
	/* NODELETE: the kernel may have loaded libgomp, whose idle threads
	 * would run unmapped code if dlclose unloaded it */
	/* gcc links crtfastmath.o into an object built with -ffast-math or
	 * -funsafe-math-optimizations (a float kernel's estimates), -shared
	 * or not, and its constructor sets FTZ and DAZ in the loading
	 * thread: the caller's subnormals, and those of every thread it
	 * starts after (the kernels' OpenMP threads among them: a dd
	 * kernel's error terms), would flush to zero for the rest of the
	 * process.  The caller's floating-point environment is put back. */
	fenv_t env;
	int saved = fegetenv(&env) == 0;
	void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (saved)
		fesetenv(&env);
	if (!dl) {
		const char *e = dlerror();
		return nbrt_fail(k->rt, "%s: dlopen: %s", k->name, e ? e : "failed");
	}
	void *fn, *rfn = NULL, *pfn = NULL;
	char rsym[300];
	snprintf(rsym, sizeof rsym, "%s_ranges", k->f->entry);
	if (own_symbol(k, dl, k->f->entry, &fn) ||
	    (k->f->ranges && own_symbol(k, dl, rsym, &rfn)) ||
	    (k->f->pairs && own_symbol(k, dl, k->f->pairs, &pfn))) {
		dlclose(dl);
		return -1;
	}
	/* POSIX lets a data pointer from dlsym hold a function's address */
	memcpy(&p->entry, &fn, sizeof fn);
	if (rfn)
		memcpy(&p->ranges, &rfn, sizeof rfn);
	if (pfn)
		memcpy(&p->pairs, &pfn, sizeof pfn);
	p->dl = dl;
	return 0;
}

/* Copies the object at so into the cache at path (cache.c binds it to
 * its key and seals it; the loader ignores what follows the ELF image):
 * private from its creation, whole or not at all. */
static void seal(nbrt *rt, const char *so, const char *path,
                 const nbrt_key *key)
{
	char err[512];
	size_t len;
	char *d = nb_read_file(so, &len, err, sizeof err);
	if (d)
		nbrt_cache_put(rt, path, key, d, len);
	else
		nbrt_note(rt, "not cached: %s", err);
	free(d);
}

/* gcc and clang options that break dd arithmetic, refused for dd kernels
 * in the header and in $NBRT_CC / $CC (which may carry flags).
 * -ffp-contract=fast is fine: ddlib.h is written for any contraction. */
#define REASSOC "it reassociates sums, which turns dd's error terms into zero"
#define INF "it drops the handling of infinities, so an overflow gives NaN"
#define FTZ "it flushes subnormals, and dd's error terms need gradual underflow"
#define X87 "x87 arithmetic rounds twice, and dd's error terms need one rounding"
static const nbrt_badopt dd_bad[] = {
	{"-ffast-math", REASSOC},
	{"-Ofast", REASSOC},
	{"-funsafe-math-optimizations", REASSOC},
	{"-fassociative-math", REASSOC},
	{"-ffp-model=fast", REASSOC},
	{"-freciprocal-math", "x / y may become x * (1 / y), two "
	 "roundings where dd's error bounds assume one"},
	{"-fapprox-func", "it allows approximate square roots"},
	/* the selects that catch infinities fold away */
	{"-ffinite-math-only", INF},
	{"-fno-honor-infinities", INF},
	{"-fno-honor-nans", "it drops the handling of NaNs"},
	/* clang then folds fma(a, b, 0.0), the product nb__two_prod
	 * shields from contraction, to a * b */
	{"-fno-signed-zeros", "it lets the compiler fuse the product "
	 "whose rounding error dd counts separately"},
	/* -mdaz-ftz links crtfastmath.o, which sets FTZ/DAZ for the
	 * whole process */
	{"-mdaz-ftz", FTZ},
	{"-fdenormal-fp-math=preserve-sign", FTZ},
	{"-fdenormal-fp-math=positive-zero", FTZ},
	/* x87 rounds to 64 bits, then to 53 on a store */
	{"-mfpmath=387", X87},
	{"-mfpmath=sse+387", X87},
	{"-mfpmath=both", X87},
	{"-m387", X87},
	{"-fsingle-precision-constant", "it turns dd's double constants "
	 "into floats"},
	{NULL, NULL},
};
#undef REASSOC
#undef INF
#undef FTZ
#undef X87

/* Before the cache too: an object built with such flags may be there. */
static int dd_flags_ok(nbrt_kernel *k, const char *code, size_t len)
{
	const char *ncc = getenv("NBRT_CC");
	const Host *h = k->rt->priv;
	return nbrt_dd_options_ok(k, code, len, k->f->options,
	                          "its interface header", dd_bad) ||
	       nbrt_dd_options_ok(k, code, len, h->cc,
	                          ncc && *ncc ? "$NBRT_CC" : "$CC", dd_bad) ||
	       nbrt_dd_options_ok(k, code, len, h->extra, "$NBRT_HOST_CFLAGS",
	                          dd_bad) ?
	       -1 : 0;
}

/* Compiles code, written to src, into the shared object `so`. */
static int cc(nbrt_kernel *k, const char *code, size_t len,
              const char *src, const char *so)
{
	nbrt *rt = k->rt;
	const Host *h = rt->priv;
	char err[512];
	static const char *const allowed[] = {
		"-ffast-math", "-fno-math-errno", "-ffinite-math-only",
		/* float's estimates (compiler/emit_c.c, c_build_options) */
		"-funsafe-math-optimizations", "-fno-associative-math",
		"-fsigned-zeros", NULL,
	};
	if (nbrt_options_ok(k, allowed))
		return -1;
	/* the header's options are words of the allow-list (checked above) */
	Argv a = {0};
	int r = -1, st, e;
	char *cmd = NULL;
	for (size_t i = 0; i < h->words->n; i++)
		if (push(&a, strdup(h->words->v[i])))
			goto oom;
	if (split(&a, k->f->options ? k->f->options : "") ||
	    push(&a, strdup("-o")) || push(&a, strdup(so)) ||
	    push(&a, strdup(src)) || push(&a, strdup("-lm")) ||
	    !(cmd = argv_text(&a)))
		goto oom;
	if (nb_write_file(src, code, len, err, sizeof err)) {
		nbrt_fail(rt, "%s: %s", k->name, err);
		goto out;
	}
	nbrt_note(rt, "compiling %s: %s", k->name, nb_esc(cmd));
	char *log = capture(a.v, 0, &st, &e), *shown = NULL;
	if (e)
		nbrt_fail(rt, "cannot compile %s: cannot run '%s': %s", k->name,
		          nb_esc(a.v[0]), strerror(e));
	else if (st != 0 && log && *log && !(shown = nb_esc_lines(log)))
		nbrt_fail(rt, "out of memory");
	else if (st != 0)
		/* the compiler's output escaped: it echoes the kernel's lines
		 * and $NBRT_CC may be any program */
		nbrt_fail(rt, "cannot compile %s with '%s' (%s %d):\n%s", k->name,
		          nb_esc(h->cc), st < 0 ? "status" : "exit status", st,
		          shown ? shown : "(no output)");
	else
		r = 0;
	free(shown);
	free(log);
	remove(src);
	goto out;
oom:
	nbrt_fail(rt, "out of memory");
out:
	argv_free(&a);
	free(cmd);
	return r;
}

/* Builds in a private temporary directory, then copies the object into
 * the cache (rather than linking there: the linker makes its output with
 * the umask's mode, which may let others write it before a chmod), and
 * loads it. */
static int build(nbrt_kernel *k, const char *code, size_t len,
                 const char *cached, const nbrt_key *key, const char *hash)
{
	nbrt *rt = k->rt;
	const char *t = getenv("TMPDIR");
	int own = t && *t;
	char *tmpdir = nbrt_aprintf("%s/nbrt-XXXXXX", own ? t : "/tmp");
	char *so = NULL, *src = NULL;
	int r = -1, dslot = -1, sslot = -1, cslot = -1;
	if (!tmpdir || !mkdtemp(tmpdir)) {
		/* the directory named: a wrong $TMPDIR is the usual cause */
		nbrt_fail(rt, "%s: cannot make a temporary directory in '%s'%s: %s",
		          k->name, nb_esc(own ? t : "/tmp"),
		          own ? " ($TMPDIR)" : "", strerror(errno));
		goto out;
	}
	/* named by its hash, so dlopen never mistakes one for another
	 * it loaded before under the same name */
	so = nbrt_aprintf("%s/%s.so", tmpdir, hash);
	/* not named after the kernel: a 255-character name would make too
	 * long a file name */
	src = nbrt_aprintf("%s/kernel.c", tmpdir);
	/* removed should a signal end the process while cc runs */
	dslot = nb_tmp_add(tmpdir);
	if (so && src) {
		sslot = nb_tmp_add(so);
		cslot = nb_tmp_add(src);
	}
	int bad = !so || !src ? nbrt_fail(rt, "out of memory") :
	          cc(k, code, len, src, so);
	if (bad)
		goto out;
	/* loaded from where it was built: a damaged or swapped cache entry
	 * is found on the next run's read, never dlopened unread */
	if (cached)
		seal(rt, so, cached, key);
	r = open_so(k, so);
out:
	nb_tmp_drop(cslot);
	free(src);
	if (so)
		remove(so);
	nb_tmp_drop(sslot);
	free(so);
	if (tmpdir)
		rmdir(tmpdir);
	nb_tmp_drop(dslot);
	free(tmpdir);
	return r;
}

static int host_load(nbrt_kernel *k, const char *code, size_t len)
{
	nbrt *rt = k->rt;
	Host *h = rt->priv;
	if (!(k->priv = calloc(1, sizeof(Prog))))
		return nbrt_fail(rt, "out of memory");
	if (dd_flags_ok(k, code, len))
		return -1;
	if (!h->hostkey && host_key(rt))
		return -1;
	nbrt_key key = {0};
	int r = -1;
	if (nbrt_key_add(&key, NBCC_VERSION, strlen(NBCC_VERSION)) ||
	    nbrt_key_add(&key, h->hostkey, strlen(h->hostkey)) ||
	    nbrt_key_add(&key, h->cc, strlen(h->cc)) ||
	    nbrt_key_add(&key, CFLAGS, strlen(CFLAGS)) ||
	    /* none: the key of the build before $NBRT_HOST_CFLAGS existed */
	    (*h->extra && nbrt_key_add(&key, h->extra, strlen(h->extra))) ||
	    nbrt_key_add_code(&key, code, len)) {
		free(key.s);
		return nbrt_fail(rt, "out of memory");
	}
	char hash[33];
	nbrt_key_hash(&key, hash);
	char *cached = nbrt_cache_path(rt, &key, ".so");
	size_t n;
	char *entry = nbrt_cache_get(rt, cached, &key, &n);
	free(entry);
	if (entry && open_so(k, cached) == 0) {
		nbrt_note(rt, "cache hit %s (%s)", cached, k->name);
		k->cache_hit = 1;
		r = 0;
		goto out;
	} else if (entry) {
		nbrt_note(rt, "cached object unusable, rebuilding: %s",
		          nbrt_error(rt));
	}
	r = build(k, code, len, cached, &key, hash);
out:
	free(cached);
	free(key.s);
	return r;
}

typedef struct Args {
	void **arr;
	double *cst;
} Args;

static int launch(nbrt_kernel *k, size_t ib, size_t n, size_t jb, size_t m,
                  int accum, void *ctx)
{
	Args *a = ctx;
	const Prog *p = k->priv;
	double t = nbrt_now();
	p->entry((long)n, (long)m, (long)ib, (long)jb, accum, a->arr, a->cst);
	k->tkern += nbrt_now() - t;
	k->launches++;
	return 0;
}

/* A block-sparse run: every task in one call of the ranges entry. */
static int run_plan(nbrt_kernel *k, const nbrt_rplan *pl, Args *a)
{
	const Prog *p = k->priv;
	if (pl->ntask > (size_t)LONG_MAX / 3)
		return nbrt_fail(k->rt, "kernel %s: %zu tasks: too many",
		                 k->f->kernel, pl->ntask);
	double t = nbrt_now();
	/* size_t and long share their representation (LP64, C11 6.5p7) */
	p->ranges((long)pl->ntask, (const long *)pl->task,
	          (const long *)pl->offset, (const long *)pl->range,
	          (const long *)pl->imap, (const long *)pl->jmap, pl->accum,
	          a->arr, a->cst);
	k->tkern += nbrt_now() - t;
	k->launches++;
	return 0;
}

/* A run of Newton's third law: every phase in one call of the pairs
 * entry, on results it adds to from zero. */
static int run_pairs(nbrt_kernel *k, size_t n, const nbrt_nplan *np,
                     Args *a)
{
	const Prog *p = k->priv;
	if (!p->pairs)
		return nbrt_fail(k->rt, "kernel %s has no entry of Newton's third "
		                 "law", k->f->kernel);
	double t = nbrt_now();
	p->pairs((long)n, np->ntask, np->task, np->done, a->arr, np->jside,
	         a->cst);
	k->tkern += nbrt_now() - t;
	k->launches++;
	return 0;
}

/* Arrays go to the kernel as they are where the host type is the
 * kernel's, else through a converted copy; then the dense launches, the
 * plan of a block-sparse run, or of Newton's third law (np: the results
 * zeroed first). */
static int host_go(nbrt_kernel *k, size_t ni, size_t nj,
                   const nbrt_rplan *pl, const nbrt_nplan *np)
{
	const nb_iface *f = k->f;
	size_t lim = (size_t)LONG_MAX < SIZE_MAX / 16 ? (size_t)LONG_MAX :
	             SIZE_MAX / 16;
	if (ni > lim || nj > lim)
		return nbrt_fail(k->rt, "kernel %s: Ni = %zu, Nj = %zu: too large",
		                 f->kernel, ni, nj);
	size_t nv = (size_t)f->nvar + 1;
	void **arr = calloc(nv, sizeof *arr), **stage = calloc(nv, sizeof *arr);
	double *cst = calloc(2 * nv, sizeof *cst);
	int *of = calloc(nv, sizeof *of); /* var of each array */
	int na = 0, nc = 0, r = -1;
	if (!arr || !stage || !cst || !of) {
		nbrt_fail(k->rt, "out of memory");
		goto out;
	}
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		const nbrt_slot *b = &k->b[v];
		if (x->role == NB_CONST) {
			cst[2 * nc] = b->hi;
			cst[2 * nc + 1] = b->lo;
			nc++;
			continue;
		}
		size_t n = x->role == NB_BMEM ? nj : ni;
		of[na] = v;
		arr[na] = b->host;
		if (n && !nbrt_same_layout(b->t, x->type)) {
			stage[na] = malloc(n * nbrt_prec_size(x->type));
			if (!stage[na]) {
				nbrt_fail(k->rt, "kernel %s: out of memory for '%s'",
				          f->kernel, x->name);
				goto out;
			}
			if (x->role != NB_RMEM || (pl && pl->accum))
				nbrt_to_kernel(stage[na], x->type, (size_t)nb_prec_scalars(x->type),
				               0, b->host, b->t, n);
			arr[na] = stage[na];
		}
		if (np && x->role == NB_RMEM && n)
			memset(arr[na], 0, n * nbrt_prec_size(x->type));
		na++;
	}
	Args a = {arr, cst};
	/* wide enough that every core has several groups of unroll_i */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t fill = (size_t)(cpus > 0 ? cpus : 1) * 16 * nbrt_unit_items(f);
	if (np ? run_pairs(k, ni, np, &a) : pl ? run_plan(k, pl, &a) :
	    nbrt_each_launch(k, ni, nj, lim, fill, launch, &a))
		goto out;
	for (int i = 0; i < na; i++) {
		const nb_var *x = &f->var[of[i]];
		if (x->role == NB_RMEM && stage[i])
			nbrt_from_kernel(k->b[of[i]].host, k->b[of[i]].t, stage[i],
			                 x->type, (size_t)nb_prec_scalars(x->type), 0,
			                 ni);
	}
	r = 0;
out:
	for (size_t i = 0; stage && i < nv; i++)
		free(stage[i]);
	free(stage);
	free(arr);
	free(cst);
	free(of);
	return r;
}

static int host_run(nbrt_kernel *k, size_t ni, size_t nj)
{
	return host_go(k, ni, nj, NULL, NULL);
}

static int host_run_ranges(nbrt_kernel *k, size_t ni, size_t nj,
                           const nbrt_rplan *p)
{
	return host_go(k, ni, nj, p, NULL);
}

static int host_run_pairs(nbrt_kernel *k, size_t n, const nbrt_nplan *p)
{
	return host_go(k, n, n, NULL, p);
}

static void host_free(nbrt_kernel *k)
{
	Prog *p = k->priv;
	if (p && p->dl)
		dlclose(p->dl);
	free(p);
	k->priv = NULL;
}

const struct nbrt_backend nbrt_host_backend = {
	.target = "c",
	.spec = "host",
	.where = "the host",
	.host = 1,
	.lang = "C",
	.ext = ".c",
	.other = "cpu",
	.open = host_open,
	.close = host_close,
	.list = NULL,
	.describe = host_describe,
	.load = host_load,
	.run = host_run,
	.run_ranges = host_run_ranges,
	.rentry = 1,
	.run_pairs = host_run_pairs,
	.free = host_free,
	.sort = NULL,
};

/* program.c: OpenCL programs for the device: a kernel's interface checked
 * against what the device allows, its build options against the lists
 * below, the program built (its log in the message when it fails) or its
 * binary taken from the on-disk cache (cache.c), sealed by a digest. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl_impl.h"

static char *build_log(nbrt *rt, cl_program p)
{
	const Cl *c = rt->priv;
	size_t n = 0;
	if (clGetProgramBuildInfo(p, c->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) !=
	    CL_SUCCESS)
		return strdup("(no build log)");
	char *s = calloc(n + 1, 1);
	if (s && clGetProgramBuildInfo(p, c->dev, CL_PROGRAM_BUILD_LOG, n, s,
	                               NULL) != CL_SUCCESS)
		s[0] = 0;
	return nbrt_cl_trim(s);
}

/* Builds from source with one set of options; on a build failure leaves
 * the full message, log included, in rt->err. */
static cl_program build_src(nbrt *rt, const char *name, const char *code,
                            size_t len, const char *opts)
{
	const Cl *c = rt->priv;
	cl_int e;
	cl_program p = clCreateProgramWithSource(c->ctx, 1, &code, &len, &e);
	if (!p) {
		nbrt_cl_fail(rt, name, "clCreateProgramWithSource", e);
		return NULL;
	}
	nbrt_note(rt, "building %s for %s (%s)", name, rt->name, nb_esc(opts));
	e = clBuildProgram(p, 1, &c->dev, opts, NULL, NULL);
	if (e == CL_SUCCESS)
		return p;
	/* escaped: the log echoes the kernel's lines */
	char *log = build_log(rt, p), *shown = log ? nb_esc_lines(log) : NULL;
	if (log && !shown)
		nbrt_fail(rt, "out of memory");
	else
		nbrt_fail(rt, "cannot build %s for %s: clBuildProgram failed with "
		          "%s (%d), options '%s'; build log:\n%s", name, rt->name,
		          nbrt_cl_errname(e), (int)e, nb_esc(opts),
		          shown && *shown ? shown : "(empty)");
	free(shown);
	free(log);
	clReleaseProgram(p);
	return NULL;
}

/* The cached entry's data (cache.c binds it to its whole key and seals
 * it with a digest, since PoCL may crash on a damaged binary): the build
 * options used, a NUL, the binary. */
static cl_program load_cached(nbrt *rt, const char *name, const char *path,
                              const nbrt_key *key)
{
	const Cl *c = rt->priv;
	size_t len;
	char *data = nbrt_cache_get(rt, path, key, &len);
	cl_program p = NULL;
	if (!data)
		return NULL;
	size_t ol = strnlen(data, len);
	if (ol + 1 >= len) {
		nbrt_note(rt, "cache entry %s holds no binary: ignored", path);
		free(data);
		return NULL;
	}
	size_t bl = len - ol - 1;
	const unsigned char *bin = (const unsigned char *)data + ol + 1;
	cl_int st, e;
	p = clCreateProgramWithBinary(c->ctx, 1, &c->dev, &bl, &bin, &st, &e);
	if (p && clBuildProgram(p, 1, &c->dev, data, NULL, NULL) == CL_SUCCESS) {
		nbrt_note(rt, "cache hit %s (%s)", path, name);
	} else {
		nbrt_note(rt, "cached binary %s does not load: rebuilding", path);
		if (p)
			clReleaseProgram(p);
		p = NULL;
	}
	free(data);
	return p;
}

static void store(nbrt *rt, cl_program p, const char *path,
                  const nbrt_key *key, const char *opts)
{
	size_t bl = 0;
	if (!path || clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bl, &bl,
	                              NULL) != CL_SUCCESS || bl == 0)
		return;
	size_t ol = strlen(opts);
	char *data = malloc(ol + 1 + bl);
	if (!data)
		return;
	memcpy(data, opts, ol + 1);
	unsigned char *bin = (unsigned char *)data + ol + 1;
	if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) ==
	    CL_SUCCESS)
		nbrt_cache_put(rt, path, key, data, ol + 1 + bl);
	free(data);
}

cl_program nbrt_cl_program(nbrt *rt, const char *name, const char *code,
                           size_t len, const char *const *opts, int n,
                           int *hit)
{
	const Cl *c = rt->priv;
	nbrt_key key = {0};
	if (nbrt_key_add(&key, NBCC_VERSION, strlen(NBCC_VERSION)) ||
	    nbrt_key_add(&key, c->devkey, strlen(c->devkey)) ||
	    nbrt_key_add(&key, opts[0], strlen(opts[0])) ||
	    nbrt_key_add_code(&key, code, len)) {
		free(key.s);
		nbrt_fail(rt, "out of memory");
		return NULL;
	}
	char *path = nbrt_cache_path(rt, &key, ".clbin");
	cl_program p = path ? load_cached(rt, name, path, &key) : NULL;
	if (hit)
		*hit = p != NULL;
	for (int i = 0; !p && i < n; i++) {
		p = build_src(rt, name, code, len, opts[i]);
		if (p)
			store(rt, p, path, &key, opts[i]);
		else if (i + 1 < n)
			nbrt_note(rt, "%s", nbrt_error(rt));
	}
	free(path);
	free(key.s);
	return p;
}

/* Checks an interface before trusting it to set kernel arguments. */
static int check_iface(nbrt_kernel *k, const char *code, size_t len)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	const nb_iface *f = k->f;
	int dbl = memmem(code, len, "cl_khr_fp64", 11) != NULL;
	if (f->wg < 1 || f->tile < 0)
		return nbrt_fail(rt, "%s: interface has no work-group size",
		                 k->name);
	for (int p = 0; p < f->npack; p++) {
		int w = f->pack[p].vwidth;
		if (w != 1 && w != 2 && w != 4)
			return nbrt_fail(rt, "%s: pack %d has %d scalars (1, 2 or 4 "
			                 "expected)", k->name, p, w);
		dbl |= nb_prec_scalar_bytes(f->pack[p].type) == 8;
	}
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		dbl |= nb_prec_scalar_bytes(x->type) == 8;
		if (x->role != NB_BMEM)
			continue;
		const nb_pack *pk = &f->pack[x->pack];
		if (x->type != pk->type)
			return nbrt_fail(rt, "%s: BMEM '%s' is %s in a %s pack",
			                 k->name, x->name, nb_prec_name(x->type),
			                 nb_prec_name(pk->type));
		/* its scalars must lie inside the vector (upload_pack writes
		 * them there) */
		int n = nb_prec_scalars(x->type);
		if (n * x->comp + n - 1 >= pk->vwidth)
			return nbrt_fail(rt, "%s: BMEM '%s' is value %d of pack %d, "
			                 "whose vectors have %d scalars", k->name,
			                 x->name, x->comp, x->pack, pk->vwidth);
	}
	if (dbl && !c->fp64)
		return nbrt_fail(rt, "%s needs double precision, which %s does "
		                 "not have (no cl_khr_fp64)", k->name, rt->name);
	if ((size_t)f->wg > c->maxwg)
		return nbrt_fail(rt, "%s needs work groups of %d; %s allows at "
		                 "most %zu (compile with --wg=N)", k->name, f->wg,
		                 rt->name, c->maxwg);
	return 0;
}

static cl_program build(nbrt_kernel *k, const char *code, size_t len,
                        const char *mine, int *hit);

/* Builds, or takes the program from the cache.  NVIDIA first gets the
 * inline-PTX shuffles; a build that fails with them is retried without. */
static int program(nbrt_kernel *k, const char *code, size_t len)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	/* the kernel's own options (checked), then $NBRT_CL_OPTIONS for
	 * experiments and vendor flags */
	static const char *const allowed[] = {
		"-cl-denorms-are-zero", "-cl-fast-relaxed-math", "-cl-mad-enable",
		"-cl-no-signed-zeros", "-cl-finite-math-only",
		"-cl-unsafe-math-optimizations", NULL,
	};
	/* OpenCL 1.2 options that break dd arithmetic, refused for dd kernels
	 * from the header and from $NBRT_CL_OPTIONS alike.  Harmless, and let
	 * through: -cl-opt-disable, -cl-strict-aliasing, -cl-kernel-arg-info,
	 * -cl-std, -D, -I, -w, -Werror. */
	static const nbrt_badopt dd_bad[] = {
		{"-cl-fast-relaxed-math", "it reassociates sums, which turns "
		 "dd's error terms into zero"},
		{"-cl-unsafe-math-optimizations", "it reassociates sums, which "
		 "turns dd's error terms into zero"},
		/* the selects that catch infinities fold away */
		{"-cl-finite-math-only", "it drops the handling of infinities, "
		 "so an overflow gives NaN"},
		/* clang then folds fma(a, b, 0.0), the product nb__two_prod
		 * shields, to a * b, which NVIDIA fuses with the next add */
		{"-cl-no-signed-zeros", "it lets the compiler fuse the product "
		 "whose rounding error dd counts separately"},
		/* the spec's mad may truncate the product; contraction to a
		 * true fma is on anyway, so there is nothing to gain */
		{"-cl-mad-enable", "its mad may round a * b + c less "
		 "accurately than dd's error bounds assume"},
		/* on CPUs one flush mode serves float and double */
		{"-cl-denorms-are-zero", "it flushes subnormals, and dd's error "
		 "terms need gradual underflow"},
		{"-cl-single-precision-constant", "it turns dd's double "
		 "constants into floats"},
		{NULL, NULL},
	};
	if (nbrt_options_ok(k, allowed))
		return -1;
	const char *extra = getenv("NBRT_CL_OPTIONS");
	const char *own = k->f->options ? k->f->options : "";
	if (nbrt_dd_options_ok(k, code, len, own, "its interface header",
	                       dd_bad) ||
	    nbrt_dd_options_ok(k, code, len, extra, "$NBRT_CL_OPTIONS", dd_bad))
		return -1;
	/* a kernel of slices 2 may add its slices up itself (emit_opencl.c,
	 * NB_OWN): that second build waits for the first launch that wants
	 * it (nbrt_cl_own_entry), so variants that never launch it (ranges,
	 * Newton, the tuner's) and kernels never sliced build once */
	long os = -1;
	if (nbrt_env_int(rt, "NBRT_OWN_SLICES", 0, 1, &os) < 0)
		return -1;
	pg->ownmode = (int)os;
	if (k->f->slices == 2 && os != 0 && c->fp64) {
		if (!(pg->ocode = malloc(len + 1)))
			return nbrt_fail(rt, "out of memory");
		memcpy(pg->ocode, code, len);
		pg->olen = len;
	}
	/* the one-launch entry (emit_opencl.c's NB_DIRECT) stores doubles:
	 * without them a run keeps its results' conversion, and so does
	 * code from before that entry, which would take NB_DIRECT=1 and
	 * store its own types */
	long dm = -1;
	if (nbrt_env_int(rt, "NBRT_DIRECT", 0, 1, &dm) < 0)
		return -1;
	if (dm != 0 && c->fp64 && memmem(code, len, "NB_DIRECT", 9)) {
		if (!(pg->xcode = malloc(len + 1)))
			return nbrt_fail(rt, "out of memory");
		memcpy(pg->xcode, code, len);
		pg->xlen = len;
	}
	/* and the one reading its inputs from the arrays too (NB_DIN), unless
	 * NBRT_DIRECT=1; NBRT_DIN_MAX=P: at most P pairs a float run, in
	 * place of the defaults table's din_max (0: no limit) */
	long dmax = -1;
	if (nbrt_env_int(rt, "NBRT_DIN_MAX", 0, LONG_MAX, &dmax) < 0)
		return -1;
	pg->din_max = dmax;
	/* NBRT_DIN_SHADOW=0: its float inputs read as doubles, each cast
	 * in the kernel (the same values; to compare the two) */
	long sh = 1;
	if (nbrt_env_int(rt, "NBRT_DIN_SHADOW", 0, 1, &sh) < 0)
		return -1;
	int fin = 0; /* a float input: what the copies are for */
	for (int v = 0; v < k->f->nvar; v++)
		fin |= (k->f->var[v].role == NB_LMEM ||
		        k->f->var[v].role == NB_BMEM) &&
		       k->f->var[v].type == NB_FLOAT;
	pg->dinf = sh && fin && memmem(code, len, "NB_DIN_SH", 9);
	if (dm < 0 && c->fp64 && memmem(code, len, "NB_DIN", 6)) {
		if (!(pg->icode = malloc(len + 1)))
			return nbrt_fail(rt, "out of memory");
		memcpy(pg->icode, code, len);
		pg->ilen = len;
	}
	snprintf(pg->opt[0], sizeof pg->opt[0], "%s -DNB_NVIDIA_SHFL %s %s",
	         CL_STD, own, extra ? extra : "");
	snprintf(pg->opt[1], sizeof pg->opt[1], "%s %s %s", CL_STD, own,
	         extra ? extra : "");
	pg->prog = build(k, code, len, "", &k->cache_hit);
	return pg->prog ? 0 : -1;
}

/* The program with the options program() put in pg->opt, and `mine`
 * after them: NVIDIA's first try has the inline-PTX shuffles. */
static cl_program build(nbrt_kernel *k, const char *code, size_t len,
                        const char *mine, int *hit)
{
	const Cl *c = k->rt->priv;
	Prog *pg = k->priv;
	char o[2][600];
	const char *opts[2] = {o[0], o[1]};
	for (int i = 0; i < 2; i++)
		snprintf(o[i], sizeof o[i], "%s%s", pg->opt[i], mine);
	int first = c->nvidia ? 0 : 1;
	return nbrt_cl_program(k->rt, k->name, code, len, opts + first,
	                       2 - first, hit);
}

int nbrt_cl_own_args(const nb_iface *f)
{
	return f->nvar - nb_iface_count(f, NB_BMEM) + f->npack;
}

/* Whether the driver compiled KERN for groups of exactly WG work items
 * (the source's reqd_work_group_size).  NVIDIA's OpenCL reports 256 as
 * the largest group of every kernel, also of one it compiled for 1024
 * (PTX .reqntid, ptxas fitting its registers to it) and runs at 1024
 * (bench/clptx.c, docs/performance.md "Groups over 256 on NVIDIA"): the
 * size the program was compiled for is the one to hold it to there.
 * Other devices' reports are taken as they are. */
static int compiled_for(cl_kernel kern, cl_device_id dev, int wg)
{
	size_t req[3] = {0, 0, 0};
	return clGetKernelWorkGroupInfo(kern, dev,
	                                CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
	                                sizeof req, req, NULL) == CL_SUCCESS &&
	       req[0] == (size_t)wg && req[1] == 1 && req[2] == 1;
}

/* An entry of a program, checked against the argument count want (what
 * the interface says its code takes), the work group and the local memory
 * it needs against the device's. */
static cl_kernel entry(nbrt_kernel *k, cl_program prog, const char *name,
                       int want)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	const nb_iface *f = k->f;
	cl_int e;
	cl_uint nargs = 0;
	size_t kwg = 0;
	cl_ulong lm = 0;
	cl_kernel kern = clCreateKernel(prog, name, &e);
	if (!kern) {
		nbrt_cl_fail(rt, k->name, "clCreateKernel", e);
		return NULL;
	}
	if ((e = clGetKernelInfo(kern, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs,
	                         NULL)) != CL_SUCCESS)
		nbrt_cl_fail(rt, k->name, "clGetKernelInfo", e);
	else if ((int)nargs != want)
		nbrt_fail(rt, "%s: kernel %s takes %u arguments, its interface "
		          "says %d", k->name, name, nargs, want);
	else if ((e = clGetKernelWorkGroupInfo(kern, c->dev,
	                                       CL_KERNEL_WORK_GROUP_SIZE,
	                                       sizeof kwg, &kwg, NULL)) !=
	         CL_SUCCESS)
		nbrt_cl_fail(rt, k->name, "clGetKernelWorkGroupInfo", e);
	else if (kwg < (size_t)f->wg &&
	         !(c->nvidia && compiled_for(kern, c->dev, f->wg)))
		nbrt_fail(rt, "%s: work groups of %d are too large for %s with "
		          "this kernel (at most %zu; compile with --wg=N)", k->name,
		          f->wg, rt->name, kwg);
	/* j-tiles and j-split sums beyond the device's local memory: PoCL
	 * runs such a kernel anyway, over memory that is not there */
	else if ((e = clGetKernelWorkGroupInfo(kern, c->dev,
	                                       CL_KERNEL_LOCAL_MEM_SIZE,
	                                       sizeof lm, &lm, NULL)) !=
	         CL_SUCCESS)
		nbrt_cl_fail(rt, k->name, "clGetKernelWorkGroupInfo", e);
	else if (lm > c->localmem)
		nbrt_fail(rt, "%s: the kernel needs %llu bytes of local memory "
		          "(tiles of %d j-elements, work groups of %d); %s has "
		          "%llu (compile with a smaller --tile or --wg, or "
		          "--tile=0)", k->name, (unsigned long long)lm, f->tile,
		          f->wg, rt->name, (unsigned long long)c->localmem);
	else
		return kern;
	clReleaseKernel(kern);
	return NULL;
}

int nbrt_cl_test_fail(nbrt *rt, int what)
{
	static const char *const name[TF_N] = {
#define X(id, nm) #nm,
		CL_TEST_FAILS(X)
#undef X
	};
	const char *e = getenv("NBRT_TEST_FAIL");
	if (!e || !*e)
		return 0;
	char known[128] = "";
	for (int i = 0; i < TF_N; i++) {
		if (!strcmp(e, name[i]))
			return i == what;
		snprintf(known + strlen(known), sizeof known - strlen(known),
		         "%s%s", i ? ", " : "", name[i]);
	}
	return nbrt_fail(rt, "NBRT_TEST_FAIL='%s': a test's forced failure "
	                 "must be one of %s", nb_esc(e), known);
}

/* A variant of the dense entry, built from *code (then freed) with
 * `def` at its first use, NULL where it cannot be had.  Its build failing
 * costs only speed, as the plain entry's way gives the same bits: the
 * kernel goes on without it, and says so under NBRT_VERBOSE (`what` the
 * variant does, `instead` what does it then).  tf, tfname: the test's
 * forced failure of it. */
static cl_kernel variant(nbrt_kernel *k, char **code, size_t len,
                         cl_program *prog, cl_kernel *kern, const char *def,
                         int nargs, int tf, const char *tfname,
                         const char *what, const char *instead)
{
	if (*kern || !*code)
		return *kern;
	int hit = 0;
	if (nbrt_cl_test_fail(k->rt, tf))
		nbrt_fail(k->rt, "NBRT_TEST_FAIL=%s", tfname);
	else if ((*prog = build(k, *code, len, def, &hit)))
		*kern = entry(k, *prog, k->f->entry, nargs);
	if (!*kern)
		nbrt_note(k->rt, "%s: the build %s failed (%s); %s", k->name, what,
		          nbrt_error(k->rt), instead);
	free(*code);
	*code = NULL;
	return *kern;
}

/* The own sums' entry, built at its first launch. */
cl_kernel nbrt_cl_own_entry(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	return variant(k, &pg->ocode, pg->olen, &pg->oprog, &pg->okern,
	               " -DNB_OWN=1", CL_DENSE_LEAD + nbrt_cl_own_args(k->f) +
	               CL_OWN_TAIL, TF_OWN_BUILD, "own_build",
	               "adding its own slices up", "the runtime adds them");
}

/* The one-launch entry, built at the first run that can take it. */
cl_kernel nbrt_cl_direct_entry(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	return variant(k, &pg->xcode, pg->xlen, &pg->xprog, &pg->xkern,
	               " -DNB_DIRECT=1", CL_DENSE_LEAD + nbrt_cl_own_args(k->f),
	               TF_DIRECT_BUILD, "direct_build",
	               "storing its results into the arrays",
	               "they are converted after it");
}

/* The one-launch entry reading its inputs from the arrays too, built at
 * the first run that can take it (every input and result an array). */
cl_kernel nbrt_cl_din_entry(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	return variant(k, &pg->icode, pg->ilen, &pg->iprog, &pg->ikern,
	               pg->dinf ? " -DNB_DIRECT=1 -DNB_DIN=1 -DNB_DIN_SH=1"
	                        : " -DNB_DIRECT=1 -DNB_DIN=1",
	               CL_DENSE_LEAD + k->f->nvar + pg->dinf,
	               TF_DIN_BUILD, "din_build",
	               "reading its inputs from the arrays",
	               "they are converted before it");
}

int nbrt_cl_load(nbrt_kernel *k, const char *code, size_t len)
{
	nbrt *rt = k->rt;
	const nb_iface *f = k->f;
	Prog *pg = k->priv = calloc(1, sizeof *pg);
	if (!pg)
		return nbrt_fail(rt, "out of memory");
	if (nbrt_cl_test_fail(rt, -1) || check_iface(k, code, len) ||
	    program(k, code, len))
		return -1;
	char rname[300];
	snprintf(rname, sizeof rname, "%s_ranges", f->entry);
	int own = nbrt_cl_own_args(f);
	if (!(pg->kern = entry(k, pg->prog, f->entry, CL_DENSE_LEAD + own)) ||
	    (f->ranges && !(pg->rkern = entry(k, pg->prog, rname,
	                                      CL_RANGES_LEAD + own))))
		return -1;
	/* the fold takes its four plan buffers and two arrays an RMEM */
	int nres = nb_iface_count(f, NB_RMEM);
	snprintf(rname, sizeof rname, "%s_fold", f->pairs ? f->pairs : "");
	if (f->pairs && (!(pg->pkern = entry(k, pg->prog, f->pairs,
	                                     CL_DENSE_LEAD + own)) ||
	                 !(pg->fkern = entry(k, pg->prog, rname, 4 + 2 * nres))))
		return -1;
	pg->nmem = f->nvar - nb_iface_count(f, NB_BMEM) -
	           nb_iface_count(f, NB_CONST) + f->npack;
	pg->mem = calloc((size_t)pg->nmem + 1, sizeof *pg->mem);
	pg->cap = calloc((size_t)pg->nmem + 1, sizeof *pg->cap);
	pg->held = calloc((size_t)pg->nmem + 1, sizeof *pg->held);
	pg->pin = calloc((size_t)pg->nmem + 1, sizeof *pg->pin);
	pg->pinp = calloc((size_t)pg->nmem + 1, sizeof *pg->pinp);
	pg->pincap = calloc((size_t)pg->nmem + 1, sizeof *pg->pincap);
	pg->part = calloc((size_t)pg->nmem + 1, sizeof *pg->part);
	pg->partcap = calloc((size_t)pg->nmem + 1, sizeof *pg->partcap);
	if (!pg->mem || !pg->cap || !pg->held || !pg->pin || !pg->pinp || !pg->pincap ||
	    !pg->part || !pg->partcap)
		return nbrt_fail(rt, "out of memory");
	return 0;
}

int nbrt_cl_dense_entries(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	char name[300];
	int nres = nb_iface_count(f, NB_RMEM);
	if (!f->pairs)
		return nbrt_fail(k->rt, "%s has no entry of Newton's third law",
		                 k->name);
	snprintf(name, sizeof name, "%s_dense", f->pairs);
	if (!pg->dkern &&
	    !(pg->dkern = entry(k, pg->prog, name,
	                        CL_DENSE_LEAD + nbrt_cl_own_args(f))))
		return -1;
	/* the dense fold's arguments: four ints and two arrays an RMEM */
	snprintf(name, sizeof name, "%s_dfold", f->pairs);
	if (!pg->dfkern &&
	    !(pg->dfkern = entry(k, pg->prog, name, 4 + 2 * nres)))
		return -1;
	return 0;
}

void nbrt_cl_free(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	if (!pg)
		return;
	const Cl *c = k->rt->priv;
	/* where a queued run's host time went, for issue 30's small N */
	if (pg->nrun)
		nbrt_note(k->rt, "%s: %ld runs: %ld launches of the kernel, %ld "
		          "of conversions between it and the arrays", k->name,
		          pg->nrun, pg->nkern, pg->nconv);
	if (pg->nqrun)
		nbrt_note(k->rt, "%s: %ld queued runs (%ld untimed), host us a "
		          "run: inputs %.3g, launches %.3g, results %.3g, queue "
		          "%.3g", k->name, pg->nqrun, pg->nqplain, 1e6 * pg->qhost[0] / (double)pg->nqrun,
		          1e6 * pg->qhost[1] / (double)pg->nqrun,
		          1e6 * pg->qhost[2] / (double)pg->nqrun,
		          1e6 * pg->qhost[3] / (double)pg->nqrun);
	for (int m = 0; pg->pinp && m < pg->nmem; m++)
		if (pg->pinp[m])
			clEnqueueUnmapMemObject(c->q, pg->pin[m], pg->pinp[m], 0, NULL,
			                        NULL);
	clFinish(c->q);
	for (int m = 0; pg->pin && m < pg->nmem; m++)
		if (pg->pin[m])
			clReleaseMemObject(pg->pin[m]);
	for (int m = 0; pg->mem && m < pg->nmem; m++)
		if (pg->mem[m])
			clReleaseMemObject(pg->mem[m]);
	for (int m = 0; pg->part && m < pg->nmem; m++)
		if (pg->part[m])
			clReleaseMemObject(pg->part[m]);
	if (pg->spart)
		clReleaseMemObject(pg->spart);
	if (pg->scnt)
		clReleaseMemObject(pg->scnt);
	for (int m = 0; m < pg->nhost; m++)
		if (pg->host[m])
			clReleaseMemObject(pg->host[m]);
	for (int m = 0; m < pg->nown; m++)
		if (pg->own[m])
			clReleaseMemObject(pg->own[m]);
	free(pg->own);
	free(pg->owncap);
	for (int i = 0; i < pg->npend; i++)
		clReleaseEvent(pg->pend[i]);
	free(pg->host);
	free(pg->hostp);
	free(pg->hostcap);
	free(pg->part);
	free(pg->partcap);
	free(pg->mem);
	free(pg->cap);
	free(pg->held);
	free(pg->pin);
	free(pg->pinp);
	free(pg->pincap);
	for (int m = 0; m < 5; m++) {
		if (pg->rmem[m])
			clReleaseMemObject(pg->rmem[m]);
		if (pg->rpin[m])
			clReleaseMemObject(pg->rpin[m]);
	}
	if (pg->rkern)
		clReleaseKernel(pg->rkern);
	if (pg->pkern)
		clReleaseKernel(pg->pkern);
	if (pg->fkern)
		clReleaseKernel(pg->fkern);
	if (pg->dkern)
		clReleaseKernel(pg->dkern);
	if (pg->dfkern)
		clReleaseKernel(pg->dfkern);
	if (pg->kern)
		clReleaseKernel(pg->kern);
	if (pg->okern)
		clReleaseKernel(pg->okern);
	if (pg->xkern)
		clReleaseKernel(pg->xkern);
	if (pg->xprog)
		clReleaseProgram(pg->xprog);
	free(pg->xcode);
	if (pg->ikern)
		clReleaseKernel(pg->ikern);
	if (pg->iprog)
		clReleaseProgram(pg->iprog);
	free(pg->icode);
	if (pg->prog)
		clReleaseProgram(pg->prog);
	if (pg->oprog)
		clReleaseProgram(pg->oprog);
	free(pg->ocode);
	free(pg);
	k->priv = NULL;
}

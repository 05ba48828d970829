/* nbrt_cl.c: the OpenCL back end (nbrt_cl_backend), the one file that sees
 * OpenCL's headers.  Only OpenCL 1.2 calls, so the same code runs
 * on PoCL and on NVIDIA's OpenCL 3.0.  Programs are built once per device
 * and their binaries cached on disk; a run uploads (converting and packing
 * BMEM values into vectors), launches in chunks that keep every index in
 * an int, and reads the results back, timed by profiling events. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include "nbrt_impl.h"

#define CL_STD "-cl-std=CL1.2"

/* The device (rt->priv); its limits that others read are in rt. */
typedef struct Cl {
	cl_platform_id plat;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	char *devkey;      /* device, platform and driver versions */
	int nvidia;
	int fp64;
	size_t maxwg;
	cl_ulong localmem; /* local memory per work group */
} Cl;

/* A loaded kernel (k->priv). */
typedef struct Prog {
	cl_program prog;
	cl_kernel kern;
	int nmem;          /* LMEM vars, BMEM packs, RMEM vars */
	cl_mem *mem;
	size_t *cap;       /* bytes allocated for each mem */
} Prog;

static const char *clname(cl_int e)
{
	switch (e) {
#define E(x) case x: return #x;
	E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
	E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
	E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
	E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP)
	E(CL_IMAGE_FORMAT_MISMATCH) E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
	E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
	E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
	E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
	E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE)
	E(CL_LINK_PROGRAM_FAILURE) E(CL_DEVICE_PARTITION_FAILED)
	E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
	E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE)
	E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES)
	E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
	E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
	E(CL_INVALID_IMAGE_SIZE) E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY)
	E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
	E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME)
	E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL)
	E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
	E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
	E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
	E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
	E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
	E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL)
	E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
	E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
	E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
	case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
	}
	return "unknown OpenCL error";
}

/* "CALL failed with NAME (CODE) on DEVICE", after what we were doing. */
static int clfail_on(nbrt *rt, const char *what, const char *call, cl_int e,
                     const char *dev)
{
	return nbrt_fail(rt, "%s%s%s failed with %s (%d) on %s", what ? what : "",
	                 what ? ": " : "", call, clname(e), (int)e, dev);
}

static int clfail(nbrt *rt, const char *what, const char *call, cl_int e)
{
	return clfail_on(rt, what, call, e,
	                 rt->name ? rt->name : "the OpenCL device");
}

/* --- devices ----------------------------------------------------------- */

typedef struct Dev {
	cl_platform_id p;
	cl_device_id d;
	int pi, di;
	cl_device_type type;
	char *name;  /* "device (platform)" */
} Dev;

static char *trim(char *s)
{
	if (!s)
		return NULL;
	char *b = s;
	while (*b == ' ' || *b == '\t')
		b++;
	size_t n = strlen(b);
	while (n && (b[n - 1] == ' ' || b[n - 1] == '\n'))
		n--;
	memmove(s, b, n);
	s[n] = 0;
	return s;
}

static char *plat_str(cl_platform_id p, cl_platform_info w)
{
	size_t n = 0;
	if (clGetPlatformInfo(p, w, 0, NULL, &n) != CL_SUCCESS)
		return strdup("?");
	char *s = calloc(n + 1, 1);
	if (s && clGetPlatformInfo(p, w, n, s, NULL) != CL_SUCCESS)
		s[0] = 0;
	return trim(s);
}

static char *dev_str(cl_device_id d, cl_device_info w)
{
	size_t n = 0;
	if (clGetDeviceInfo(d, w, 0, NULL, &n) != CL_SUCCESS)
		return strdup("?");
	char *s = calloc(n + 1, 1);
	if (s && clGetDeviceInfo(d, w, n, s, NULL) != CL_SUCCESS)
		s[0] = 0;
	return trim(s);
}

static void free_devs(Dev *d, int n)
{
	for (int i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

/* Every device of every platform.  No platform at all (no ICD) is not an
 * error: the list is just empty. */
static int devices(nbrt *rt, Dev **out, int *nout)
{
	*out = NULL;
	*nout = 0;
	cl_uint np = 0;
	cl_int e = clGetPlatformIDs(0, NULL, &np);
	if (e == -1001 || (e == CL_SUCCESS && np == 0))
		return 0;
	if (e != CL_SUCCESS)
		return clfail(rt, "listing OpenCL platforms", "clGetPlatformIDs", e);
	cl_platform_id *ps = calloc(np, sizeof *ps);
	Dev *d = NULL;
	int n = 0, r = -1;
	if (!ps) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}
	if ((e = clGetPlatformIDs(np, ps, NULL)) != CL_SUCCESS) {
		clfail(rt, "listing OpenCL platforms", "clGetPlatformIDs", e);
		goto out;
	}
	for (cl_uint p = 0; p < np; p++) {
		cl_uint nd = 0;
		/* a platform without devices, or a broken one, adds none */
		e = clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
		if (e != CL_SUCCESS && e != CL_DEVICE_NOT_FOUND)
			nbrt_note(rt, "platform %u skipped: clGetDeviceIDs failed "
			          "with %s (%d)", p, clname(e), (int)e);
		if (e != CL_SUCCESS || nd == 0)
			continue;
		cl_device_id *ds = calloc(nd, sizeof *ds);
		Dev *nd2 = realloc(d, sizeof *d * (size_t)(n + (int)nd));
		if (!ds || !nd2) {
			free(ds);
			if (nd2)
				d = nd2;
			nbrt_fail(rt, "out of memory");
			goto out;
		}
		d = nd2;
		if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, nd, ds, NULL) !=
		    CL_SUCCESS) {
			free(ds);
			continue;
		}
		char *pn = plat_str(ps[p], CL_PLATFORM_NAME);
		for (cl_uint i = 0; i < nd; i++) {
			Dev *x = &d[n++];
			x->p = ps[p];
			x->d = ds[i];
			x->pi = (int)p;
			x->di = (int)i;
			char *dn = dev_str(ds[i], CL_DEVICE_NAME);
			x->name = nbrt_aprintf("%s (%s)", dn ? dn : "?", pn ? pn : "?");
			free(dn);
			x->type = 0;
			e = clGetDeviceInfo(ds[i], CL_DEVICE_TYPE, sizeof x->type,
			                    &x->type, NULL);
			if (e != CL_SUCCESS) {
				clfail_on(rt, "listing OpenCL devices", "clGetDeviceInfo",
				          e, nb_esc(x->name ? x->name : "?"));
				free(pn);
				free(ds);
				goto out;
			}
		}
		free(pn);
		free(ds);
	}
	r = 0;
out:
	free(ps);
	if (r) {
		free_devs(d, n);
		return -1;
	}
	*out = d;
	*nout = n;
	return 0;
}

/* "P:D name; P:D name" for messages that say what there is. */
static char *dev_list(const Dev *d, int n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	if (!m)
		return NULL;
	for (int i = 0; i < n; i++)
		fprintf(m, "%s%d:%d %s", i ? "; " : "", d[i].pi, d[i].di,
		        d[i].name ? d[i].name : "?");
	if (!n)
		fputs("none", m);
	fclose(m);
	return s;
}

static int first_of(const Dev *d, int n, cl_device_type t)
{
	for (int i = 0; i < n; i++)
		if (d[i].type & t)
			return i;
	return -1;
}

/* Parses "P:D"; returns 0 if spec is of that form. */
static int pd(const char *spec, int *p, int *dv)
{
	char *e;
	long a = strtol(spec, &e, 10);
	if (e == spec || *e != ':' || spec[0] == '-')
		return -1;
	const char *s2 = e + 1;
	long b = strtol(s2, &e, 10);
	if (e == s2 || *e || *s2 == '-' || a > INT_MAX || b > INT_MAX)
		return -1;
	*p = (int)a;
	*dv = (int)b;
	return 0;
}

static int pick(nbrt *rt, const char *spec, const Dev *d, int n)
{
	int i = -1, p, dv;
	if (!spec || strcasecmp(spec, "opencl") == 0) {
		i = first_of(d, n, CL_DEVICE_TYPE_GPU);
		if (i < 0)
			i = first_of(d, n, CL_DEVICE_TYPE_CPU);
		if (i < 0)
			i = 0;
		return i;
	}
	if (strcasecmp(spec, "gpu") == 0)
		i = first_of(d, n, CL_DEVICE_TYPE_GPU);
	else if (strcasecmp(spec, "cpu") == 0)
		i = first_of(d, n, CL_DEVICE_TYPE_CPU);
	else if (pd(spec, &p, &dv) == 0) {
		for (int k = 0; k < n && i < 0; k++)
			if (d[k].pi == p && d[k].di == dv)
				i = k;
	} else {
		for (int k = 0; k < n && i < 0; k++)
			if (d[k].name && strcasestr(d[k].name, spec))
				i = k;
	}
	if (i < 0) {
		char *l = dev_list(d, n);
		nbrt_fail(rt, "no OpenCL device matches '%s' (devices: %s; 'host' "
		          "runs kernels on this CPU through C)", spec, l ? l : "?");
		free(l);
	}
	return i;
}

static int query(nbrt *rt)
{
	Cl *c = rt->priv;
	cl_int e;
	cl_ulong maxalloc = 0, globalmem = 0;
	cl_uint units = 0;
	char *ext = dev_str(c->dev, CL_DEVICE_EXTENSIONS);
	cl_device_fp_config fc = 0;
	c->fp64 = (ext && strstr(ext, "cl_khr_fp64")) ||
	          (clGetDeviceInfo(c->dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fc,
	                           &fc, NULL) == CL_SUCCESS && fc);
	free(ext);
	if ((e = clGetDeviceInfo(c->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
	                         sizeof maxalloc, &maxalloc, NULL)) ||
	    (e = clGetDeviceInfo(c->dev, CL_DEVICE_GLOBAL_MEM_SIZE,
	                         sizeof globalmem, &globalmem, NULL)) ||
	    (e = clGetDeviceInfo(c->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
	                         sizeof c->maxwg, &c->maxwg, NULL)) ||
	    (e = clGetDeviceInfo(c->dev, CL_DEVICE_MAX_COMPUTE_UNITS,
	                         sizeof units, &units, NULL)) ||
	    (e = clGetDeviceInfo(c->dev, CL_DEVICE_LOCAL_MEM_SIZE,
	                         sizeof c->localmem, &c->localmem, NULL)))
		return clfail(rt, "opening the device", "clGetDeviceInfo", e);
	rt->maxalloc = maxalloc;
	rt->globalmem = globalmem;
	rt->units = units;
	cl_device_type type = 0;
	if ((e = clGetDeviceInfo(c->dev, CL_DEVICE_TYPE, sizeof type, &type,
	                         NULL)))
		return clfail(rt, "opening the device", "clGetDeviceInfo", e);
	rt->gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
	/* what decides the code a build makes: part of every cache key */
	char *pn = plat_str(c->plat, CL_PLATFORM_NAME);
	char *pv = plat_str(c->plat, CL_PLATFORM_VERSION);
	char *dv = dev_str(c->dev, CL_DEVICE_VERSION);
	char *drv = dev_str(c->dev, CL_DRIVER_VERSION);
	c->nvidia = pn && strcasestr(pn, "NVIDIA") != NULL;
	c->devkey = nbrt_aprintf("%s\n%s\n%s\n%s\n%s", rt->name, pn, pv, dv, drv);
	free(pn);
	free(pv);
	free(dv);
	free(drv);
	return c->devkey ? 0 : nbrt_fail(rt, "out of memory");
}

static int cl_open(nbrt *rt, const char *spec)
{
	Dev *d;
	int n, r = -1;
	cl_int e;
	if (devices(rt, &d, &n))
		return -1;
	if (n == 0) {
		if (!spec)
			return 1;
		return nbrt_fail(rt, "no OpenCL device for '%s': no OpenCL platform "
		                 "is installed ('host' runs kernels on this CPU "
		                 "through C)", spec);
	}
	Cl *c = NULL;
	int i = pick(rt, spec, d, n);
	if (i < 0)
		goto out;
	/* Unasked, a CPU is served by the host back end: its C kernels run
	 * 2 to 6 times faster than PoCL's (docs/performance.md, "CPU");
	 * --device cpu still picks OpenCL's. */
	if (!spec && (d[i].type & CL_DEVICE_TYPE_CPU)) {
		free_devs(d, n);
		return 1;
	}
	if (!(c = rt->priv = calloc(1, sizeof *c))) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}
	c->plat = d[i].p;
	c->dev = d[i].d;
	if (!(rt->name = strdup(d[i].name ? d[i].name : "?"))) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}
	cl_context_properties props[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)c->plat, 0
	};
	c->ctx = clCreateContext(props, 1, &c->dev, NULL, NULL, &e);
	if (!c->ctx) {
		clfail(rt, "opening the device", "clCreateContext", e);
		goto out;
	}
	/* the 1.2 call: NVIDIA's 3.0 still has it, PoCL too */
	c->q = clCreateCommandQueue(c->ctx, c->dev, CL_QUEUE_PROFILING_ENABLE,
	                            &e);
	if (!c->q) {
		clfail(rt, "opening the device", "clCreateCommandQueue", e);
		goto out;
	}
	r = query(rt);
out:
	free_devs(d, n);
	return r;
}

static void cl_close(nbrt *rt)
{
	Cl *c = rt->priv;
	if (!c)
		return;
	if (c->q)
		clReleaseCommandQueue(c->q);
	if (c->ctx)
		clReleaseContext(c->ctx);
	free(c->devkey);
	free(c);
	rt->priv = NULL;
}

static int cl_list(FILE *out)
{
	nbrt rt;
	memset(&rt, 0, sizeof rt);
	Dev *d;
	int n;
	if (devices(&rt, &d, &n)) {
		fprintf(out, "%s\n", nbrt_error(&rt));
		free(rt.err);
		return -1;
	}
	for (int i = 0; i < n; i++)
		fprintf(out, "%d:%d  %s  %s\n", d[i].pi, d[i].di,
		        d[i].type & CL_DEVICE_TYPE_GPU ? "gpu" :
		        d[i].type & CL_DEVICE_TYPE_CPU ? "cpu" : "other",
		        nb_esc(d[i].name));
	free_devs(d, n);
	return n;
}

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; p && (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return 1;
	return 0;
}

/* What nbrt_describe prints after the device's name: a listing, so a
 * value the driver does not give is printed as 0 rather than failing. */
static int cl_describe(const nbrt *rt, FILE *out)
{
	const Cl *c = rt->priv;
	cl_device_type type = 0;
	cl_ulong lmem = 0, gmem = 0, alloc = 0;
	cl_device_local_mem_type lt = 0;
	size_t wg = 0, wi[3] = {0, 0, 0};
	cl_uint cu = 0, dims = 0;
	clGetDeviceInfo(c->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem,
	                NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem,
	                NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc,
	                &alloc, NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg,
	                NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims,
	                &dims, NULL);
	if (dims >= 1 && dims <= 3)
		clGetDeviceInfo(c->dev, CL_DEVICE_MAX_WORK_ITEM_SIZES,
		                sizeof wi[0] * dims, wi, NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu,
	                NULL);
	char *ext = dev_str(c->dev, CL_DEVICE_EXTENSIONS);
	char *ver = dev_str(c->dev, CL_DEVICE_VERSION);
	char *drv = dev_str(c->dev, CL_DRIVER_VERSION);
	fprintf(out, "type %s\n", type & CL_DEVICE_TYPE_GPU ? "gpu" :
	        type & CL_DEVICE_TYPE_CPU ? "cpu" : "other");
	nbrt_put_str(out, "version", ver);
	nbrt_put_str(out, "driver_version", drv);
	fprintf(out, "compute_units %u\n", (unsigned)cu);
	fprintf(out, "global_mem_size %llu\n", (unsigned long long)gmem);
	fprintf(out, "max_mem_alloc_size %llu\n", (unsigned long long)alloc);
	fprintf(out, "local_mem_size %llu\n", (unsigned long long)lmem);
	fprintf(out, "local_mem_type %s\n", lt == CL_LOCAL ? "local" :
	        lt == CL_GLOBAL ? "global" : "none");
	fprintf(out, "max_work_group_size %zu\n", wg);
	fprintf(out, "max_work_item_sizes %zu %zu %zu\n", wi[0], wi[1], wi[2]);
	fprintf(out, "fp64 %s\n", c->fp64 ? "yes" : "no");
	fprintf(out, "subgroups %s\n", has_word(ext, "cl_khr_subgroups") ||
	        has_word(ext, "cl_intel_subgroups") ? "yes" : "no");
	fprintf(out, "subgroup_shuffle %s\n",
	        has_word(ext, "cl_khr_subgroup_shuffle") ? "yes" : "no");
	nbrt_put_str(out, "extensions", ext);
	free(ext);
	free(ver);
	free(drv);
	return 0;
}

/* --- building ---------------------------------------------------------- */

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
	return trim(s);
}

/* Builds from source with one set of options; on a build failure leaves
 * the full message, log included, in rt->err. */
static cl_program build_src(nbrt_kernel *k, const char *code, size_t len,
                            const char *opts)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	cl_int e;
	cl_program p = clCreateProgramWithSource(c->ctx, 1, &code, &len, &e);
	if (!p) {
		clfail(rt, k->name, "clCreateProgramWithSource", e);
		return NULL;
	}
	nbrt_note(rt, "building %s for %s (%s)", k->name, rt->name, opts);
	e = clBuildProgram(p, 1, &c->dev, opts, NULL, NULL);
	if (e == CL_SUCCESS)
		return p;
	char *log = build_log(rt, p);
	nbrt_fail(rt, "cannot build %s for %s: clBuildProgram failed with %s "
	          "(%d), options '%s'; build log:\n%s", k->name, rt->name,
	          clname(e), (int)e, opts, log && *log ? log : "(empty)");
	free(log);
	clReleaseProgram(p);
	return NULL;
}

/* The cached entry: a header line with the lengths of the key, the build
 * options used and the binary, and the digest of those bytes, then the
 * bytes.  The whole key is kept so that a hash collision is caught; the
 * digest catches a damaged binary, on which PoCL may crash. */
#define CL_MAGIC "nbrt-clbin 2"

static int digest_is(const char *data, size_t len, const char *want)
{
	char sum[33];
	nbrt_digest(data, len, sum);
	return strcmp(sum, want) == 0;
}

static cl_program load_cached(nbrt_kernel *k, const char *path,
                              const nbrt_key *key)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	size_t len, kl, ol, bl;
	int h = 0;
	char want[33];
	char *data = nbrt_cache_read(path, &len);
	cl_program p = NULL;
	if (!data)
		return NULL;
	if (sscanf(data, CL_MAGIC " %zu %zu %zu %32[0-9a-f]\n%n", &kl, &ol,
	           &bl, want, &h) != 4 ||
	    h <= 0 || kl > len || ol > len || bl > len ||
	    (size_t)h + kl + ol + bl != len || kl != key->len ||
	    memcmp(data + h, key->s, kl) != 0 ||
	    !digest_is(data + h, len - (size_t)h, want)) {
		nbrt_note(rt, "cache entry %s does not match: ignored", path);
		goto out;
	}
	char *opts = strndup(data + h + kl, ol);
	const unsigned char *bin = (const unsigned char *)data + h + kl + ol;
	cl_int st, e;
	p = clCreateProgramWithBinary(c->ctx, 1, &c->dev, &bl, &bin, &st, &e);
	if (p && opts && clBuildProgram(p, 1, &c->dev, opts, NULL, NULL) ==
	                 CL_SUCCESS) {
		nbrt_note(rt, "cache hit %s (%s)", path, k->name);
	} else {
		nbrt_note(rt, "cached binary %s does not load: rebuilding", path);
		if (p)
			clReleaseProgram(p);
		p = NULL;
	}
	free(opts);
out:
	free(data);
	return p;
}

static void store(nbrt_kernel *k, cl_program p, const char *path,
                  const nbrt_key *key, const char *opts)
{
	nbrt *rt = k->rt;
	size_t bl = 0;
	if (!path || clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bl, &bl,
	                              NULL) != CL_SUCCESS || bl == 0)
		return;
	/* the body first, then the header that carries its digest */
	size_t ol = strlen(opts), body = key->len + ol + bl;
	char head[160], sum[33];
	char *data = malloc(sizeof head + body);
	if (!data)
		return;
	char *b = data + sizeof head;
	memcpy(b, key->s, key->len);
	memcpy(b + key->len, opts, ol);
	unsigned char *bin = (unsigned char *)b + key->len + ol;
	if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) ==
	    CL_SUCCESS) {
		nbrt_digest(b, body, sum);
		int h = snprintf(head, sizeof head, CL_MAGIC " %zu %zu %zu %s\n",
		                 key->len, ol, bl, sum);
		if (h > 0 && (size_t)h < sizeof head) {
			memcpy(b - h, head, (size_t)h);
			nbrt_cache_write(rt, path, b - h, (size_t)h + body);
		}
	}
	free(data);
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
	char o0[512], o1[512];
	snprintf(o0, sizeof o0, "%s -DNB_NVIDIA_SHFL %s %s", CL_STD, own,
	         extra ? extra : "");
	snprintf(o1, sizeof o1, "%s %s %s", CL_STD, own, extra ? extra : "");
	const char *opts[2] = {o0, o1};
	int first = c->nvidia ? 0 : 1;
	nbrt_key key = {0};
	if (nbrt_key_add(&key, NBCC_VERSION, strlen(NBCC_VERSION)) ||
	    nbrt_key_add(&key, c->devkey, strlen(c->devkey)) ||
	    nbrt_key_add(&key, opts[first], strlen(opts[first])) ||
	    nbrt_key_add(&key, code, len)) {
		free(key.s);
		return nbrt_fail(rt, "out of memory");
	}
	char *path = nbrt_cache_path(rt, &key, ".clbin");
	if (path && (pg->prog = load_cached(k, path, &key)))
		k->cache_hit = 1;
	for (int i = first; !pg->prog && i < 2; i++) {
		pg->prog = build_src(k, code, len, opts[i]);
		if (pg->prog)
			store(k, pg->prog, path, &key, opts[i]);
		else if (i + 1 < 2)
			nbrt_note(rt, "%s", nbrt_error(rt));
	}
	free(path);
	free(key.s);
	return pg->prog ? 0 : -1;
}

static int cl_load(nbrt_kernel *k, const char *code, size_t len)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	const nb_iface *f = k->f;
	cl_int e;
	Prog *pg = k->priv = calloc(1, sizeof *pg);
	if (!pg)
		return nbrt_fail(rt, "out of memory");
	if (check_iface(k, code, len) || program(k, code, len))
		return -1;
	pg->kern = clCreateKernel(pg->prog, f->entry, &e);
	if (!pg->kern)
		return clfail(rt, k->name, "clCreateKernel", e);
	cl_uint nargs = 0;
	size_t kwg = 0;
	if ((e = clGetKernelInfo(pg->kern, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs,
	                         NULL)) != CL_SUCCESS)
		return clfail(rt, k->name, "clGetKernelInfo", e);
	int want = 5 + f->nvar - nb_iface_count(f, NB_BMEM) + f->npack;
	if ((int)nargs != want)
		return nbrt_fail(rt, "%s: kernel %s takes %u arguments, its "
		                 "interface says %d", k->name, f->kernel, nargs, want);
	if ((e = clGetKernelWorkGroupInfo(pg->kern, c->dev, CL_KERNEL_WORK_GROUP_SIZE,
	                                  sizeof kwg, &kwg, NULL)) != CL_SUCCESS)
		return clfail(rt, k->name, "clGetKernelWorkGroupInfo", e);
	if (kwg < (size_t)f->wg)
		return nbrt_fail(rt, "%s: work groups of %d are too large for %s "
		                 "with this kernel (at most %zu; compile with "
		                 "--wg=N)", k->name, f->wg, rt->name, kwg);
	/* j-tiles and j-split sums beyond the device's local memory: PoCL
	 * runs such a kernel anyway, over memory that is not there */
	cl_ulong lm = 0;
	if ((e = clGetKernelWorkGroupInfo(pg->kern, c->dev,
	                                  CL_KERNEL_LOCAL_MEM_SIZE, sizeof lm,
	                                  &lm, NULL)) != CL_SUCCESS)
		return clfail(rt, k->name, "clGetKernelWorkGroupInfo", e);
	if (lm > c->localmem)
		return nbrt_fail(rt, "%s: the kernel needs %llu bytes of local "
		                 "memory (tiles of %d j-elements, work groups of "
		                 "%d); %s has %llu (compile with a smaller --tile "
		                 "or --wg, or --tile=0)", k->name,
		                 (unsigned long long)lm, f->tile, f->wg, rt->name,
		                 (unsigned long long)c->localmem);
	pg->nmem = f->nvar - nb_iface_count(f, NB_BMEM) -
	           nb_iface_count(f, NB_CONST) + f->npack;
	pg->mem = calloc((size_t)pg->nmem + 1, sizeof *pg->mem);
	pg->cap = calloc((size_t)pg->nmem + 1, sizeof *pg->cap);
	if (!pg->mem || !pg->cap)
		return nbrt_fail(rt, "out of memory");
	return 0;
}

static void cl_free(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	if (!pg)
		return;
	for (int m = 0; pg->mem && m < pg->nmem; m++)
		if (pg->mem[m])
			clReleaseMemObject(pg->mem[m]);
	free(pg->mem);
	free(pg->cap);
	if (pg->kern)
		clReleaseKernel(pg->kern);
	if (pg->prog)
		clReleaseProgram(pg->prog);
	free(pg);
	k->priv = NULL;
}

/* --- running ------------------------------------------------------------ */

/* One run's transient state: staging copies (alive until the queue is
 * finished, since writes do not block) and unfinished launch events. */
typedef struct Run {
	void **stage;     /* per mem */
	cl_event ev[256];
	int nev;
	size_t wg, u, t;
} Run;

/* Waits for the pending launches and adds up their device time. */
static int drain(nbrt_kernel *k, Run *r)
{
	nbrt *rt = k->rt;
	cl_int e = r->nev ? clWaitForEvents((cl_uint)r->nev, r->ev) : CL_SUCCESS;
	for (int i = 0; i < r->nev; i++) {
		cl_ulong a = 0, b = 0;
		if (e == CL_SUCCESS &&
		    (e = clGetEventProfilingInfo(r->ev[i], CL_PROFILING_COMMAND_START,
		                                 sizeof a, &a, NULL)) == CL_SUCCESS &&
		    (e = clGetEventProfilingInfo(r->ev[i], CL_PROFILING_COMMAND_END,
		                                 sizeof b, &b, NULL)) == CL_SUCCESS)
			k->tkern += 1e-9 * (double)(b - a);
		clReleaseEvent(r->ev[i]);
	}
	r->nev = 0;
	if (e != CL_SUCCESS)
		return clfail(rt, k->f->kernel, "waiting for the kernel", e);
	return 0;
}

static int launch(nbrt_kernel *k, size_t ib, size_t n, size_t jb, size_t m,
                  int accum, void *ctx)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	Run *r = ctx;
	cl_int a[5] = {(cl_int)n, (cl_int)m, (cl_int)ib, (cl_int)jb, accum};
	cl_int e;
	for (cl_uint i = 0; i < 5; i++)
		if ((e = clSetKernelArg(pg->kern, i, sizeof a[i], &a[i])) !=
		    CL_SUCCESS)
			return clfail(rt, k->f->kernel, "clSetKernelArg", e);
	size_t groups = (n + r->u - 1) / r->u * r->t;
	size_t global = (groups + r->wg - 1) / r->wg * r->wg, local = r->wg;
	if (r->nev == (int)(sizeof r->ev / sizeof r->ev[0]) && drain(k, r))
		return -1;
	e = clEnqueueNDRangeKernel(c->q, pg->kern, 1, NULL, &global, &local, 0,
	                           NULL, &r->ev[r->nev]);
	if (e != CL_SUCCESS) {
		char what[256];
		snprintf(what, sizeof what, "kernel %s (global size %zu, local %zu)",
		         k->f->kernel, global, local);
		return clfail(rt, what, "clEnqueueNDRangeKernel", e);
	}
	r->nev++;
	k->launches++;
	/* progress counts launches done, not queued */
	if (k->plabel && drain(k, r))
		return -1;
	return 0;
}

/* Makes buffer m hold at least `bytes`; buffers only grow, so repeated
 * runs of one size allocate once. */
static int ensure(nbrt_kernel *k, int m, size_t bytes, cl_mem_flags fl,
                  const char *what)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	cl_int e;
	if (bytes < 64)
		bytes = 64;
	if (pg->cap[m] >= bytes)
		return 0;
	if (pg->mem[m])
		clReleaseMemObject(pg->mem[m]);
	pg->mem[m] = NULL;
	pg->cap[m] = 0;
	if (bytes > rt->maxalloc)
		return nbrt_fail(rt, "kernel %s: %s needs %zu bytes; %s allows at "
		                 "most %llu in one buffer", k->f->kernel, what, bytes,
		                 rt->name, (unsigned long long)rt->maxalloc);
	pg->mem[m] = clCreateBuffer(c->ctx, fl, bytes, NULL, &e);
	if (!pg->mem[m])
		return clfail(rt, k->f->kernel, "clCreateBuffer", e);
	pg->cap[m] = bytes;
	return 0;
}

static int put(nbrt_kernel *k, int m, const void *src, size_t bytes)
{
	const Cl *c = k->rt->priv;
	Prog *pg = k->priv;
	cl_int e;
	if (!bytes)
		return 0;
	e = clEnqueueWriteBuffer(c->q, pg->mem[m], CL_FALSE, 0, bytes, src, 0,
	                         NULL, NULL);
	if (e != CL_SUCCESS)
		return clfail(k->rt, k->f->kernel, "clEnqueueWriteBuffer", e);
	return 0;
}

/* An LMEM or RMEM array: Ni values of the variable's type.  Inputs are
 * sent as they are when the host layout is the kernel's. */
static int upload_var(nbrt_kernel *k, Run *r, int m, int v, size_t ni)
{
	const nb_var *x = &k->f->var[v];
	const nbrt_slot *b = &k->b[v];
	size_t bytes = ni * nbrt_prec_size(x->type);
	cl_mem_flags fl = x->role == NB_RMEM ? CL_MEM_READ_WRITE :
	                  CL_MEM_READ_ONLY;
	if (ensure(k, m, bytes, fl, x->name))
		return -1;
	if (x->role == NB_RMEM)
		return 0; /* launches with accum = 0 write every result first */
	if (nbrt_same_layout(b->t, x->type))
		return put(k, m, b->host, bytes);
	if (!(r->stage[m] = malloc(bytes)))
		return nbrt_fail(k->rt, "out of memory");
	nbrt_to_kernel(r->stage[m], x->type, (size_t)nb_prec_scalars(x->type), 0, b->host,
	               b->t, ni);
	return put(k, m, r->stage[m], bytes);
}

/* A BMEM pack: Nj elements of vwidth scalars, value comp of element j in
 * scalar comp (2 comp, 2 comp + 1 for dd), unused lanes 0. */
static int upload_pack(nbrt_kernel *k, Run *r, int m, int p, size_t nj)
{
	const nb_iface *f = k->f;
	const nb_pack *pk = &f->pack[p];
	size_t scal = nb_prec_scalar_bytes(pk->type);
	size_t bytes = nj * (size_t)pk->vwidth * scal;
	char what[64];
	snprintf(what, sizeof what, "BMEM pack %d", p);
	if (ensure(k, m, bytes, CL_MEM_READ_ONLY, what))
		return -1;
	if (!bytes)
		return 0;
	int only = -1;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_BMEM && f->var[v].pack == p)
			only = only == -1 ? v : -2;
	if (only >= 0 && (size_t)pk->vwidth * scal == nbrt_prec_size(pk->type) &&
	    nbrt_same_layout(k->b[only].t, pk->type))
		return put(k, m, k->b[only].host, bytes);
	if (!(r->stage[m] = calloc(bytes, 1)))
		return nbrt_fail(k->rt, "out of memory");
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_BMEM || x->pack != p)
			continue;
		size_t off = (size_t)(nb_prec_scalars(pk->type) * x->comp);
		nbrt_to_kernel(r->stage[m], pk->type, (size_t)pk->vwidth, off,
		               k->b[v].host, k->b[v].t, nj);
	}
	return put(k, m, r->stage[m], bytes);
}

static int set_arg(nbrt_kernel *k, cl_uint i, size_t n, const void *v)
{
	Prog *pg = k->priv;
	cl_int e = clSetKernelArg(pg->kern, i, n, v);
	if (e != CL_SUCCESS)
		return clfail(k->rt, k->f->kernel, "clSetKernelArg", e);
	return 0;
}

/* Uploads every input and sets every argument after the first five:
 * LMEM buffers, BMEM packs, CONSTs by value, RMEM buffers. */
static int prepare(nbrt_kernel *k, Run *r, size_t ni, size_t nj)
{
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	int m = 0;
	cl_uint arg = 5;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_LMEM) {
			if (upload_var(k, r, m, v, ni) ||
			    set_arg(k, arg++, sizeof(cl_mem), &pg->mem[m]))
				return -1;
			m++;
		}
	for (int p = 0; p < f->npack; p++) {
		if (upload_pack(k, r, m, p, nj) ||
		    set_arg(k, arg++, sizeof(cl_mem), &pg->mem[m]))
			return -1;
		m++;
	}
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		const nbrt_slot *b = &k->b[v];
		if (x->role != NB_CONST)
			continue;
		cl_float fv = (cl_float)b->hi;
		cl_double dv = b->hi;
		cl_double2 d2;
		d2.s[0] = b->hi;
		d2.s[1] = b->lo;
		int r2 = x->type == NB_FLOAT ? set_arg(k, arg, sizeof fv, &fv) :
		         x->type == NB_DOUBLE ? set_arg(k, arg, sizeof dv, &dv) :
		         set_arg(k, arg, sizeof d2, &d2);
		if (r2)
			return -1;
		arg++;
	}
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			if (upload_var(k, r, m, v, ni) ||
			    set_arg(k, arg++, sizeof(cl_mem), &pg->mem[m]))
				return -1;
			m++;
		}
	return 0;
}

/* Reads every result back, into the host array or its staging copy. */
static int fetch(nbrt_kernel *k, Run *r, size_t ni)
{
	const Cl *c = k->rt->priv;
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	int m = pg->nmem - nb_iface_count(f, NB_RMEM);
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_RMEM)
			continue;
		size_t bytes = ni * nbrt_prec_size(x->type);
		void *dst = k->b[v].host;
		if (!nbrt_same_layout(k->b[v].t, x->type)) {
			if (!(r->stage[m] = malloc(bytes)))
				return nbrt_fail(k->rt, "out of memory");
			dst = r->stage[m];
		}
		cl_int e = clEnqueueReadBuffer(c->q, pg->mem[m], CL_FALSE, 0,
		                               bytes, dst, 0, NULL, NULL);
		if (e != CL_SUCCESS)
			return clfail(k->rt, f->kernel, "clEnqueueReadBuffer", e);
		m++;
	}
	return 0;
}

/* The largest Ni or Nj whose indices, with the padding of the last work
 * group, stay within an int. */
static size_t int_limit(const nb_iface *f)
{
	size_t pad = (size_t)f->unroll_i * ((size_t)f->wg + 2) *
	             (size_t)f->jsplit + (size_t)f->tile + 64;
	return pad < (size_t)INT_MAX / 2 ? (size_t)INT_MAX - pad : 0;
}

static int cl_run(nbrt_kernel *k, size_t ni, size_t nj)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	size_t lim = int_limit(f);
	if (ni > lim || nj > lim)
		return nbrt_fail(rt, "kernel %s: Ni = %zu, Nj = %zu: OpenCL "
		                 "kernels index with int, so both must be at most "
		                 "%zu", f->kernel, ni, nj, lim);
	Run r;
	memset(&r, 0, sizeof r);
	r.wg = (size_t)f->wg;
	r.u = (size_t)f->unroll_i;
	r.t = (size_t)f->jsplit;
	r.stage = calloc((size_t)pg->nmem + 1, sizeof *r.stage);
	int res = -1;
	if (!r.stage) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}
	/* per launch, also the global size stays within an int; 16 work
	 * groups per compute unit fill an H100's SM with 128-item groups */
	size_t imax = lim / r.t;
	size_t fill = (size_t)(rt->units ? rt->units : 1) * 16 * r.wg * r.u / r.t;
	if (prepare(k, &r, ni, nj) ||
	    nbrt_each_launch(k, ni, nj, imax, fill, launch, &r) ||
	    drain(k, &r) || fetch(k, &r, ni))
		goto out;
	cl_int e = clFinish(c->q);
	if (e != CL_SUCCESS) {
		clfail(rt, f->kernel, "clFinish", e);
		goto out;
	}
	int m = pg->nmem - nb_iface_count(f, NB_RMEM);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			if (r.stage[m])
				nbrt_from_kernel(k->b[v].host, k->b[v].t, r.stage[m],
				                 f->var[v].type,
				                 (size_t)nb_prec_scalars(f->var[v].type), 0,
				                 ni);
			m++;
		}
	res = 0;
out:
	/* nothing may still read or write a staging copy when it is freed */
	if (res) {
		clFinish(c->q);
		for (int i = 0; i < r.nev; i++)
			clReleaseEvent(r.ev[i]);
	}
	for (int i = 0; r.stage && i < pg->nmem; i++)
		free(r.stage[i]);
	free(r.stage);
	return res;
}

const struct nbrt_backend nbrt_cl_backend = {
	.target = "opencl",
	/* what --target opencl asks for: OpenCL's own choice, a CPU too */
	.spec = "opencl",
	.where = "an OpenCL device",
	.host = 0,
	.open = cl_open,
	.close = cl_close,
	.list = cl_list,
	.describe = cl_describe,
	.load = cl_load,
	.run = cl_run,
	.free = cl_free,
};

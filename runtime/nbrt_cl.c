/* nbrt_cl.c: the OpenCL back end (nbrt_cl_backend), the one file that sees
 * OpenCL's headers.  Only OpenCL 1.2 calls, so the same code runs
 * on PoCL and on NVIDIA's OpenCL 3.0.  Programs are built once per device
 * and their binaries cached on disk; a run uploads (converting and packing
 * BMEM values into vectors), launches in chunks that keep every index in
 * an int, and reads the results back, timed by profiling events. */
#include <limits.h>
#include <stdarg.h>
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

/* The runtime's own kernels (aux_src), in its order. */
enum { AK_TO_F, AK_TO_D, AK_TO_DD, AK_FROM_F, AK_FROM_D, AK_FROM_DD,
       AK_AXPY, AK_FINITE, AK_SUM_F, AK_SUM_D, AK_SUM_DD, AK_N };

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
	/* nbrt_array's device side, made with the first array: the
	 * runtime's own program (aux_src), a flag for nbrt_array_finite, and
	 * pinned memory for what crosses to and from the host */
	cl_program aux;
	cl_kernel ak[AK_N];
	size_t akwg;       /* work-group size of the aux kernels */
	cl_mem flag;
	cl_mem pin;        /* CL_MEM_ALLOC_HOST_PTR, kept mapped at pinp */
	void *pinp;
	size_t pincap;
} Cl;

/* A loaded kernel (k->priv). */
typedef struct Prog {
	cl_program prog;
	cl_kernel kern;
	int nmem;          /* LMEM vars, BMEM packs, RMEM vars */
	cl_mem *mem;
	size_t *cap;       /* bytes allocated for each mem */
	/* each mem's staging copy for conversions on the host: pinned
	 * (CL_MEM_ALLOC_HOST_PTR), mapped at pinp, kept from run to run */
	cl_mem *pin;
	void **pinp;
	size_t *pincap;
	/* per RMEM mem: the j-slices' sums, slice s at s * ni (cl_run) */
	cl_mem *part;
	size_t *partcap;
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

/* Does device d match spec?  With no spec: a GPU, or a CPU where `cpu`
 * (there being no GPU). */
static int matches(const char *spec, const Dev *d, int cpu)
{
	int p, dv;
	if (!spec)
		return (d->type & (cpu ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU)) != 0;
	if (strcasecmp(spec, "gpu") == 0)
		return (d->type & CL_DEVICE_TYPE_GPU) != 0;
	if (strcasecmp(spec, "cpu") == 0)
		return (d->type & CL_DEVICE_TYPE_CPU) != 0;
	if (pd(spec, &p, &dv) == 0)
		return d->pi == p && d->di == dv;
	return d->name && strcasestr(d->name, spec);
}

/* The rt->nth (modulo their count) of the devices that match spec. */
static int pick(nbrt *rt, const char *spec, const Dev *d, int n)
{
	for (int cpu = 0; cpu < 2; cpu++) {
		int m = 0;
		for (int k = 0; k < n; k++)
			m += matches(spec, &d[k], cpu);
		for (int k = 0, c = 0; m && k < n; k++)
			if (matches(spec, &d[k], cpu) && c++ == rt->nth % m)
				return k;
		if (spec)
			break;
	}
	if (!spec)
		return 0; /* neither GPU nor CPU: the first device */
	char *l = dev_list(d, n);
	nbrt_fail(rt, "no OpenCL device matches '%s' (devices: %s; 'host' "
	          "runs kernels on this CPU through C)", spec, l ? l : "?");
	free(l);
	return -1;
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
	/* nbrt_array's doubles: without them, the host keeps the arrays */
	rt->devarrays = c->fp64;
	/* what decides the code a build makes: part of every cache key */
	char *pn = plat_str(c->plat, CL_PLATFORM_NAME);
	char *pv = plat_str(c->plat, CL_PLATFORM_VERSION);
	char *dv = dev_str(c->dev, CL_DEVICE_VERSION);
	char *drv = dev_str(c->dev, CL_DRIVER_VERSION);
	c->nvidia = pn && strcasestr(pn, "NVIDIA") != NULL;
	c->devkey = nbrt_aprintf("%s\n%s\n%s\n%s\n%s", rt->name, pn, pv, dv, drv);
	/* the defaults table's class: GPUs by vendor, CPUs by vector unit */
	rt->devclass = rt->gpu ? strdup(c->nvidia ? "gpu-nvidia" : "gpu") :
	               nbrt_aprintf("cpu-%s", nbrt_isa());
	rt->ident = c->devkey ? strdup(c->devkey) : NULL;
	free(pn);
	free(pv);
	free(dv);
	free(drv);
	return c->devkey && rt->devclass && rt->ident ? 0 :
	       nbrt_fail(rt, "out of memory");
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
	if (c->pinp)
		clEnqueueUnmapMemObject(c->q, c->pin, c->pinp, 0, NULL, NULL);
	if (c->q)
		clFinish(c->q);
	if (c->pin)
		clReleaseMemObject(c->pin);
	if (c->flag)
		clReleaseMemObject(c->flag);
	for (int i = 0; i < AK_N; i++)
		if (c->ak[i])
			clReleaseKernel(c->ak[i]);
	if (c->aux)
		clReleaseProgram(c->aux);
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
static cl_program build_src(nbrt *rt, const char *name, const char *code,
                            size_t len, const char *opts)
{
	const Cl *c = rt->priv;
	cl_int e;
	cl_program p = clCreateProgramWithSource(c->ctx, 1, &code, &len, &e);
	if (!p) {
		clfail(rt, name, "clCreateProgramWithSource", e);
		return NULL;
	}
	nbrt_note(rt, "building %s for %s (%s)", name, rt->name, opts);
	e = clBuildProgram(p, 1, &c->dev, opts, NULL, NULL);
	if (e == CL_SUCCESS)
		return p;
	char *log = build_log(rt, p);
	nbrt_fail(rt, "cannot build %s for %s: clBuildProgram failed with %s "
	          "(%d), options '%s'; build log:\n%s", name, rt->name,
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

static cl_program load_cached(nbrt *rt, const char *name, const char *path,
                              const nbrt_key *key)
{
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
		nbrt_note(rt, "cache hit %s (%s)", path, name);
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

static void store(nbrt *rt, cl_program p, const char *path,
                  const nbrt_key *key, const char *opts)
{
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
	if (path && (pg->prog = load_cached(rt, k->name, path, &key)))
		k->cache_hit = 1;
	for (int i = first; !pg->prog && i < 2; i++) {
		pg->prog = build_src(rt, k->name, code, len, opts[i]);
		if (pg->prog)
			store(rt, pg->prog, path, &key, opts[i]);
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
	pg->pin = calloc((size_t)pg->nmem + 1, sizeof *pg->pin);
	pg->pinp = calloc((size_t)pg->nmem + 1, sizeof *pg->pinp);
	pg->pincap = calloc((size_t)pg->nmem + 1, sizeof *pg->pincap);
	pg->part = calloc((size_t)pg->nmem + 1, sizeof *pg->part);
	pg->partcap = calloc((size_t)pg->nmem + 1, sizeof *pg->partcap);
	if (!pg->mem || !pg->cap || !pg->pin || !pg->pinp || !pg->pincap ||
	    !pg->part || !pg->partcap)
		return nbrt_fail(rt, "out of memory");
	return 0;
}

static void cl_free(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	if (!pg)
		return;
	const Cl *c = k->rt->priv;
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
	free(pg->part);
	free(pg->partcap);
	free(pg->mem);
	free(pg->cap);
	free(pg->pin);
	free(pg->pinp);
	free(pg->pincap);
	if (pg->kern)
		clReleaseKernel(pg->kern);
	if (pg->prog)
		clReleaseProgram(pg->prog);
	free(pg);
	k->priv = NULL;
}

/* --- arrays on the device (nbrt_array) ----------------------------------- */

/* The runtime's own kernels: fixed text, nothing from a kernel or a user
 * spliced in.  Conversions between nbrt_array's doubles and a kernel's
 * buffers (value i at scalar i * s + o, as convert.c packs them on the
 * host), the leap-frog's update and the finite check.  FP_CONTRACT OFF:
 * y + h * x is a rounded multiply and a rounded add, as the host's loop
 * in nbrt_array.c computes it. */
static const char aux_src[] =
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"#pragma OPENCL FP_CONTRACT OFF\n"
	"kernel void nbrt_to_f(global const double *a, global float *d,\n"
	"                      ulong s, ulong o, ulong n)\n"
	"{ size_t i = get_global_id(0); if (i < n) d[i * s + o] = (float)a[i]; }\n"
	"kernel void nbrt_to_d(global const double *a, global double *d,\n"
	"                      ulong s, ulong o, ulong n)\n"
	"{ size_t i = get_global_id(0); if (i < n) d[i * s + o] = a[i]; }\n"
	"kernel void nbrt_to_dd(global const double *a, global double *d,\n"
	"                       ulong s, ulong o, ulong n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n) { d[i * s + o] = a[i]; d[i * s + o + 1] = 0; }\n"
	"}\n"
	"kernel void nbrt_from_f(global const float *r, global double *a, ulong n)\n"
	"{ size_t i = get_global_id(0); if (i < n) a[i] = r[i]; }\n"
	"kernel void nbrt_from_d(global const double *r, global double *a, ulong n)\n"
	"{ size_t i = get_global_id(0); if (i < n) a[i] = r[i]; }\n"
	"kernel void nbrt_from_dd(global const double *r, global double *a, ulong n)\n"
	"{ size_t i = get_global_id(0); if (i < n) a[i] = r[2 * i] + r[2 * i + 1]; }\n"
	"kernel void nbrt_axpy(global double *y0, global double *y1,\n"
	"                      global double *y2, global const double *x0,\n"
	"                      global const double *x1, global const double *x2,\n"
	"                      double h, int na, ulong n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	y0[i] += h * x0[i];\n"
	"	if (na > 1) y1[i] += h * x1[i];\n"
	"	if (na > 2) y2[i] += h * x2[i];\n"
	"}\n"
	"kernel void nbrt_finite(global const double *a0, global const double *a1,\n"
	"                        global const double *a2, int na, ulong n,\n"
	"                        global int *bad)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n && (!isfinite(a0[i]) || (na > 1 && !isfinite(a1[i])) ||\n"
	"	              (na > 2 && !isfinite(a2[i]))))\n"
	"		*bad = 1;\n"
	"}\n"
	/* the j-slices' sums of a launch (cl_run): slice 0 first, in order,
	 * so a run's results do not depend on timing; dd by an accurate
	 * addition (two two-sums), as the kernels' own */
	"kernel void nbrt_sum_f(global const float *p, global float *r, int ns,\n"
	"                       ulong n, ulong off, int accum)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	float s = p[i];\n"
	"	for (int k = 1; k < ns; k++) s += p[k * n + i];\n"
	"	r[off + i] = accum ? r[off + i] + s : s;\n"
	"}\n"
	"kernel void nbrt_sum_d(global const double *p, global double *r, int ns,\n"
	"                       ulong n, ulong off, int accum)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	double s = p[i];\n"
	"	for (int k = 1; k < ns; k++) s += p[k * n + i];\n"
	"	r[off + i] = accum ? r[off + i] + s : s;\n"
	"}\n"
	"double2 nbrt_dd_add(double2 a, double2 b)\n"
	"{\n"
	"	double s = a.x + b.x, v = s - a.x, e = (a.x - (s - v)) + (b.x - v);\n"
	"	double t = a.y + b.y, w = t - a.y, f = (a.y - (t - w)) + (b.y - w);\n"
	"	e += t;\n"
	"	double h = s + e;\n"
	"	e = e - (h - s) + f;\n"
	"	s = h + e;\n"
	"	return (double2)(s, e - (s - h));\n"
	"}\n"
	"kernel void nbrt_sum_dd(global const double2 *p, global double2 *r,\n"
	"                        int ns, ulong n, ulong off, int accum)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	double2 s = p[i];\n"
	"	for (int k = 1; k < ns; k++) s = nbrt_dd_add(s, p[k * n + i]);\n"
	"	r[off + i] = accum ? nbrt_dd_add(r[off + i], s) : s;\n"
	"}\n";

static const char *const ak_name[AK_N] = {
	"nbrt_to_f", "nbrt_to_d", "nbrt_to_dd", "nbrt_from_f", "nbrt_from_d",
	"nbrt_from_dd", "nbrt_axpy", "nbrt_finite", "nbrt_sum_f", "nbrt_sum_d",
	"nbrt_sum_dd",
};

/* Builds aux_src once a device (or takes it from the cache). */
static int aux_load(nbrt *rt)
{
	Cl *c = rt->priv;
	cl_int e;
	if (c->aux)
		return 0;
	const char *name = "the runtime's array kernels";
	size_t len = sizeof aux_src - 1;
	nbrt_key key = {0};
	if (nbrt_key_add(&key, NBCC_VERSION, strlen(NBCC_VERSION)) ||
	    nbrt_key_add(&key, c->devkey, strlen(c->devkey)) ||
	    nbrt_key_add(&key, CL_STD, strlen(CL_STD)) ||
	    nbrt_key_add(&key, aux_src, len)) {
		free(key.s);
		return nbrt_fail(rt, "out of memory");
	}
	char *path = nbrt_cache_path(rt, &key, ".clbin");
	cl_program p = path ? load_cached(rt, name, path, &key) : NULL;
	if (!p && (p = build_src(rt, name, aux_src, len, CL_STD)))
		store(rt, p, path, &key, CL_STD);
	free(path);
	free(key.s);
	if (!p)
		return -1;
	int r = -1;
	cl_kernel ak[AK_N] = {0};
	size_t wg = c->maxwg < 128 ? c->maxwg : 128;
	for (int i = 0; i < AK_N; i++) {
		size_t kwg = 0;
		if (!(ak[i] = clCreateKernel(p, ak_name[i], &e))) {
			clfail(rt, name, "clCreateKernel", e);
			goto out;
		}
		if ((e = clGetKernelWorkGroupInfo(ak[i], c->dev,
		                                  CL_KERNEL_WORK_GROUP_SIZE,
		                                  sizeof kwg, &kwg, NULL))) {
			clfail(rt, name, "clGetKernelWorkGroupInfo", e);
			goto out;
		}
		if (kwg < wg)
			wg = kwg;
	}
	c->flag = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL,
	                         &e);
	if (!c->flag) {
		clfail(rt, name, "clCreateBuffer", e);
		goto out;
	}
	c->aux = p;
	p = NULL;
	memcpy(c->ak, ak, sizeof ak);
	memset(ak, 0, sizeof ak);
	c->akwg = wg ? wg : 1;
	r = 0;
out:
	for (int i = 0; i < AK_N; i++)
		if (ak[i])
			clReleaseKernel(ak[i]);
	if (p)
		clReleaseProgram(p);
	return r;
}

/* Queues aux kernel i over n work items; ev, if not NULL, its event. */
static int aux_queue(nbrt *rt, int i, size_t n, cl_event *ev)
{
	Cl *c = rt->priv;
	size_t local = c->akwg, global = (n + local - 1) / local * local;
	cl_int e = clEnqueueNDRangeKernel(c->q, c->ak[i], 1, NULL, &global,
	                                  &local, 0, NULL, ev);
	if (e != CL_SUCCESS)
		return clfail(rt, ak_name[i], "clEnqueueNDRangeKernel", e);
	return 0;
}

/* Sets the arguments of aux kernel i, given as (size, pointer) pairs
 * ending in a size 0, and queues it over n work items (none: n = 0). */
static int aux_run(nbrt *rt, int i, size_t n, ...)
{
	Cl *c = rt->priv;
	cl_int e = CL_SUCCESS;
	va_list ap;
	va_start(ap, n);
	for (cl_uint a = 0; e == CL_SUCCESS; a++) {
		size_t sz = va_arg(ap, size_t);
		if (!sz)
			break;
		const void *v = va_arg(ap, const void *);
		e = clSetKernelArg(c->ak[i], a, sz, v);
	}
	va_end(ap);
	if (e != CL_SUCCESS)
		return clfail(rt, ak_name[i], "clSetKernelArg", e);
	return n ? aux_queue(rt, i, n, NULL) : 0;
}

#define ARG(v) sizeof(v), (const void *)&(v)

/* An array's values into scalar i * stride + off of a kernel's buffer,
 * converted to kt. */
static int aux_to(nbrt *rt, cl_mem dst, nb_prec kt, size_t stride,
                  size_t off, const nbrt_array *a, size_t n)
{
	cl_mem src = a->priv;
	cl_ulong s = stride, o = off, nn = n;
	int i = kt == NB_FLOAT ? AK_TO_F : kt == NB_DOUBLE ? AK_TO_D : AK_TO_DD;
	return aux_run(rt, i, n, ARG(src), ARG(dst), ARG(s), ARG(o), ARG(nn),
	               (size_t)0);
}

/* A kernel's n results of type kt into an array's doubles. */
static int aux_from(nbrt *rt, cl_mem src, nb_prec kt, nbrt_array *a,
                    size_t n)
{
	cl_mem dst = a->priv;
	cl_ulong nn = n;
	int i = kt == NB_FLOAT ? AK_FROM_F : kt == NB_DOUBLE ? AK_FROM_D :
	        AK_FROM_DD;
	return aux_run(rt, i, n, ARG(src), ARG(dst), ARG(nn), (size_t)0);
}

/* Pinned host memory of at least `bytes` in *mem, mapped at *ptr: a
 * buffer made with CL_MEM_ALLOC_HOST_PTR (page-locked on NVIDIA's OpenCL),
 * kept mapped and only grown, so that reusing it costs no page faults or
 * page locking.  Nothing queued may still use the old one. */
static int pinned(nbrt *rt, const char *what, cl_mem *mem, void **ptr,
                  size_t *cap, size_t bytes)
{
	Cl *c = rt->priv;
	cl_int e;
	if (*cap >= bytes)
		return 0;
	if (*ptr && (e = clEnqueueUnmapMemObject(c->q, *mem, *ptr, 0, NULL,
	                                         NULL)) != CL_SUCCESS)
		return clfail(rt, what, "clEnqueueUnmapMemObject", e);
	*ptr = NULL;
	if (*mem && (e = clFinish(c->q)) != CL_SUCCESS)
		return clfail(rt, what, "clFinish", e);
	if (*mem)
		clReleaseMemObject(*mem);
	*mem = NULL;
	*cap = 0;
	if (bytes > rt->maxalloc)
		return nbrt_fail(rt, "%s: %zu bytes of pinned memory are more than "
		                 "%s allows in one buffer", what, bytes, rt->name);
	*mem = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
	                      bytes, NULL, &e);
	if (!*mem)
		return clfail(rt, what, "clCreateBuffer", e);
	*ptr = clEnqueueMapBuffer(c->q, *mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
	                          0, bytes, 0, NULL, NULL, &e);
	if (!*ptr)
		return clfail(rt, what, "clEnqueueMapBuffer", e);
	*cap = bytes;
	return 0;
}

/* The device's pinned copy for nbrt_array's transfers. */
static int pin(nbrt *rt, size_t bytes)
{
	Cl *c = rt->priv;
	return pinned(rt, "pinned memory", &c->pin, &c->pinp, &c->pincap, bytes);
}

static int cl_array_new(nbrt_array *a)
{
	nbrt *rt = a->rt;
	Cl *c = rt->priv;
	cl_int e;
	size_t bytes = (a->n ? a->n : 1) * sizeof(double);
	if (bytes / sizeof(double) != (a->n ? a->n : 1) || bytes > rt->maxalloc)
		return nbrt_fail(rt, "an array of %zu doubles is more than %s "
		                 "allows in one buffer (%llu bytes)", a->n, rt->name,
		                 (unsigned long long)rt->maxalloc);
	if (aux_load(rt))
		return -1;
	cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
	if (!m)
		return clfail(rt, "an array", "clCreateBuffer", e);
	a->priv = m;
	static const cl_double zero = 0;
	if ((e = clEnqueueFillBuffer(c->q, m, &zero, sizeof zero, 0, bytes, 0,
	                             NULL, NULL)) != CL_SUCCESS ||
	    (e = clFinish(c->q)) != CL_SUCCESS)
		return clfail(rt, "an array", "clEnqueueFillBuffer", e);
	return 0;
}

static void cl_array_free(nbrt_array *a)
{
	const Cl *c = a->rt->priv;
	clFinish(c->q); /* nothing queued may still use it */
	clReleaseMemObject((cl_mem)a->priv);
	a->priv = NULL;
}

/* All of an array to (write) or from the host, through the pinned copy. */
static int cross(const nbrt_array *a, double *host, int write)
{
	nbrt *rt = a->rt;
	Cl *c = rt->priv;
	size_t bytes = a->n * sizeof(double);
	const char *what = write ? "writing an array" : "reading an array";
	if (!bytes)
		return 0;
	/* the pinned copy may still feed an earlier command */
	cl_int e = clFinish(c->q);
	if (e != CL_SUCCESS)
		return clfail(rt, what, "clFinish", e);
	if (pin(rt, bytes))
		return -1;
	if (write)
		memcpy(c->pinp, host, bytes);
	e = write ? clEnqueueWriteBuffer(c->q, (cl_mem)a->priv, CL_TRUE, 0,
	                                 bytes, c->pinp, 0, NULL, NULL)
	          : clEnqueueReadBuffer(c->q, (cl_mem)a->priv, CL_TRUE, 0,
	                                bytes, c->pinp, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return clfail(rt, what, write ? "clEnqueueWriteBuffer" :
		              "clEnqueueReadBuffer", e);
	if (!write)
		memcpy(host, c->pinp, bytes);
	return 0;
}

static int cl_array_write(nbrt_array *a, const double *src)
{
	return cross(a, (double *)src, 1);
}

static int cl_array_read(const nbrt_array *a, double *dst)
{
	return cross(a, dst, 0);
}

static int cl_array_axpy(nbrt_array *const *y, double h,
                         nbrt_array *const *x, int na)
{
	cl_mem m[6];
	for (int i = 0; i < 3; i++) {
		m[i] = y[i < na ? i : 0]->priv;
		m[3 + i] = x[i < na ? i : 0]->priv;
	}
	cl_double hh = h;
	cl_int nn = na;
	cl_ulong n = y[0]->n;
	return aux_run(y[0]->rt, AK_AXPY, y[0]->n, ARG(m[0]), ARG(m[1]),
	               ARG(m[2]), ARG(m[3]), ARG(m[4]), ARG(m[5]), ARG(hh),
	               ARG(nn), ARG(n), (size_t)0);
}

static int cl_array_finite(nbrt_array *const *a, int na, int *finite)
{
	nbrt *rt = a[0]->rt;
	Cl *c = rt->priv;
	cl_int e;
	cl_ulong n = a[0]->n;
	static const cl_int zero = 0;
	if ((e = clEnqueueFillBuffer(c->q, c->flag, &zero, sizeof zero, 0,
	                             sizeof zero, 0, NULL, NULL)) != CL_SUCCESS)
		return clfail(rt, "nbrt_finite", "clEnqueueFillBuffer", e);
	/* three arrays a launch, one flag for all, read once */
	for (int g = 0; g < na; g += 3) {
		cl_mem m[3];
		cl_int nn = na - g < 3 ? na - g : 3;
		for (int i = 0; i < 3; i++)
			m[i] = a[g + (i < nn ? i : 0)]->priv;
		if (aux_run(rt, AK_FINITE, a[0]->n, ARG(m[0]), ARG(m[1]),
		            ARG(m[2]), ARG(nn), ARG(n), ARG(c->flag), (size_t)0))
			return -1;
	}
	if (pin(rt, 64))
		return -1;
	e = clEnqueueReadBuffer(c->q, c->flag, CL_TRUE, 0, sizeof(cl_int),
	                        c->pinp, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return clfail(rt, "nbrt_finite", "clEnqueueReadBuffer", e);
	*finite = *(cl_int *)c->pinp == 0;
	return 0;
}

/* --- running ------------------------------------------------------------ */

/* One run's transient state: the staging copies it used (pinned, alive
 * until the queue is finished, since writes do not block) and unfinished
 * launch events. */
typedef struct Run {
	void **stage;     /* per mem, into pg->pinp; NULL: none */
	cl_event ev[256];
	int nev;
	size_t wg, u, t;
	cl_uint rarg;     /* the first RMEM argument */
	int sliced;       /* RMEM arguments bound to pg->part */
	int noted;        /* the slices were noted (NBRT_VERBOSE) */
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

static int set_arg(nbrt_kernel *k, cl_uint i, size_t n, const void *v);
static int grow(nbrt_kernel *k, cl_mem *mem, size_t *cap, size_t bytes,
                cl_mem_flags fl, const char *what);

/* The next event slot of a run, waiting for the pending launches first
 * when every slot is taken; NULL after a failure. */
static cl_event *next_event(nbrt_kernel *k, Run *r)
{
	if (r->nev == (int)(sizeof r->ev / sizeof r->ev[0]) && drain(k, r))
		return NULL;
	return &r->ev[r->nev];
}

/* Binds the RMEM arguments to the results (ns 1) or to the slices' sums
 * of a launch of n i-elements in ns slices, growing those as needed. */
static int bind_results(nbrt_kernel *k, Run *r, int ns, size_t n)
{
	const nb_iface *f = k->f;
	Prog *pg = k->priv;
	if (ns == 1 && !r->sliced)
		return 0;
	int m = pg->nmem - nb_iface_count(f, NB_RMEM);
	cl_uint arg = r->rarg;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_RMEM)
			continue;
		size_t bytes = (size_t)ns * n * nbrt_prec_size(x->type);
		if (ns > 1 && grow(k, &pg->part[m], &pg->partcap[m], bytes,
		                   CL_MEM_READ_WRITE, x->name))
			return -1;
		if (set_arg(k, arg++, sizeof(cl_mem),
		            ns > 1 ? &pg->part[m] : &pg->mem[m]))
			return -1;
		m++;
	}
	r->sliced = ns > 1;
	return 0;
}

/* Adds up the ns slices' sums of a launch into the results, each after
 * the launch in the queue, timed with it. */
static int add_slices(nbrt_kernel *k, Run *r, int ns, size_t ib, size_t n,
                      int accum)
{
	nbrt *rt = k->rt;
	const nb_iface *f = k->f;
	Prog *pg = k->priv;
	cl_int nsl = ns, acc = accum;
	cl_ulong cn = n, off = ib;
	int m = pg->nmem - nb_iface_count(f, NB_RMEM);
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_RMEM)
			continue;
		int i = x->type == NB_FLOAT ? AK_SUM_F : x->type == NB_DOUBLE ?
		        AK_SUM_D : AK_SUM_DD;
		cl_event *ev;
		if (aux_run(rt, i, 0, ARG(pg->part[m]), ARG(pg->mem[m]), ARG(nsl),
		            ARG(cn), ARG(off), ARG(acc), (size_t)0) ||
		    !(ev = next_event(k, r)) || aux_queue(rt, i, n, ev))
			return -1;
		r->nev++;
		m++;
	}
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
	size_t global[2] = {(groups + r->wg - 1) / r->wg * r->wg, 1};
	size_t local[2] = {r->wg, 1};
	/* the runtime's own kernels add the slices up: they need doubles */
	int ns = c->fp64 ? nbrt_choose_slices(k, n, m) : 1;
	if (ns < 0 || (ns > 1 && aux_load(rt)) || bind_results(k, r, ns, n))
		return -1;
	global[1] = (size_t)ns;
	if (ns > 1 && !r->noted) {
		nbrt_note(rt, "%s: %d j-slices for a launch of Ni = %zu, Nj = %zu",
		          k->name, ns, n, m);
		r->noted = 1;
	}
	cl_event *ev = next_event(k, r);
	if (!ev)
		return -1;
	e = clEnqueueNDRangeKernel(c->q, pg->kern, 2, NULL, global, local, 0,
	                           NULL, ev);
	if (e != CL_SUCCESS) {
		char what[256];
		snprintf(what, sizeof what, "kernel %s (global size %zu x %d, "
		         "local %zu)", k->f->kernel, global[0], ns, local[0]);
		return clfail(rt, what, "clEnqueueNDRangeKernel", e);
	}
	r->nev++;
	if (ns > 1 && add_slices(k, r, ns, ib, n, accum))
		return -1;
	k->launches++;
	/* progress counts launches done, not queued */
	if (k->plabel && drain(k, r))
		return -1;
	return 0;
}

/* Makes *mem hold at least `bytes`; buffers only grow, so repeated runs
 * of one size allocate once.  ensure: kernel buffer m. */
static int grow(nbrt_kernel *k, cl_mem *mem, size_t *cap, size_t bytes,
                cl_mem_flags fl, const char *what)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	cl_int e;
	if (bytes < 64)
		bytes = 64;
	if (*cap >= bytes)
		return 0;
	if (*mem)
		clReleaseMemObject(*mem);
	*mem = NULL;
	*cap = 0;
	if (bytes > rt->maxalloc)
		return nbrt_fail(rt, "kernel %s: %s needs %zu bytes; %s allows at "
		                 "most %llu in one buffer", k->f->kernel, what, bytes,
		                 rt->name, (unsigned long long)rt->maxalloc);
	*mem = clCreateBuffer(c->ctx, fl, bytes, NULL, &e);
	if (!*mem)
		return clfail(rt, k->f->kernel, "clCreateBuffer", e);
	*cap = bytes;
	return 0;
}

static int ensure(nbrt_kernel *k, int m, size_t bytes, cl_mem_flags fl,
                  const char *what)
{
	Prog *pg = k->priv;
	return grow(k, &pg->mem[m], &pg->cap[m], bytes, fl, what);
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

/* The array bound to a slot when it lives on the device (else the
 * slot's host pointer is its memory, read as any host array's). */
static nbrt_array *dev_arr(const nbrt_slot *b)
{
	return b->host ? NULL : b->arr;
}

/* Mem m's staging copy of at least `bytes`, pinned, for this run (the
 * queue was finished after the last run that used it).  A staging copy
 * that only grows and stays mapped costs no page faults or page locking
 * from one run to the next. */
static int stage(nbrt_kernel *k, Run *r, int m, size_t bytes)
{
	Prog *pg = k->priv;
	if (pinned(k->rt, k->f->kernel, &pg->pin[m], &pg->pinp[m],
	           &pg->pincap[m], bytes))
		return -1;
	r->stage[m] = pg->pinp[m];
	return 0;
}

/* An LMEM or RMEM array: Ni values of the variable's type.  Inputs are
 * sent as they are when the host layout is the kernel's, converted on the
 * device from an nbrt_array bound there. */
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
	if (dev_arr(b))
		return aux_to(k->rt, ((Prog *)k->priv)->mem[m], x->type,
		              (size_t)nb_prec_scalars(x->type), 0, dev_arr(b), ni);
	if (nbrt_same_layout(b->t, x->type))
		return put(k, m, b->host, bytes);
	if (stage(k, r, m, bytes))
		return -1;
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
	int only = -1, onhost = 0, lanes = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_BMEM && f->var[v].pack == p) {
			only = only == -1 ? v : -2;
			onhost += !dev_arr(&k->b[v]);
			lanes += nb_prec_scalars(pk->type);
		}
	if (only >= 0 && !dev_arr(&k->b[only]) &&
	    (size_t)pk->vwidth * scal == nbrt_prec_size(pk->type) &&
	    nbrt_same_layout(k->b[only].t, pk->type))
		return put(k, m, k->b[only].host, bytes);
	/* host arrays through the staging copy (its unused lanes 0), then
	 * device arrays into their lanes, after it in the queue */
	Prog *pg = k->priv;
	if (onhost) {
		if (stage(k, r, m, bytes))
			return -1;
		memset(r->stage[m], 0, bytes);
	} else if (lanes < pk->vwidth) {
		static const cl_uchar zero = 0;
		const Cl *c = k->rt->priv;
		cl_int e = clEnqueueFillBuffer(c->q, pg->mem[m], &zero, 1, 0, bytes,
		                               0, NULL, NULL);
		if (e != CL_SUCCESS)
			return clfail(k->rt, f->kernel, "clEnqueueFillBuffer", e);
	}
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_BMEM || x->pack != p || dev_arr(&k->b[v]))
			continue;
		size_t off = (size_t)(nb_prec_scalars(pk->type) * x->comp);
		nbrt_to_kernel(r->stage[m], pk->type, (size_t)pk->vwidth, off,
		               k->b[v].host, k->b[v].t, nj);
	}
	if (onhost && put(k, m, r->stage[m], bytes))
		return -1;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_BMEM || x->pack != p || !dev_arr(&k->b[v]))
			continue;
		size_t off = (size_t)(nb_prec_scalars(pk->type) * x->comp);
		if (aux_to(k->rt, pg->mem[m], pk->type, (size_t)pk->vwidth, off,
		           dev_arr(&k->b[v]), nj))
			return -1;
	}
	return 0;
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

/* Reads every result back, into the host array or its staging copy, or
 * converts it into the nbrt_array bound to it on the device. */
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
		if (dev_arr(&k->b[v])) {
			if (aux_from(k->rt, pg->mem[m], x->type, dev_arr(&k->b[v]), ni))
				return -1;
			m++;
			continue;
		}
		if (!nbrt_same_layout(k->b[v].t, x->type)) {
			if (stage(k, r, m, bytes))
				return -1;
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
	             (size_t)f->jsplit + (size_t)f->tile + 64 +
	             (size_t)NBRT_MAX_SLICES * ((size_t)f->tile + 1);
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
	r.rarg = (cl_uint)(5 + nb_iface_count(f, NB_LMEM) + f->npack +
	                   nb_iface_count(f, NB_CONST));
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
	free(r.stage);
	return res;
}

const struct nbrt_backend nbrt_cl_backend = {
	.target = "opencl",
	.where = "an OpenCL device",
	.host = 0,
	.lang = "OpenCL",
	.ext = ".cl",
	.other = "host",
	.split_target = "opencl",
	.split_class = "gpu",
	.open = cl_open,
	.close = cl_close,
	.list = cl_list,
	.describe = cl_describe,
	.load = cl_load,
	.run = cl_run,
	.free = cl_free,
	.array_new = cl_array_new,
	.array_free = cl_array_free,
	.array_write = cl_array_write,
	.array_read = cl_array_read,
	.array_axpy = cl_array_axpy,
	.array_finite = cl_array_finite,
};

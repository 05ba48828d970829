/* device.c: the OpenCL devices: every platform's listed (nbrt_list), the
 * one a spec names picked (nbrt_open's rules), opened with a context and
 * a queue, its limits queried for the launch plan and its class in the
 * defaults table, and described (nbrt_describe). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cl_impl.h"

typedef struct Dev {
	cl_platform_id p;
	cl_device_id d;
	int pi, di;
	cl_device_type type;
	char *name;  /* "device (platform)" */
} Dev;

char *nbrt_cl_trim(char *s)
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
	return nbrt_cl_trim(s);
}

static char *dev_str(cl_device_id d, cl_device_info w)
{
	size_t n = 0;
	if (clGetDeviceInfo(d, w, 0, NULL, &n) != CL_SUCCESS)
		return strdup("?");
	char *s = calloc(n + 1, 1);
	if (s && clGetDeviceInfo(d, w, n, s, NULL) != CL_SUCCESS)
		s[0] = 0;
	return nbrt_cl_trim(s);
}

static void free_devs(Dev *d, int n)
{
	for (int i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

/* clGetPlatformIDs, leaving OCL_ICD_FILENAMES as it was.  The Khronos
 * ICD loader (the libOpenCL of CUDA's toolkit) splits that variable at its
 * ':'s in place, inside this process's environment, so every process
 * started afterwards saw only its first entry: the ranks of an mpirun
 * whose hwloc had loaded the OpenCL plugin lost the NVIDIA driver that way
 * (docs/mpi.md, "Ranks that find their GPU"), and so would the host back
 * end's compiler or a Python subprocess after a first run. */
static cl_int platforms(cl_uint n, cl_platform_id *ps, cl_uint *np)
{
	const char *v = getenv("OCL_ICD_FILENAMES");
	char *keep = v ? strdup(v) : NULL;
	cl_int e = clGetPlatformIDs(n, ps, np);
	v = getenv("OCL_ICD_FILENAMES");
	if (keep && (!v || strcmp(v, keep) != 0))
		setenv("OCL_ICD_FILENAMES", keep, 1);
	free(keep);
	return e;
}

/* What the ICD loader was told, for a message about missing devices:
 * OCL_ICD_FILENAMES and the vendors directory's entries, escaped. */
static char *icd_setup(void)
{
	const char *f = getenv("OCL_ICD_FILENAMES");
	const char *dir = getenv("OCL_ICD_VENDORS");
	if (!dir || !*dir)
		dir = "/etc/OpenCL/vendors";
	char *names = strdup("");
	DIR *d = opendir(dir);
	for (struct dirent *e; d && names && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".icd") != 0)
			continue;
		char *t = nbrt_aprintf("%s%s%s", names, *names ? " " : "",
		                       nb_esc(e->d_name));
		free(names);
		names = t;
	}
	if (d)
		closedir(d);
	char *fe = f ? strdup(nb_esc(f)) : NULL;
	char *s = nbrt_aprintf("the OpenCL ICD setup seen: OCL_ICD_FILENAMES=%s%s%s, "
	                       "%s holds %s", f ? "'" : "", fe ? fe : "(unset)",
	                       f ? "'" : "", nb_esc(dir),
	                       !d ? "nothing (no such directory)" :
	                       names && *names ? names : "no .icd file");
	free(fe);
	free(names);
	return s;
}

/* Every device of every platform.  No platform at all (no ICD) is not an
 * error: the list is just empty. */
static int devices(nbrt *rt, Dev **out, int *nout)
{
	*out = NULL;
	*nout = 0;
	cl_uint np = 0;
	cl_int e = platforms(0, NULL, &np);
	if (e == -1001 || (e == CL_SUCCESS && np == 0))
		return 0;
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "listing OpenCL platforms",
		                    "clGetPlatformIDs", e);
	cl_platform_id *ps = calloc(np, sizeof *ps);
	Dev *d = NULL;
	int n = 0, r = -1;
	if (!ps) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}
	if ((e = platforms(np, ps, NULL)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, "listing OpenCL platforms", "clGetPlatformIDs", e);
		goto out;
	}
	for (cl_uint p = 0; p < np; p++) {
		cl_uint nd = 0;
		/* a platform without devices, or a broken one, adds none */
		e = clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
		if (e != CL_SUCCESS && e != CL_DEVICE_NOT_FOUND)
			nbrt_note(rt, "platform %u skipped: clGetDeviceIDs failed "
			          "with %s (%d)", p, nbrt_cl_errname(e), (int)e);
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
				nbrt_cl_fail_on(rt, "listing OpenCL devices", "clGetDeviceInfo",
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


/* The rt->nth (modulo their count) of the devices that match spec.  nth
 * is an MPI rank's node-local rank: a GPU spec matching fewer GPUs than
 * that is refused (ranks would silently share one), unless
 * NBRT_SHARE_DEVICES=1 says sharing is meant; CPU devices are shared. */
static int pick(nbrt *rt, const char *spec, const Dev *d, int n)
{
	for (int cpu = 0; cpu < 2; cpu++) {
		int m = 0, gpus = 1;
		for (int k = 0; k < n; k++)
			if (matches(spec, &d[k], cpu)) {
				m++;
				gpus &= (d[k].type & CL_DEVICE_TYPE_GPU) != 0;
			}
		long share = 0;
		if (m && gpus && rt->nth >= m &&
		    nbrt_env_int(rt, "NBRT_SHARE_DEVICES", 0, 1, &share) < 0)
			return -1;
		if (m && gpus && rt->nth >= m && !share) {
			char *icd = icd_setup();
			nbrt_fail(rt, "rank %d of this node found only %d GPU%s matching "
			          "'%s', fewer than the node's ranks; %s (an mpirun "
			          "whose hwloc loads CUDA's OpenCL loader cuts that "
			          "variable at its first ':': HWLOC_COMPONENTS=-opencl, "
			          "docs/mpi.md; NBRT_SHARE_DEVICES=1 lets ranks share)",
			          rt->nth, m, m == 1 ? "" : "s",
			          spec ? nb_esc(spec) : "(default)",
			          icd ? icd : "?");
			free(icd);
			return -1;
		}
		for (int k = 0, c = 0; m && k < n; k++)
			if (matches(spec, &d[k], cpu) && c++ == rt->nth % m)
				return k;
		if (spec)
			break;
	}
	if (!spec)
		return 0; /* neither GPU nor CPU: the first device */
	char *l = dev_list(d, n), *icd = icd_setup();
	nbrt_fail(rt, "no OpenCL device matches '%s' (devices: %s; %s; 'host' "
	          "runs kernels on this CPU through C)", nb_esc(spec),
	          l ? l : "?", icd ? icd : "?");
	free(l);
	free(icd);
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
		return nbrt_cl_fail(rt, "opening the device", "clGetDeviceInfo", e);
	rt->maxalloc = maxalloc;
	rt->globalmem = globalmem;
	rt->units = units;
	cl_device_type type = 0;
	if ((e = clGetDeviceInfo(c->dev, CL_DEVICE_TYPE, sizeof type, &type,
	                         NULL)))
		return nbrt_cl_fail(rt, "opening the device", "clGetDeviceInfo", e);
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

int nbrt_cl_open(nbrt *rt, const char *spec)
{
	Dev *d;
	int n, r = -1;
	cl_int e;
	if (devices(rt, &d, &n))
		return -1;
	if (n == 0) {
		if (!spec)
			return 1;
		char *icd = icd_setup();
		nbrt_fail(rt, "no OpenCL device for '%s': no OpenCL platform "
		          "is installed (%s; 'host' runs kernels on this CPU "
		          "through C)", nb_esc(spec), icd ? icd : "?");
		free(icd);
		return -1;
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
		nbrt_cl_fail(rt, "opening the device", "clCreateContext", e);
		goto out;
	}
	/* the 1.2 call: NVIDIA's 3.0 still has it, PoCL too */
	c->q = clCreateCommandQueue(c->ctx, c->dev, CL_QUEUE_PROFILING_ENABLE,
	                            &e);
	if (!c->q) {
		nbrt_cl_fail(rt, "opening the device", "clCreateCommandQueue", e);
		goto out;
	}
	r = query(rt);
out:
	free_devs(d, n);
	return r;
}

void nbrt_cl_close(nbrt *rt)
{
	Cl *c = rt->priv;
	if (!c)
		return;
	if (c->pinp)
		clEnqueueUnmapMemObject(c->q, c->pin, c->pinp, 0, NULL, NULL);
	if (c->fpinp)
		clEnqueueUnmapMemObject(c->q, c->fpin, c->fpinp, 0, NULL, NULL);
	if (c->q)
		clFinish(c->q);
	/* queued runs never waited for (nbrt_wait reports their failures) */
	for (int i = 0; i < c->nq; i++)
		clReleaseEvent(c->qev[i]);
	if (c->sorthist)
		clReleaseMemObject(c->sorthist);
	for (int b = 0; b < 4; b++)
		if (c->sortbuf[b])
			clReleaseMemObject(c->sortbuf[b]);
	for (int b = 0; b < 8; b++)
		if (c->mortbuf[b])
			clReleaseMemObject(c->mortbuf[b]);
	for (int b = 0; b < 2; b++)
		if (c->mortperm[b])
			clReleaseMemObject(c->mortperm[b]);
	if (c->pin)
		clReleaseMemObject(c->pin);
	/* the shadow room (array.c's) */
	if (c->sh)
		clReleaseMemObject(c->sh);
	free(c->shl);
	if (c->flag)
		clReleaseMemObject(c->flag);
	/* checks never taken (nbrt_array_finite_queue) */
	for (int i = 0; i < 2; i++) {
		if (c->fev[i])
			clReleaseEvent(c->fev[i]);
		if (c->fflag[i])
			clReleaseMemObject(c->fflag[i]);
	}
	if (c->fpin)
		clReleaseMemObject(c->fpin);
	for (int i = 0; i < AK_N; i++)
		if (c->ak[i])
			clReleaseKernel(c->ak[i]);
	if (c->aux)
		clReleaseProgram(c->aux);
	if (c->q2)
		clReleaseCommandQueue(c->q2);
	if (c->q)
		clReleaseCommandQueue(c->q);
	if (c->ctx)
		clReleaseContext(c->ctx);
	free(c->devkey);
	free(c);
	rt->priv = NULL;
}

int nbrt_cl_list(FILE *out)
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
int nbrt_cl_describe(const nbrt *rt, FILE *out)
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

/* icd_cut.c: a stand-in for the Khronos ICD loader's habit (CUDA's
 * libOpenCL) of splitting OCL_ICD_FILENAMES at its ':'s in place, in the
 * environment of the process that enumerates platforms; preloaded by
 * icd_env.sh.  At exit it appends the variable as it then reads to
 * $ICD_CUT_LOG, so the script sees what a child would inherit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

typedef cl_int (*get_fn)(cl_uint, cl_platform_id *, cl_uint *);

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint n, cl_platform_id *p,
                                                 cl_uint *np)
{
	get_fn real = (get_fn)(size_t)dlsym(RTLD_NEXT, "clGetPlatformIDs");
	char *v = getenv("OCL_ICD_FILENAMES");
	char *colon = v ? strchr(v, ':') : NULL;
	if (colon)
		*colon = 0;
	return real ? real(n, p, np) : -1001 /* CL_PLATFORM_NOT_FOUND_KHR */;
}

__attribute__((destructor)) static void report(void)
{
	const char *log = getenv("ICD_CUT_LOG");
	FILE *f = log ? fopen(log, "a") : NULL;
	if (!f)
		return;
	const char *v = getenv("OCL_ICD_FILENAMES");
	fprintf(f, "%s\n", v ? v : "(unset)");
	fclose(f);
}

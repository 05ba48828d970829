/* devclass.c: a device's class in the defaults table (compiler/defaults.c)
 * and its row there: the CPU's vector unit, which names the classes of the
 * CPU devices, and the row that the loader, the launch plan and the tuner
 * read for a precision. */
#include "nbrt_impl.h"

const char *nbrt_isa(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return "avx512";
	if (__builtin_cpu_supports("avx2"))
		return "avx2";
#endif
	return "generic";
}

const nb_defaults *nbrt_row(const nbrt *rt, nb_prec p)
{
	return nb_defaults_find(rt->be->target, rt->devclass, p);
}

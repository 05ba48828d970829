/* query.c: the runtime as a binding in another language sees it (the
 * Python package's ctypes), which reads no C header: the host element
 * types by name, each the precision whose layout it has (convert.c). */
#include "nbrt_impl.h"

const char *nbrt_type_name(nbrt_type t)
{
	const char *name;
	for (int p = 0; (name = nb_enum_name("nb_prec", p)); p++)
		if (nbrt_same_layout(t, (nb_prec)p))
			return name;
	return NULL;
}

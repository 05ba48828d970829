/* query.c: the runtime as a binding in another language sees it (the
 * Python package's ctypes), which reads no C header: the host element
 * types by name, each the precision whose layout it has (convert.c);
 * the runs beyond the dense sweep with their structs' fields as
 * arguments, and the tree's defaults. */
#include <string.h>
#include "nbrt_impl.h"

const char *nbrt_type_name(nbrt_type t)
{
	const char *name;
	for (int p = 0; (name = nb_enum_name("nb_prec", p)); p++)
		if (nbrt_same_layout(t, (nb_prec)p))
			return name;
	return NULL;
}

/* nbrt_run_ranges, nbrt_run_cutoff (and nbrt_run_tree, below) with their
 * structs' fields as arguments, so that a binding need not know the structs' layout. */
int nbrt_run_ranges_csr(nbrt_kernel *k, size_t ni, size_t nj,
                        size_t ngroups, const size_t *group,
                        const size_t *offset, const size_t *range)
{
	nbrt_ranges r = {ngroups, group, offset, range};
	return nbrt_run_ranges(k, ni, nj, &r);
}

int nbrt_run_cutoff_args(nbrt_kernel *k, size_t ni, size_t nj, double cutoff,
                         int dim, const char *const *ipos,
                         const char *const *jpos, const double *period,
                         int self)
{
	nbrt_cutoff c = {.cutoff = cutoff, .dim = dim, .self = self};
	/* a bad dim reaches nbrt_run_cutoff, which names it, as it names a
	 * name left NULL (ipos or jpos NULL); period NULL: every axis open */
	for (int d = 0; d < dim && d < 3; d++) {
		c.ipos[d] = ipos ? ipos[d] : NULL;
		c.jpos[d] = jpos ? jpos[d] : NULL;
		c.period[d] = period ? period[d] : 0;
	}
	return nbrt_run_cutoff(k, ni, nj, &c);
}

/* nbrt_run_tree with nbrt_tree's fields as arguments (no stats): jmass
 * NULL for a vector kind's jsrc, jsrc NULL for a gravity kind's. */
int nbrt_run_tree_args(nbrt_kernel *k, nbrt_kernel *far, size_t ni,
                       size_t nj, double theta, size_t bucket, size_t group,
                       const char *const *ipos, const char *const *jpos,
                       const char *jmass, const char *const *jsrc)
{
	nbrt_tree t = {theta, bucket, group, {NULL, NULL, NULL},
	               {NULL, NULL, NULL}, jmass, NULL, {NULL, NULL, NULL}};
	/* ipos or jpos NULL: names left NULL, which nbrt_run_tree refuses */
	for (int d = 0; d < 3; d++) {
		t.ipos[d] = ipos ? ipos[d] : NULL;
		t.jpos[d] = jpos ? jpos[d] : NULL;
		t.jsrc[d] = jsrc ? jsrc[d] : NULL;
	}
	return nbrt_run_tree(k, far, ni, nj, &t);
}

size_t nbrt_tree_default(const char *field)
{
	return !field ? 0 : !strcmp(field, "bucket") ? NBRT_TREE_BUCKET :
	       !strcmp(field, "group") ? NBRT_TREE_GROUP : 0;
}

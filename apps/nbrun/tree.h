/* tree.h: nbrun --tree: the far kernel beside the kernel (far/STEM_*.nbl)
 * or given, and the tree's columns named from the kernel's interface, for
 * nbrt_run_tree (docs/treecode.md, docs/man/nbrun.1). */
#ifndef NBRUN_TREE_H
#define NBRUN_TREE_H

#include "nbrt.h"

/* The far kernel of the kernel at path: the one file far/STEM_*.nbl of
 * STEM.nbl (in the kernel's folder's far/, its parent's far/, then the
 * source tree's far/).  Returns a malloc'd path, or NULL with the
 * message printed (none, or several: --far FILE chooses). */
char *tree_find_far(const char *kernel);

/* The columns of t for kernel f: positions as given (dim 3 from --pos),
 * else the first three LMEMs and BMEMs; the sources, the BMEMs left (one:
 * a mass; three: a vector).  The names point into f.  Returns 0, or 1
 * with the message printed. */
int tree_columns(const nb_iface *f, int dim, const char *const ipos[3],
                 const char *const jpos[3], nbrt_tree *t);

/* The phases and counts of a run, for --time, on stderr. */
void tree_report(const struct nbrt_tree_stats *st);

#endif

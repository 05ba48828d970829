/* srcpath.h: where the bench programs (treebench, treeacc) find the
 * kernels of the source tree: beside their own program first (PROG's
 * folder's parent, bin/..), so that a tree copied with its bin/ to
 * another machine works, then the tree they were built in (ROOT). */
#ifndef SRCPATH_H
#define SRCPATH_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* REL (as "far/gravity_quad.nbl") under the tree of prog (argv[0]), a
 * string to free; NULL out of memory. */
static char *src_path(const char *prog, const char *rel)
{
	const char *slash = strrchr(prog, '/');
	int dir = slash ? (int)(slash - prog) : 0;
	size_t size = (size_t)dir + strlen(rel) + sizeof ROOT + 8;
	char *p = malloc(size);
	if (!p)
		return NULL;
	snprintf(p, size, "%.*s/../%s", dir, prog, rel);
	if (slash && !access(p, R_OK))
		return p;
	snprintf(p, size, "%s/%s", ROOT, rel);
	return p;
}
#endif

/* work.c: buffers a kernel keeps from one call to the next (nbrt_work):
 * the cell lists' keys, permutations, lists and sorted copies, which at
 * N = 2^20 are hundreds of MB that a fresh allocation would fault in
 * page by page on every call. */
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"

int nbrt_work_reserve(nbrt_work *w, int nslot)
{
	if (!w || nslot <= w->n)
		return 0;
	void **p = realloc(w->p, (size_t)nslot * sizeof *p);
	if (!p)
		return -1;
	w->p = p;
	size_t *cap = realloc(w->cap, (size_t)nslot * sizeof *cap);
	if (!cap)
		return -1;
	w->cap = cap;
	for (int s = w->n; s < nslot; s++) {
		w->p[s] = NULL;
		w->cap[s] = 0;
	}
	w->n = nslot;
	return 0;
}

/* Grown by an eighth more than asked, so that sizes that vary a little
 * from call to call (images, ranges) do not allocate each time. */
static void *grow(nbrt_work *w, int slot, size_t bytes, int keep)
{
	if (bytes <= w->cap[slot])
		return w->p[slot];
	size_t want = bytes + bytes / 8;
	void *p = keep ? realloc(w->p[slot], want) : NULL;
	if (!keep) {
		free(w->p[slot]);
		w->p[slot] = NULL;
		w->cap[slot] = 0;
		p = malloc(want);
	}
	if (!p)
		return NULL;
	w->p[slot] = p;
	w->cap[slot] = want;
	return p;
}

void *nbrt_work_take(nbrt_work *w, int slot, size_t bytes)
{
	if (!bytes)
		bytes = 1;
	if (!w)
		return malloc(bytes);
	if (nbrt_work_reserve(w, slot + 1))
		return NULL;
	return grow(w, slot, bytes, 0);
}

void *nbrt_work_keep(nbrt_work *w, int slot, void *old, size_t bytes)
{
	if (!bytes)
		bytes = 1;
	if (!w)
		return realloc(old, bytes);
	if (nbrt_work_reserve(w, slot + 1))
		return NULL;
	return grow(w, slot, bytes, 1);
}

void nbrt_work_give(const nbrt_work *w, void *p)
{
	if (!w)
		free(p);
}

void nbrt_work_free(nbrt_work *w)
{
	if (!w)
		return;
	for (int s = 0; s < w->n; s++)
		free(w->p[s]);
	free(w->p);
	free(w->cap);
	memset(w, 0, sizeof *w);
}

/* core.h: the running layer (core.c), under the tuner (tune.c) and the
 * API (api.c): a device opened on its back end, a kernel loaded on it,
 * and a kernel run on its bindings, as loaded or as a variant of another.
 * Nothing here chooses a variant: the layers above do. */
#ifndef NBRT_CORE_H
#define NBRT_CORE_H

#include "nbrt_impl.h"

/* The back end a device spec names by its spec or its target ("host" or
 * "c", "amdil"); NULL: the spec is OpenCL's. */
const struct nbrt_backend *nbrt_backend_named(const char *spec);
/* The back end that runs target's kernels; NULL: none does. */
const struct nbrt_backend *nbrt_backend_of(const char *target);

/* nbrt_open_nth and nbrt_close (nbrt.h), for the API and for the tuner's
 * other path to this CPU. */
nbrt *nbrt_core_open(const char *spec, int nth, char **err);
void nbrt_core_close(nbrt *rt);

/* Loads a kernel as nbrt_load_source says (a .nbl keeps its text in
 * k->src, for the variants compiled from it), with no j-split of its
 * own per run; NULL with the message set. */
nbrt_kernel *nbrt_core_load(nbrt *rt, const char *name, const char *src,
                            size_t len, const nb_options *opts);
/* Frees what nbrt_core_load made; the layers above free their own
 * variants (k->alt, k->tuned) first. */
void nbrt_core_free(nbrt_kernel *k);

/* Every array of k bound (to enough values for ni, nj), every CONST
 * set: 0, or -1 with the message naming the first that is not. */
int nbrt_core_ready(nbrt_kernel *k, size_t ni, size_t nj);
/* ready's last check alone: no result bound over an input (0, or -1
 * with the message naming the two). */
int nbrt_core_overlap(nbrt_kernel *k, size_t ni, size_t nj);
/* Runs k as loaded on its bindings: every one checked, the run cut into
 * launches, timed. */
int nbrt_core_run(nbrt_kernel *k, size_t ni, size_t nj);
/* Runs a block-sparse plan with variant a of k (k itself, or a kernel of
 * the same interface with the ranges entry) on k's bindings, as
 * nbrt_run_variant runs a variant. */
int nbrt_core_run_ranges(nbrt_kernel *k, nbrt_kernel *a, size_t ni,
                         size_t nj, const nbrt_rplan *p);
/* Runs a plan of Newton's third law over n elements with variant a of k
 * (k itself, or a kernel of the same interface) on k's bindings. */
int nbrt_core_run_pairs(nbrt_kernel *k, nbrt_kernel *a, size_t n,
                        const nbrt_nplan *p);
/* Runs variant a of k (a kernel of the same interface) on k's bindings,
 * its times and launches k's; k->last is a. */
int nbrt_run_variant(nbrt_kernel *k, nbrt_kernel *a, size_t ni, size_t nj);

#endif

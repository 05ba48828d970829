/* tune.h: the tuner (tune.c), above the running layer (core.h), as the
 * API (api.c) asks it for each run's variant. */
#ifndef NBRT_TUNE_H
#define NBRT_TUNE_H

#include "core.h"

/* The variant the tuner keeps for a run of ni x nj: NULL with *err 0
 * when the kernel runs as loaded, NULL with *err -1 on a failure. */
nbrt_kernel *nbrt_tuned_variant(nbrt_kernel *k, size_t ni, size_t nj,
                                int *err);
/* Frees the variants kept (k->tuned). */
void nbrt_tune_free(nbrt_kernel *k);

#endif

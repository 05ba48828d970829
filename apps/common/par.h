/* par.h: bin/nbrun, bin/nbody and bin/oneloop across MPI ranks
 * (docs/mpi.md): the i-range split, the exchanges, and failures that end
 * every rank.  Built without NB_MPI (no Open MPI), or started without an
 * MPI launcher, the program is one rank and every call here is trivial. */
#ifndef PAR_H
#define PAR_H

#include <stddef.h>
#include <stdint.h>

/* Starts MPI when an MPI launcher (mpirun, srun) started the program, and
 * checks that every rank was given the same arguments (a rank whose
 * differ says so).  Returns 0, or 1 after that rank's message: the
 * caller then returns par_end(1). */
int par_init(int argc, char **argv);
/* Ends MPI; returns rc, for `return par_end(rc);` in main. */
int par_end(int rc);

int par_rank(void);
int par_size(void);
/* The rank among those on this node: $OMPI_COMM_WORLD_LOCAL_RANK, or
 * Slurm's $SLURM_LOCALID, else 0 (what picks each rank's device); -1,
 * the value refused by prog_fail, where one is no integer from 0. */
int par_local_rank(void);
/* The ranks on this node: $OMPI_COMM_WORLD_LOCAL_SIZE, or under srun
 * this node's entry ($SLURM_NODEID) of $SLURM_STEP_TASKS_PER_NODE or
 * $SLURM_TASKS_PER_NODE ("4(x2),3"; a malformed or short list is passed
 * over), or $SLURM_NTASKS_PER_NODE, else 1 (what shares the node's cores
 * among its ranks); -1 as par_local_rank where a number is refused. */
int par_local_size(void);
/* An error message (without "PROG: error: "): printed at once by one
 * rank; under MPI kept until par_agree or par_end, which print each
 * distinct message once: "PROG: error: rank R: MSG", or without the rank
 * where every rank failed alike.  prog_fail hands it here where MPI
 * runs several ranks (prog_sink). */
void par_error(const char *msg);

/* Rank `rank`'s part [lo, hi) of n elements: n / P each, the first
 * n % P ranks one more (ranks beyond n get none). */
void par_range(size_t n, int rank, size_t *lo, size_t *hi);

/* Every rank calls it after a step that may fail (rc != 0 on failure,
 * the rank's message given).  Returns rc where this rank failed, so its
 * caller unwinds as it would alone (its messages shown, see par_error);
 * where another rank failed, this one
 * ends at once, quietly (status 0: the job's status is the failing
 * rank's), so that no rank waits forever for one that is gone. */
int par_agree(int rc);

/* Collectives on every rank.  par_bcast: n bytes from rank 0.
 * par_gather: buf holds n elements of `size` bytes; each rank's
 * par_range part goes to rank 0's buf (to every rank's where `all`).
 * par_max: each of v[0..n) becomes its largest over the ranks. */
void par_bcast(void *buf, size_t n);
void par_gather(void *buf, size_t n, size_t size, int all);
void par_max(double *v, int n);
/* Seconds this rank spent in par_gather and par_bcast so far. */
double par_comm_time(void);

/* 0 where rank 0's digest equals this rank's; else 1, after this rank's
 * message msg.  Collective; follow with par_agree. */
int par_same(uint64_t digest, const char *msg);
/* FNV-1a of n bytes, continuing from h (start with PAR_FNV). */
#define PAR_FNV 0xcbf29ce484222325ULL
uint64_t par_digest(uint64_t h, const void *p, size_t n);

#endif

/* par.c: the MPI layer of the programs (par.h, docs/mpi.md).  With NB_MPI
 * (make MPI=1, or Open MPI found by pkg-config) it calls MPI; without, it
 * is one rank.  MPI starts only under a launcher, so a program run alone
 * behaves, and costs, as if it had no MPI at all. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>
#include "nbcc.h"
#include "opt.h"
#include "par.h"
#include "prog.h"
#ifdef NB_MPI
#include <mpi.h>
#endif

static int rank, size = 1;
static double tcomm;
/* this rank's error messages since the last par_agree, each ended by a
 * null character (a message may have lines of its own) */
static char *kept;
static size_t nkept;

uint64_t par_digest(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

void par_range(size_t n, int r, size_t *lo, size_t *hi)
{
	size_t p = (size_t)size, q = n / p, m = n % p, k = (size_t)r;
	*lo = k * q + (k < m ? k : m);
	*hi = *lo + q + (k < m);
}

int par_rank(void)
{
	return rank;
}

int par_size(void)
{
	return size;
}

void par_error(const char *msg)
{
	if (size == 1) {
		prog_error_line("", msg);
		return;
	}
	size_t n = strlen(msg);
	char *k = realloc(kept, nkept + n + 1);
	if (!k) { /* the message matters more than its merging */
		prog_error_line("", msg);
		return;
	}
	kept = k;
	memcpy(kept + nkept, msg, n + 1);
	nkept += n + 1;
}

/* A launcher's number in $name, read as the runtime reads its NBRT_*
 * switches (nbrt_env_int): unset or empty, 0 (as absent); a whole
 * decimal from lo to INT_MAX, 1; anything else is refused by name, -1.
 * atoi took "1x" as 1, "-3" as a rank, 2^32 + 1 as 1, so a garbled rank
 * silently took another rank's GPU. */
static int launcher_int(const char *name, long lo, int *v)
{
	const char *e = getenv(name);
	if (!e || !*e)
		return 0;
	long x;
	if (opt_long(e, strlen(e), &x) || x < lo || x > INT_MAX) {
		prog_fail("%s='%s': it must be an integer from %ld to %d (what "
		          "the MPI launcher or Slurm sets)", name, nb_esc(e), lo,
		          INT_MAX);
		return -1;
	}
	*v = (int)x;
	return 1;
}

int par_local_rank(void)
{
	int r = 0, k = launcher_int("OMPI_COMM_WORLD_LOCAL_RANK", 0, &r);
	if (!k)
		k = launcher_int("SLURM_LOCALID", 0, &r);
	return k < 0 ? -1 : r;
}

/* Node `node`'s count in Slurm's tasks-per-node list, "4(x2),3": 4 on
 * nodes 0 and 1, 3 on node 2; 0 where the list is malformed or short. */
static long slurm_tasks(const char *list, long node)
{
	for (const char *p = list; *p;) {
		char *e;
		long n = strtol(p, &e, 10), times = 1;
		if (e == p || n < 1)
			return 0;
		if (!strncmp(e, "(x", 2)) {
			p = e + 2;
			times = strtol(p, &e, 10);
			if (e == p || times < 1 || *e != ')')
				return 0;
			e++;
		}
		if (node < times)
			return n;
		node -= times;
		if (*e != ',')
			return 0;
		p = e + 1;
	}
	return 0;
}

int par_local_size(void)
{
	int n = 0, k = launcher_int("OMPI_COMM_WORLD_LOCAL_SIZE", 0, &n);
	if (k)
		return k < 0 ? -1 : n > 0 ? n : 1;
	/* srun: this step's tasks on each node (the allocation's may be
	 * more), indexed by this node's number; --ntasks-per-node's alone
	 * where neither list is there */
	int node = 0;
	k = launcher_int("SLURM_NODEID", 0, &node);
	if (k < 0)
		return -1;
	static const char *const lists[] = {
		"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE",
	};
	for (size_t i = 0; k && i < sizeof lists / sizeof lists[0]; i++) {
		const char *l = getenv(lists[i]);
		long t = l ? slurm_tasks(l, node) : 0;
		if (t > 0)
			return t < INT_MAX ? (int)t : INT_MAX;
	}
	k = launcher_int("SLURM_NTASKS_PER_NODE", 0, &n);
	return k < 0 ? -1 : n > 0 ? n : 1;
}

double par_comm_time(void)
{
	return tcomm;
}

#ifdef NB_MPI

static int on; /* MPI_Init was called */

/* The kept messages, with `who` before each. */
static void put_kept(const char *who)
{
	for (char *p = kept; p && p < kept + nkept; p += strlen(p) + 1)
		prog_error_line(who, p);
	free(kept);
	kept = NULL;
	nkept = 0;
}

/* What Open MPI's mpirun, PMIx (srun --mpi=pmix) and the PMI of MPICH and
 * Slurm set in every process they start. */
static int launched(void)
{
	static const char *const env[] = {
		"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
	};
	for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
		if (getenv(env[i]))
			return 1;
	return 0;
}

/* Ranks on one node share its cores: each takes its part for the host
 * back end's OpenMP threads and PoCL's, unless the user set them.  (With
 * every rank's threads spinning on all the cores, 3 ranks of a short
 * Hermite run on 2 cores took 50 s, against 1.8 s.) */
static int share_cores(void)
{
	long local = par_local_size(), cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (local < 0)
		return 1;
	if (local <= 1 || cores < 1)
		return 0;
	long each = cores / local > 1 ? cores / local : 1;
	char n[32];
	snprintf(n, sizeof n, "%ld", each);
	if (!getenv("OMP_NUM_THREADS"))
		omp_set_num_threads((int)each);
	setenv("POCL_MAX_PTHREAD_COUNT", n, 0);
	return 0;
}

int par_init(int argc, char **argv)
{
	if (!launched())
		return 0;
	int ok = 0;
	if (MPI_Initialized(&ok) != MPI_SUCCESS || ok ||
	    MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		fprintf(stderr, "%s: error: MPI_Init failed\n", prog_name);
		exit(1);
	}
	on = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > 1) /* every message is kept until the ranks agree */
		prog_sink = par_error;
	int bad = share_cores();
	/* a rank with other arguments would go its own way and leave the
	 * rest waiting in a collective it never reaches */
	uint64_t h = PAR_FNV;
	for (int i = 0; i < argc; i++)
		h = par_digest(h, argv[i], strlen(argv[i]) + 1);
	int rc = par_same(h, "its arguments differ from rank 0's "
	                     "(every rank must run the same command)");
	return par_agree(bad || rc);
}

static void put_mine(void)
{
	char who[32];
	snprintf(who, sizeof who, "rank %d: ", rank);
	put_kept(who);
}

int par_end(int rc)
{
	put_mine(); /* messages no par_agree saw */
	if (on) {
		fflush(NULL);
		MPI_Finalize();
		on = 0;
	}
	return rc;
}

int par_agree(int rc)
{
	if (size == 1)
		return rc;
	/* the first failing rank's messages are shown once, without a rank
	 * where every rank failed alike, else with it; another failing
	 * rank's own are shown where they differ */
	int first = rc ? rank : size;
	MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == size) {
		put_mine();
		return rc;
	}
	unsigned long long len = rank == first ? nkept : 0;
	MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, first, MPI_COMM_WORLD);
	char *text = rank == first ? kept : malloc(len + 1);
	if (!text)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Bcast(text, (int)len, MPI_CHAR, first, MPI_COMM_WORLD);
	if (rank != first) /* kept has no room past nkept, and may be NULL */
		text[len] = 0;
	int alike = rc && nkept == len && (!len || !memcmp(kept, text, len));
	int same = alike;
	MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank != first)
		free(text);
	if (rank == first && same == size)
		put_kept("");
	else if (rc && (rank == first || !alike))
		put_mine();
	/* status 0: mpirun names a failing rank as the first to fail, and
	 * the job's status is still that rank's */
	if (!rc)
		exit(par_end(0));
	free(kept);
	kept = NULL;
	nkept = 0;
	return rc;
}

void par_bcast(void *buf, size_t n)
{
	if (size == 1)
		return;
	double t0 = prog_now();
	/* counts are int: a large file goes in parts */
	for (size_t off = 0; off < n; off += (size_t)1 << 30) {
		size_t m = n - off < (size_t)1 << 30 ? n - off : (size_t)1 << 30;
		MPI_Bcast((char *)buf + off, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
	}
	tcomm += prog_now() - t0;
}

void par_gather(void *buf, size_t n, size_t esize, int all)
{
	if (size == 1)
		return;
	double t0 = prog_now();
	int *cnt = malloc(2 * (size_t)size * sizeof *cnt);
	MPI_Datatype t;
	/* counts and displacements are int: the kernels' int indices keep
	 * n below 2^31 */
	if (!cnt || n > (size_t)INT_MAX ||
	    MPI_Type_contiguous((int)esize, MPI_BYTE, &t) != MPI_SUCCESS ||
	    MPI_Type_commit(&t) != MPI_SUCCESS) {
		fprintf(stderr, "%s: error: rank %d: cannot exchange %zu "
		        "elements\n", prog_name, rank, n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int *disp = cnt + size;
	for (int r = 0; r < size; r++) {
		size_t lo, hi;
		par_range(n, r, &lo, &hi);
		cnt[r] = (int)(hi - lo);
		disp[r] = (int)lo;
	}
	char *mine = (char *)buf + (size_t)disp[rank] * esize;
	if (all)
		MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, cnt, disp, t,
		               MPI_COMM_WORLD);
	else if (rank == 0)
		MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, cnt, disp, t, 0,
		            MPI_COMM_WORLD);
	else
		MPI_Gatherv(mine, cnt[rank], t, NULL, NULL, NULL, t, 0,
		            MPI_COMM_WORLD);
	MPI_Type_free(&t);
	free(cnt);
	tcomm += prog_now() - t0;
}

void par_max(double *v, int n)
{
	if (size > 1)
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX,
		              MPI_COMM_WORLD);
}

int par_same(uint64_t digest, const char *msg)
{
	if (size == 1)
		return 0;
	unsigned long long d = digest;
	MPI_Bcast(&d, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
	if (d == digest)
		return 0;
	par_error(msg);
	return 1;
}

#else /* one rank */

int par_init(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	/* P copies of the whole run, each writing the same files, is not
	 * what mpirun -np P was asked for */
	int n = 1, k = launcher_int("OMPI_COMM_WORLD_SIZE", 1, &n);
	if (k < 0)
		return 1;
	if (n > 1)
		return prog_fail("built without MPI, so mpirun's %d ranks would "
		                 "each run alone: rebuild with make MPI=1 "
		                 "(docs/mpi.md)", n);
	return 0;
}

int par_end(int rc)
{
	return rc;
}

int par_agree(int rc)
{
	return rc;
}

void par_bcast(void *buf, size_t n)
{
	(void)buf;
	(void)n;
}

void par_gather(void *buf, size_t n, size_t esize, int all)
{
	(void)buf;
	(void)n;
	(void)esize;
	(void)all;
}

void par_max(double *v, int n)
{
	(void)v;
	(void)n;
}

int par_same(uint64_t digest, const char *msg)
{
	(void)msg;
	(void)digest;
	return 0;
}

#endif

/* snap_fork.c: a reader of files of bodies run in a child process
 * (snap_apart, snap.h).  libhdf5 has memory errors that a damaged file
 * reaches inside the library (issue 28, item 23), which no check of ours
 * before the call can rule out: the child reads under limits of memory and
 * CPU time and sends the bodies back over a pipe, and the parent takes
 * only what passes its own bounds.  A fault of the library ends the child,
 * never nbody; the child leaves by _exit, so the library's own leaks on
 * its error paths end with it. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nbcc.h"
#include "snap.h"

/* AddressSanitizer reserves terabytes of shadow at start: a limit on the
 * data segment would stop it, so sanitized builds limit CPU time only. */
#if defined(__SANITIZE_ADDRESS__)
#define NO_DATA_LIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_DATA_LIMIT 1
#endif
#endif
#ifdef NO_DATA_LIMIT
const int snap_apart_data_limit = 0;
#else
const int snap_apart_data_limit = 1;
#endif

/* What the child sends first; then errn bytes of message (rc -1), or the
 * columns of mask (bit k: col[k], bit SC_N: the IDs), n values each. */
typedef struct Head {
	uint64_t magic, n, mask, errn;
	int64_t rc;
	snap_info info;
} Head;
enum { ID_BIT = SC_N };
_Static_assert(sizeof(double) == 8 && sizeof(uint64_t) == 8, "8-byte values");
static const uint64_t MAGIC = 0x6e626f6479736e70u; /* "nbodysnp" */

static int in_child; /* snap_apart_allow acts only there */
void (*snap_apart_child)(void);

/* Raises (or first sets) the soft limit of the child's data segment to
 * `extra` bytes beyond `base`, never past the hard limit. */
static void data_limit(size_t base, size_t extra)
{
#ifndef NO_DATA_LIMIT
	struct rlimit r;
	if (getrlimit(RLIMIT_DATA, &r))
		return;
	rlim_t want = (rlim_t)(base > SIZE_MAX - extra ? SIZE_MAX : base + extra);
	if (r.rlim_max != RLIM_INFINITY && want > r.rlim_max)
		want = r.rlim_max;
	r.rlim_cur = want;
	setrlimit(RLIMIT_DATA, &r);
#else
	(void)base;
	(void)extra;
#endif
}

/* The data segment now (Linux's /proc/self/statm, in pages): 0 where it
 * cannot be read, and then no limit is set. */
static size_t data_now(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long v[6];
	int k = f ? fscanf(f, "%lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2],
	                   &v[3], &v[4], &v[5]) : 0;
	if (f)
		fclose(f);
	long page = sysconf(_SC_PAGESIZE);
	return k == 6 && page > 0 ? (size_t)v[5] * (size_t)page : 0;
}

void snap_apart_allow(size_t bytes)
{
	struct rlimit r;
	if (!in_child || getrlimit(RLIMIT_DATA, &r) || r.rlim_cur == RLIM_INFINITY)
		return;
	data_limit((size_t)r.rlim_cur, bytes);
}

/* All n bytes through fd, written or read; -1 at an error or the end of
 * the pipe */
static int move(int fd, void *p, size_t n, int out)
{
	char *c = p;
	while (n) {
		ssize_t k = out ? write(fd, c, n) : read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static int put(int fd, const void *p, size_t n)
{
	return move(fd, (void *)p, n, 1);
}

static int get(int fd, void *p, size_t n)
{
	return move(fd, p, n, 0);
}

static void child(int fd, snap_reader read, const void *arg, size_t max_n,
                  size_t budget, double cpu_s, char *err, size_t errlen)
{
	in_child = 1;
	if (snap_apart_child)
		snap_apart_child();
	/* the parent's handlers remove its temporaries (tmpfiles.c): no
	 * signal that ends the child may, of every one they catch (the CPU
	 * limit's, a parent gone, a SIGTERM to the child alone) */
	nb_tmp_child();
	struct rlimit r = {0, 0};
	setrlimit(RLIMIT_CORE, &r); /* a crash leaves no core file behind */
	r.rlim_cur = (rlim_t)cpu_s;
	r.rlim_max = r.rlim_cur + 5; /* SIGXCPU first, SIGKILL after */
	setrlimit(RLIMIT_CPU, &r);
	size_t base = data_now();
	if (base)
		data_limit(base, budget);
	snap_data d;
	err[0] = 0;
	int rc = read(arg, max_n, &d, err, errlen);
	Head h = {.magic = MAGIC, .rc = rc ? -1 : 0};
	if (rc)
		h.errn = strnlen(err, errlen - 1);
	else {
		h.n = d.n;
		h.info = d.info;
		for (int k = 0; k < SC_N; k++)
			h.mask |= d.col[k] ? (uint64_t)1 << k : 0;
		h.mask |= d.id ? (uint64_t)1 << ID_BIT : 0;
	}
	int bad = put(fd, &h, sizeof h) || put(fd, err, (size_t)h.errn);
	for (int k = 0; !rc && !bad && k < SC_N; k++)
		bad = d.col[k] && put(fd, d.col[k], d.n * sizeof(double));
	if (!rc && !bad && d.id)
		bad = put(fd, d.id, d.n * sizeof *d.id);
	_exit(bad ? 3 : 0);
}

/* The parent's side: the child's Head and arrays into d, checked.
 * 0 read, 1 refused (err says why), -1 the pipe ended early (the child
 * is gone), -2 what came is not what a reader can have read. */
enum { TAKEN, REFUSED = 1, CUT = -1, WRONG = -2 };
static int take(int fd, const char *path, size_t max_n, snap_data *d,
                char *err, size_t errlen)
{
	Head h;
	if (get(fd, &h, sizeof h))
		return CUT;
	if (h.magic != MAGIC)
		return WRONG;
	if (h.rc) {
		if (h.rc != -1 || h.errn >= errlen)
			return WRONG;
		if (get(fd, err, (size_t)h.errn))
			return CUT;
		err[h.errn] = 0;
		if (!h.errn) /* a reader's refusal always says why */
			return WRONG;
		return REFUSED;
	}
	uint64_t bodies = ((uint64_t)1 << (SC_M + 1)) - 1;
	if (h.n < 1 || h.n > max_n || (h.mask & bodies) != bodies ||
	    (h.mask >> (ID_BIT + 1)) != 0 || h.errn ||
	    !memchr(h.info.ic, 0, sizeof h.info.ic) ||
	    !memchr(h.info.icfile, 0, sizeof h.info.icfile) ||
	    !memchr(h.info.integrator, 0, sizeof h.info.integrator))
		return WRONG;
	d->n = (size_t)h.n;
	d->info = h.info;
	for (int k = 0; k <= ID_BIT; k++) {
		if (!(h.mask >> k & 1))
			continue;
		void *a = malloc(d->n * 8); /* doubles, or the IDs */
		if (!a)
			return snap_fail(err, errlen, "%s: out of memory for %zu bodies",
			                 path, d->n), REFUSED;
		if (k < SC_N)
			d->col[k] = a;
		else
			d->id = a;
		if (get(fd, a, d->n * 8))
			return CUT;
	}
	char end;
	return get(fd, &end, 1) == 0 ? WRONG : TAKEN; /* nothing more */
}

int snap_apart(snap_reader read, const void *arg, const char *path,
               const char *what, size_t max_n, size_t budget, double cpu_s,
               snap_data *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	int fd[2];
	if (pipe(fd))
		return snap_fail(err, errlen, "%s: cannot make a pipe to read it "
		                 "through: %s", path, strerror(errno));
	fflush(NULL); /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fd[0]);
		close(fd[1]);
		return snap_fail(err, errlen, "%s: cannot start the process that "
		                 "reads it: %s", path, strerror(e));
	}
	if (pid == 0) {
		close(fd[0]);
		child(fd[1], read, arg, max_n, budget, cpu_s, err, errlen);
	}
	close(fd[1]);
	int rc = take(fd[0], path, max_n, d, err, errlen);
	if (rc != TAKEN && rc != CUT)
		kill(pid, SIGKILL); /* it may be blocked on a full pipe */
	close(fd[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (rc == TAKEN && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	snap_data_free(d);
	if (rc == REFUSED)
		return -1;
	if (rc == WRONG)
		return snap_fail(err, errlen, "%s: the %s reader sent back what it "
		                 "cannot have read: a damaged file?", path, what);
	if (sig == SIGXCPU || sig == SIGKILL)
		return snap_fail(err, errlen, "%s: the %s reader took more than %.0f s "
		                 "of CPU time, or was killed: a damaged file?", path,
		                 what, cpu_s);
	if (sig)
		return snap_fail(err, errlen, "%s: the %s reader died of signal %d "
		                 "(%s) on it: a damaged file?", path, what, sig,
		                 strsignal(sig));
	return snap_fail(err, errlen, "%s: the %s reader failed on it (exit "
	                 "status %d): a damaged file?", path, what,
	                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* cpudev.h: whether this machine has an OpenCL CPU device (PoCL), for
 * unit tests that run there too and exit 77 (skipped, for tests/run.sh)
 * without one.  Asked in a child, so that the test's process has not
 * started OpenCL when Check forks the tests. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nbrt.h"

/* 1 when there is no OpenCL CPU device. */
static inline int cpu_missing(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0)
		_exit(nbrt_open("cpu", NULL) ? 0 : 77);
	int st;
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 77;
}

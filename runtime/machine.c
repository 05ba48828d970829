/* machine.c: what this process may use of the machine it runs on, and a
 * clock.  Kept apart from the runtime's run-size checks (nbrt_mem.c) so the
 * CSV reader, and its fuzz target, can size reads without the runtime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "nbrt_impl.h"

/* Seconds on a clock that never steps back: for timings and progress. */
double nbrt_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A "Key:   N kB" line of a /proc file, in bytes; -1 when absent. */
static double proc_kb(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[256];
	size_t n = strlen(key);
	double v = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			v = 1024 * strtod(line + n + 1, NULL);
			break;
		}
	fclose(f);
	return v;
}

/* One number in a file (a cgroup's memory.max: "max" is no limit). */
static double file_number(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char s[64] = "";
	double v = -1;
	if (fgets(s, sizeof s, f) && s[0] >= '0' && s[0] <= '9')
		v = strtod(s, NULL);
	fclose(f);
	return v;
}

/* What the memory cgroup (v2) of this process has left, -1 for no limit. */
static double cgroup_left(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return -1;
	char line[512], dir[700];
	double left = -1;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		char path[800];
		snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", line + 3);
		snprintf(path, sizeof path, "%s/memory.max", dir);
		double max = file_number(path);
		snprintf(path, sizeof path, "%s/memory.current", dir);
		double cur = file_number(path);
		if (max >= 0 && cur >= 0)
			left = max > cur ? max - cur : 0;
	}
	fclose(f);
	return left;
}

double nbrt_host_memory(void)
{
	double avail = proc_kb("/proc/meminfo", "MemAvailable");
	if (avail < 0) {
		long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
		avail = pages > 0 && size > 0 ? (double)pages * (double)size : 0;
	}
	double cg = cgroup_left();
	if (cg >= 0 && cg < avail)
		avail = cg;
	/* ulimit -v counts address space, which is mapped already in part */
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		double used = proc_kb("/proc/self/status", "VmSize");
		double left = (double)rl.rlim_cur - (used > 0 ? used : 0);
		if (left < 0)
			left = 0;
		if (left < avail)
			avail = left;
	}
	return avail;
}

void nbrt_format_bytes(char *buf, size_t len, double bytes)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB",
	                                   "PiB", "EiB"};
	int u = 0;
	while (u < 6 && bytes >= 1024) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f bytes", bytes);
	else
		snprintf(buf, len, "%.*f %s",
		         bytes < 10 && bytes != (double)(long)bytes ? 1 : 0, bytes,
		         unit[u]);
}

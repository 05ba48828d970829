/* cache.c: the on-disk cache of compiled programs, below both back ends:
 * where it lives, the keys and digests that name and seal its entries, and
 * reading and writing them with the checks that make them safe to load. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nbrt_impl.h"

int nbrt_key_add(nbrt_key *k, const char *s, size_t n)
{
	char len[32];
	int l = snprintf(len, sizeof len, "%zu:", n);
	if (k->len + (size_t)l + n + 1 > k->cap) {
		size_t cap = (k->len + (size_t)l + n + 1) * 2;
		char *p = realloc(k->s, cap);
		if (!p)
			return -1;
		k->s = p;
		k->cap = cap;
	}
	memcpy(k->s + k->len, len, (size_t)l);
	memcpy(k->s + k->len + l, s, n);
	k->len += (size_t)l + n;
	k->s[k->len] = 0;
	return 0;
}

/* 128 bits from two unrelated 64-bit hashes (FNV-1a and a multiply-xor
 * mix), plenty to name cache files; OpenCL entries also hold their whole
 * key, so even a collision only costs a rebuild. */
static void hash128(const char *s, size_t n, char out[33])
{
	uint64_t a = 0xcbf29ce484222325u, b = 0x9e3779b97f4a7c15u ^ n;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		a = (a ^ c) * 0x100000001b3u;
		b = (b ^ c) * 0xff51afd7ed558ccdu;
		b ^= b >> 29;
	}
	b ^= b >> 33;
	b *= 0xc4ceb9fe1a85ec53u;
	b ^= b >> 33;
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)a,
	         (unsigned long long)b);
}

void nbrt_key_hash(const nbrt_key *k, char out[33])
{
	hash128(k->s ? k->s : "", k->len, out);
}

void nbrt_digest(const void *data, size_t len, char out[33])
{
	hash128(len ? data : "", len, out);
}

char *nbrt_cache_path(const nbrt *rt, const nbrt_key *k, const char *ext)
{
	if (!rt->cache || !k->s)
		return NULL;
	char h[33];
	hash128(k->s, k->len, h);
	return nbrt_aprintf("%s/%s%s", rt->cache, h, ext);
}

/* Only files of our own that nobody else may write are loaded: a cached
 * shared object is code we run. */
int nbrt_cache_trusted(const char *path)
{
	struct stat st;
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

char *nbrt_cache_read(const char *path, size_t *len)
{
	if (!path || !nbrt_cache_trusted(path))
		return NULL;
	char err[256];
	return nb_read_file(path, len, err, sizeof err);
}

void nbrt_cache_write(const nbrt *rt, const char *path, const void *data,
                      size_t len)
{
	char err[512];
	if (!path)
		return;
	/* 0600 from its creation, whatever the umask: no one else ever
	 * holds a descriptor to write it, and nbrt_cache_trusted loads it */
	if (nb_write_file_mode(path, data, len, NB_OUT_PRIVATE, err,
	                       sizeof err)) {
		nbrt_note(rt, "not cached: %s", err);
		return;
	}
	nbrt_note(rt, "cached %s", nb_esc(path));
}

/* mkdir -p, private to the user. */
static int mkdirs(char *dir)
{
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		int r = mkdir(dir, 0700);
		*p = c;
		if (r && errno != EEXIST)
			return -1;
		if (!c)
			return 0;
	}
}

/* A usable cache directory is ours and writable by us alone, so no one
 * else can plant a program in it.  Returns NULL, or why not. */
static const char *unusable_dir(const char *dir)
{
	struct stat st;
	if (stat(dir, &st))
		return strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "not a directory";
	if (st.st_uid != geteuid())
		return "owned by another user";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "others may write in it (chmod go-w to use it)";
	if (access(dir, W_OK | X_OK))
		return strerror(errno);
	return NULL;
}

char *nbrt_cache_choose(void)
{
	const char *off = getenv("NBRT_CACHE");
	if (off && strcmp(off, "0") == 0)
		return NULL;
	const char *e;
	char *dir = NULL;
	if ((e = getenv("NBRT_CACHE_DIR")) && *e)
		dir = strdup(e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e == '/')
		dir = nbrt_aprintf("%s/nbcc", e);
	else if ((e = getenv("HOME")) && *e == '/')
		dir = nbrt_aprintf("%s/.cache/nbcc", e);
	if (!dir)
		return NULL;
	const char *why = mkdirs(dir) ? strerror(errno) : unusable_dir(dir);
	if (why) {
		/* said once a process, verbose or not: a cache that is off
		 * costs every run a rebuild, with no other sign of it */
		static int told;
		if (!told++)
			fprintf(stderr, "nbrt: warning: cache directory '%s' not "
			        "used: %s; kernels are rebuilt each run (NBRT_CACHE=0 "
			        "turns the cache off quietly)\n", nb_esc(dir), why);
		free(dir);
		return NULL;
	}
	return dir;
}

/* cache.c: the on-disk cache of compiled programs, below both back ends:
 * where it lives, the keys and digests that name and seal its entries, and
 * reading and writing them with the checks that make them safe to load. */
#include <errno.h>
#include <fcntl.h>
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

/* Where the interface's source line lies in code nbcc wrote ([*at, *end),
 * its newline included), when leaving it out of a key is safe: the text
 * opens a block comment holding the interface, and up to the end of that
 * line holds no comment end, no backslash (a line splice) and no "??" (a
 * trigraph).  The line is then a whole line inside an open comment, with
 * none spliced to it, so cutting it leaves every token of the code as it
 * was.  nbcc escapes a path's backslashes, "*" "/" and trigraphs with a
 * backslash, so a path holding any of them keeps its line in the key. */
static int source_line(const char *code, size_t len, size_t *at, size_t *end)
{
	size_t lim = len < 4096 ? len : 4096;
	if (lim < 2 || memcmp(code, "/*", 2) != 0)
		return 0;
	int iface = 0;
	for (size_t i = 0, sol = 0; i < lim; i++) {
		char c = code[i];
		if (c == '\\' || (c == '?' && i + 1 < lim && code[i + 1] == '?') ||
		    (c == '*' && i > 1 && i + 1 < lim && code[i + 1] == '/'))
			return 0;
		if (c != '\n')
			continue;
		/* the interface's lines as nbcc writes them for C and OpenCL C */
		const char *l = code + sol;
		size_t n = i - sol;
		if (n == 3 + sizeof NB_IFACE_MAGIC - 1 &&
		    memcmp(l, " * " NB_IFACE_MAGIC, n) == 0)
			iface = 1;
		else if (iface && n > 10 && memcmp(l, " * source ", 10) == 0) {
			*at = sol;
			*end = i + 1;
			return 1;
		} else if (iface && n == 6 && memcmp(l, " * end", 6) == 0)
			return 0;
		sol = i + 1;
	}
	return 0;
}

int nbrt_key_add_code(nbrt_key *k, const char *code, size_t len)
{
	size_t at, end;
	if (!source_line(code, len, &at, &end))
		return nbrt_key_add(k, code, len);
	/* two fields where a whole text is one: length prefixes keep the
	 * lists apart */
	return nbrt_key_add(k, code, at) ||
	       nbrt_key_add(k, code + end, len - end);
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

/* An entry is its data, then the whole key it was made for, then this
 * trailer: the key's length and the digest of data and key.  So an entry
 * copied over another's name, cut short or damaged is never used (the
 * digest alone would let a sound entry of another key pass), and the data
 * comes first, where the loader looks for a shared object's image. */
#define TRAILER_MAGIC "\nnbrt-cache 1 "
#define TRAILER_LEN (sizeof TRAILER_MAGIC - 1 + 16 + 1 + 32 + 1)
/* far above any program or binary; a larger file is not ours */
#define ENTRY_MAX ((size_t)1 << 30)

/* The whole of a regular file of ours that no one else may write, read
 * without following a link or blocking on a FIFO at its name. */
static char *read_private(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	              O_NOCTTY);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *d = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size < 0 ||
	    (size_t)st.st_size > ENTRY_MAX ||
	    !(d = malloc((size_t)st.st_size + 1)))
		goto fail;
	size_t n = 0, want = (size_t)st.st_size;
	while (n < want) {
		ssize_t r = read(fd, d + n, want - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto fail; /* cut short meanwhile: not the entry we saw */
		n += (size_t)r;
	}
	close(fd);
	d[n] = 0;
	*len = n;
	return d;
fail:
	free(d);
	close(fd);
	return NULL;
}

char *nbrt_cache_get(const nbrt *rt, const char *path, const nbrt_key *k,
                     size_t *len)
{
	size_t n;
	char *d = path ? read_private(path, &n) : NULL;
	if (!d)
		return NULL;
	char sum[33], *t = d + (n >= TRAILER_LEN ? n - TRAILER_LEN : 0);
	unsigned long long kl = 0;
	int ok = n >= TRAILER_LEN &&
	         memcmp(t, TRAILER_MAGIC, sizeof TRAILER_MAGIC - 1) == 0 &&
	         sscanf(t + sizeof TRAILER_MAGIC - 1, "%16llx", &kl) == 1 &&
	         kl == k->len && kl <= n - TRAILER_LEN &&
	         memcmp(t - kl, k->s, kl) == 0;
	if (ok) {
		nbrt_digest(d, (size_t)(t - d), sum);
		ok = memcmp(t + TRAILER_LEN - 33, sum, 32) == 0;
	}
	if (!ok) {
		nbrt_note(rt, "cache entry %s is damaged or another key's: "
		          "ignored", nb_esc(path));
		free(d);
		return NULL;
	}
	*len = n - TRAILER_LEN - (size_t)kl;
	d[*len] = 0;
	return d;
}

/* Never through the rules of users' output files (outfile.c), which
 * write through a link or into a FIFO: an entry is made private and
 * whole under a name of our own, then renamed over whatever the entry's
 * name held. */
void nbrt_cache_put(const nbrt *rt, const char *path, const nbrt_key *k,
                    const void *data, size_t len)
{
	if (!path || !rt->cache)
		return;
	char *tmp = nbrt_aprintf("%s/.tmp-XXXXXX", rt->cache);
	char *all = malloc(len + k->len + TRAILER_LEN + 1);
	int fd = tmp && all ? mkstemp(tmp) : -1; /* 0600, O_EXCL */
	int slot = fd >= 0 ? nb_tmp_add(tmp) : -1;
	const char *why = fd >= 0 ? NULL : tmp && all ? strerror(errno) :
	                  "out of memory";
	if (!why) {
		memcpy(all, data, len);
		memcpy(all + len, k->s, k->len);
		char sum[33];
		nbrt_digest(all, len + k->len, sum);
		snprintf(all + len + k->len, TRAILER_LEN + 1,
		         TRAILER_MAGIC "%016llx %s\n", (unsigned long long)k->len,
		         sum);
		size_t n = 0, want = len + k->len + TRAILER_LEN;
		while (n < want && !why) {
			ssize_t w = write(fd, all + n, want - n);
			if (w < 0 && errno != EINTR)
				why = strerror(errno);
			else if (w > 0)
				n += (size_t)w;
		}
	}
	if (fd >= 0 && close(fd) && !why)
		why = strerror(errno);
	if (!why && rename(tmp, path))
		why = strerror(errno);
	if (why) {
		if (fd >= 0)
			unlink(tmp);
		nbrt_note(rt, "not cached %s: %s", nb_esc(path), why);
	} else {
		nbrt_note(rt, "cached %s", nb_esc(path));
	}
	nb_tmp_drop(slot);
	free(all);
	free(tmp);
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

/* outfile.c: the one way nbcc, nbrun and nbody write an output file, so that
 * neither a failure nor another user's planted file can clobber a file.
 *
 * The rules, by what the path names when it is opened:
 *   - nothing yet, or a regular file: the data goes to a temporary made
 *     exclusively (mkstemp) in the same directory, which replaces the path
 *     by a rename once complete; a failure removes the temporary and leaves
 *     the old file as it was.  The temporary gets 0666 less the umask, as
 *     a file created by open would (NB_OUT_PRIVATE: 0600, for the cache).
 *   - a FIFO, a character or block device: written straight (so
 *     "-o /dev/null" leaves /dev/null a device), never created nor
 *     truncated; it is refused if it turns out to be a regular file once
 *     open (someone swapped it meanwhile).
 *   - the file open as our standard output or error ("-o /dev/stdout",
 *     whatever that is: a pipe, a tty, a regular file): written through
 *     that descriptor, so its offset and append mode hold and later output
 *     is not lost on a replaced file.  "-" is standard output too.
 *   - a symbolic link: never replaced.  It is resolved (realpath) and the
 *     rules above apply to its target, a regular target being replaced in
 *     its own directory; a link to nothing is refused.
 *   - a directory or anything else: refused. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nbcc.h"

static mode_t file_mode(void)
{
	/* umask can only be read by setting it; done once, before any
	 * thread of ours creates files */
	static int known;
	static mode_t m;
	if (!known) {
		m = umask(022);
		umask(m);
		known = 1;
	}
	return 0666 & ~m;
}

static int same_file(const struct stat *a, int fd)
{
	struct stat b;
	return fstat(fd, &b) == 0 && a->st_dev == b.st_dev &&
	       a->st_ino == b.st_ino;
}

static int failf(nb_out *o, char *err, size_t errlen, const char *what,
                 const char *path, int e)
{
	snprintf(err, errlen, "%s '%s': %s", what, nb_esc(path), strerror(e));
	nb_out_abort(o);
	return -1;
}

/* The temporary beside `path`: ".NAME.XXXXXX" in its directory (NAME cut
 * short so that the temporary's name stays within NAME_MAX). */
static int make_temp(nb_out *o, int flags)
{
	const char *slash = strrchr(o->path, '/');
	size_t dl = slash ? (size_t)(slash - o->path) + 1 : 0;
	const char *base = o->path + dl;
	size_t n = dl + 200 + 16;
	o->tmp = malloc(n);
	if (!o->tmp) {
		errno = ENOMEM;
		return -1;
	}
	snprintf(o->tmp, n, "%.*s.%.200s.XXXXXX", (int)dl, o->path, base);
	int fd = mkstemp(o->tmp);
	if (fd < 0)
		return -1;
	if (!(flags & NB_OUT_PRIVATE) && fchmod(fd, file_mode())) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		errno = e;
		return -1;
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int nb_out_open(nb_out *o, const char *path, int flags, char *err,
                size_t errlen)
{
	memset(o, 0, sizeof *o);
	if (errlen)
		err[0] = 0;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		o->std = 1;
		return 0;
	}
	if (!(o->name = strdup(path)))
		return failf(o, err, errlen, "cannot write", path, errno);
	struct stat st, lst;
	int have = stat(path, &st) == 0;
	for (int fd = 1; have && fd <= 2; fd++) {
		if (!same_file(&st, fd))
			continue;
		fflush(fd == 1 ? stdout : stderr); /* what went before first */
		int d = dup(fd);
		o->f = d >= 0 ? fdopen(d, "wb") : NULL;
		if (!o->f) {
			int e = errno;
			if (d >= 0)
				close(d);
			return failf(o, err, errlen, "cannot write", path, e);
		}
		return 0;
	}
	if (lstat(path, &lst)) {
		if (errno != ENOENT)
			return failf(o, err, errlen, "cannot write", path, errno);
		o->path = strdup(path);
	} else if (S_ISLNK(lst.st_mode)) {
		if (!have) {
			snprintf(err, errlen, "'%s' is a symbolic link to nothing: "
			         "not replaced", nb_esc(path));
			nb_out_abort(o);
			return -1;
		}
		o->path = S_ISREG(st.st_mode) ? realpath(path, NULL) :
		          strdup(path);
	} else {
		st = lst;
		o->path = strdup(path);
	}
	if (!o->path)
		return failf(o, err, errlen, "cannot write", path, errno);
	if (have && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "'%s' is a directory", nb_esc(path));
		nb_out_abort(o);
		return -1;
	}
	if (have && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
	             S_ISBLK(st.st_mode))) {
		int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		struct stat now;
		if (fd >= 0 && (fstat(fd, &now) || S_ISREG(now.st_mode) ||
		                S_ISDIR(now.st_mode))) {
			close(fd);
			fd = -1;
			errno = EEXIST;
		}
		o->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
		if (!o->f) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return failf(o, err, errlen, "cannot write", path, e);
		}
		free(o->path);
		o->path = NULL;
		return 0;
	}
	if (have && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is neither a file nor a device: not "
		         "written", nb_esc(path));
		nb_out_abort(o);
		return -1;
	}
	if (make_temp(o, flags))
		return failf(o, err, errlen, "cannot create a temporary beside",
		             path, errno);
	return 0;
}

int nb_out_commit(nb_out *o, char *err, size_t errlen)
{
	int bad = ferror(o->f) || fflush(o->f) != 0;
	int e = errno;
	if (o->std) {
		memset(o, 0, sizeof *o);
		if (bad)
			snprintf(err, errlen, "cannot write to standard output: %s",
			         strerror(e));
		return bad ? -1 : 0;
	}
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (!bad && o->tmp && rename(o->tmp, o->path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		if (o->tmp)
			unlink(o->tmp);
		snprintf(err, errlen, "cannot write '%s': %s", nb_esc(o->name),
		         strerror(e));
	}
	free(o->tmp);
	free(o->path);
	free(o->name);
	memset(o, 0, sizeof *o);
	return bad ? -1 : 0;
}

void nb_out_abort(nb_out *o)
{
	if (o->f && !o->std)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o->name);
	memset(o, 0, sizeof *o);
}

int nb_write_file_mode(const char *path, const char *data, size_t len,
                       int flags, char *err, size_t errlen)
{
	nb_out o;
	if (nb_out_open(&o, path, flags, err, errlen))
		return -1;
	if (len && fwrite(data, 1, len, o.f) != len) {
		int e = errno;
		nb_out_abort(&o);
		snprintf(err, errlen, "cannot write '%s': %s", nb_esc(path),
		         strerror(e));
		return -1;
	}
	return nb_out_commit(&o, err, errlen);
}

int nb_write_file(const char *path, const char *data, size_t len, char *err,
                  size_t errlen)
{
	return nb_write_file_mode(path, data, len, 0, err, errlen);
}

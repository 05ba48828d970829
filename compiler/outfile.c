/* outfile.c: the one way nbcc, nbrun and nbody write an output file, so that
 * neither a failure nor another user's planted file can clobber a file, and
 * a replaced file keeps what its user expects of it (as coreutils does).
 *
 * The rules, by what the path names when it is opened:
 *   - nothing yet: the data goes to a temporary made exclusively (mkstemp)
 *     in the same directory, which a rename makes the file once complete;
 *     it gets 0666 less the umask, as a file created by open would
 *     (NB_OUT_PRIVATE: 0600).
 *   - a regular file: it must be writable by us, as cp requires (a 0444
 *     file is refused).  It is replaced the same way by a temporary given
 *     its mode, owner and group before any data; where a replacement
 *     cannot keep them (it has other hard links, its directory is not
 *     writable, another owner we cannot give the temporary), the data is
 *     gathered in an unnamed temporary file and written over it in place
 *     once complete.  A failure before that leaves the old file as it
 *     was.
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
 *   - a file this process has read as an input (nb_in_note: every file
 *     nb_read_file reads, once nb_in_guard was called, as every program's
 *     opt_parse does): refused, when opened and again when the data would
 *     replace it, as gcc and cp refuse to write over their input.
 *   - a directory or anything else: refused.
 * A temporary is removed if a fatal signal ends the process (tmpfiles.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nbcc.h"

/* The inputs read so far, by device and inode, once a program has asked
 * for it: in a library's long-lived process (Python, a user's program),
 * a file read an hour ago is no reason to refuse writing it now. */
static struct in_file {
	dev_t dev;
	ino_t ino;
} *inputs;
static size_t ninputs, capinputs;
static int guarding;
static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;

void nb_in_guard(void)
{
	pthread_mutex_lock(&inputs_lock);
	guarding = 1;
	pthread_mutex_unlock(&inputs_lock);
}

void nb_in_note(int fd)
{
	struct stat st;
	pthread_mutex_lock(&inputs_lock);
	int on = guarding;
	pthread_mutex_unlock(&inputs_lock);
	if (!on || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	pthread_mutex_lock(&inputs_lock);
	size_t i = 0;
	while (i < ninputs && (inputs[i].dev != st.st_dev ||
	                       inputs[i].ino != st.st_ino))
		i++;
	if (i == ninputs && ninputs == capinputs) {
		size_t cap = capinputs ? 2 * capinputs : 8;
		struct in_file *p = realloc(inputs, cap * sizeof *p);
		if (p) {
			inputs = p;
			capinputs = cap;
		}
	}
	if (i == ninputs && ninputs < capinputs)
		inputs[ninputs++] = (struct in_file){st.st_dev, st.st_ino};
	pthread_mutex_unlock(&inputs_lock);
}

static int is_input(const struct stat *st)
{
	int r = 0;
	pthread_mutex_lock(&inputs_lock);
	for (size_t i = 0; i < ninputs && !r; i++)
		r = inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino;
	pthread_mutex_unlock(&inputs_lock);
	return r;
}

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

/* Empty, as after nb_out_commit or nb_out_abort: a second abort is a
 * no-op. */
static void reset(nb_out *o)
{
	memset(o, 0, sizeof *o);
	o->slot = o->fd = -1;
}

static int failf(nb_out *o, char *err, size_t errlen, const char *what,
                 const char *path, int e)
{
	snprintf(err, errlen, "%s '%s': %s", what, nb_esc(path), strerror(e));
	nb_out_abort(o);
	return -1;
}

static int refuse_input(nb_out *o, char *err, size_t errlen)
{
	snprintf(err, errlen, "'%s' is an input of this run: not overwritten",
	         nb_esc(o->name));
	nb_out_abort(o);
	return -1;
}

/* The temporary beside `path`: ".NAME.XXXXXX" in its directory (NAME cut
 * short so that the temporary's name stays within NAME_MAX), with the
 * mode a new file gets or, replacing the file `old`, its mode, owner and
 * group.  Returns its descriptor, or -1 with errno (EPERM: `old`'s owner
 * cannot be given to it). */
static int make_temp(nb_out *o, int flags, const struct stat *old)
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
	if (fd < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
		return -1;
	}
	o->slot = nb_tmp_add(o->tmp);
	/* the owner before the mode: chown clears the set-id bits */
	int bad = old ? (old->st_uid != geteuid() || old->st_gid != getegid()) &&
	                fchown(fd, old->st_uid, old->st_gid) :
	          0;
	if (!bad)
		bad = fchmod(fd, old ? old->st_mode & 07777 :
		                 flags & NB_OUT_PRIVATE ? 0600 : file_mode());
	if (bad) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		nb_tmp_drop(o->slot);
		o->slot = -1;
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
		return -1;
	}
	return fd;
}

/* An existing regular file at o->path (st): replaced by a temporary
 * where that keeps its mode, owner and links, else written in place. */
static int open_regular(nb_out *o, int flags, const struct stat *st,
                        char *err, size_t errlen)
{
	int fd = open(o->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return failf(o, err, errlen, "cannot write", o->name, errno);
	if (!same_file(st, fd)) {
		close(fd);
		return failf(o, err, errlen, "cannot write", o->name, EEXIST);
	}
	int t = st->st_nlink > 1 ? -1 : make_temp(o, flags, st);
	if (t >= 0) {
		close(fd);
		if (!(o->f = fdopen(t, "wb"))) {
			int e = errno;
			close(t);
			return failf(o, err, errlen, "cannot write", o->name, e);
		}
		return 0;
	}
	if (st->st_nlink <= 1 && errno != EACCES && errno != EPERM &&
	    errno != EROFS) {
		int e = errno;
		close(fd);
		return failf(o, err, errlen, "cannot create a temporary beside",
		             o->name, e);
	}
	/* in place: staged whole first, so a failure while writing leaves
	 * the file as it was */
	o->fd = fd;
	if (!(o->f = tmpfile()))
		return failf(o, err, errlen, "cannot stage the output for",
		             o->name, errno);
	return 0;
}

int nb_out_open(nb_out *o, const char *path, int flags, char *err,
                size_t errlen)
{
	reset(o);
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
	if (have && is_input(&st))
		return refuse_input(o, err, errlen);
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
	if (have)
		return open_regular(o, flags, &st, err, errlen);
	int fd = make_temp(o, flags, NULL);
	if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return failf(o, err, errlen, "cannot create a temporary beside",
		             path, e);
	}
	return 0;
}

/* The staged data over the file o->fd, from its start. */
static int copy_in_place(nb_out *o)
{
	char buf[65536];
	off_t at = 0;
	rewind(o->f);
	for (size_t k; (k = fread(buf, 1, sizeof buf, o->f)) > 0;) {
		for (size_t d = 0; d < k;) {
			ssize_t w = pwrite(o->fd, buf + d, k - d, at);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			d += (size_t)w;
			at += w;
		}
	}
	if (ferror(o->f)) {
		errno = EIO;
		return -1;
	}
	return ftruncate(o->fd, at);
}

int nb_out_commit(nb_out *o, char *err, size_t errlen)
{
	int bad = ferror(o->f) || fflush(o->f) != 0;
	int e = errno;
	if (o->std) {
		reset(o);
		if (bad)
			snprintf(err, errlen, "cannot write to standard output: %s",
			         strerror(e));
		return bad ? -1 : 0;
	}
	/* an input read since the output was opened */
	struct stat st;
	if (!bad && ((o->fd >= 0 && fstat(o->fd, &st) == 0) ||
	             (o->fd < 0 && o->tmp && stat(o->path, &st) == 0)) &&
	    is_input(&st))
		return refuse_input(o, err, errlen);
	if (o->fd >= 0) {
		if (!bad && copy_in_place(o)) {
			bad = 1;
			e = errno;
		}
		if (close(o->fd) && !bad) {
			bad = 1;
			e = errno;
		}
		o->fd = -1;
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
	nb_tmp_drop(o->slot);
	free(o->tmp);
	free(o->path);
	free(o->name);
	reset(o);
	return bad ? -1 : 0;
}

void nb_out_abort(nb_out *o)
{
	if (o->f && !o->std)
		fclose(o->f);
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	nb_tmp_drop(o->slot);
	free(o->tmp);
	free(o->path);
	free(o->name);
	reset(o);
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

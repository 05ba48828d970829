/* capture.h: what the runtime's unit tests do around a call that they
 * change the environment of or read the notes of: a variable's value
 * kept and put back (env_keep, env_back), and the call's stderr, where
 * NBRT_VERBOSE's notes go, read back (capture_start, capture_end). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* $name's value, copied (NULL: unset), for env_back. */
static inline char *env_keep(const char *name)
{
	const char *v = getenv(name);
	return v ? strdup(v) : NULL;
}

/* $name put back as env_keep found it; was freed. */
static inline void env_back(const char *name, char *was)
{
	if (was)
		setenv(name, was, 1);
	else
		unsetenv(name);
	free(was);
}

/* stderr from capture_start to capture_end, into a temporary file. */
typedef struct Capture {
	FILE *f;
	int fd; /* the stderr put back at the end */
} Capture;

/* 0, or -1 where stderr could not be redirected. */
static inline int capture_start(Capture *c)
{
	fflush(stderr);
	c->f = tmpfile();
	c->fd = c->f ? dup(2) : -1;
	if (c->fd < 0 || dup2(fileno(c->f), 2) != 2) {
		if (c->f)
			fclose(c->f);
		return -1;
	}
	return 0;
}

/* stderr put back; what was written since the start into text[cap],
 * cut to fit and ended by a NUL. */
static inline void capture_end(Capture *c, char *text, size_t cap)
{
	fflush(stderr);
	dup2(c->fd, 2);
	close(c->fd);
	rewind(c->f);
	size_t n = fread(text, 1, cap - 1, c->f);
	text[n] = 0;
	fclose(c->f);
}

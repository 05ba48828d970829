/* jobs.c: the reader of nbrun --jobs files (jobs.h): each line an
 * argument vector, by the part of sh's quoting that scripts write, so
 * that a test builds and runs many kernels in one process. */
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "jobs.h"

typedef struct Line {
	const char *path, *s; /* the line s[0..n), CR and LF cut */
	size_t n;
	int no;
} Line;

static int bad(const Line *l, size_t at, const char *msg, char **err)
{
	*err = csv_error_at(l->path, l->no, l->s, l->n, at, msg);
	return -1;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/* One word from l->s[*p], its quotes taken off, into buf (l->n + 1
 * bytes suffice: a word only shrinks); its length in *wl. */
static int word(const Line *l, size_t *p, char *buf, size_t *wl, char **err)
{
	size_t i = *p, k = 0;
	while (i < l->n && !blank(l->s[i])) {
		char c = l->s[i];
		if (c == '\'' || c == '"') {
			const char *e = memchr(l->s + i + 1, c, l->n - i - 1);
			if (!e)
				return bad(l, i, c == '\'' ? "unterminated '...'"
				           : "unterminated \"...\"", err);
			size_t m = (size_t)(e - (l->s + i + 1));
			memcpy(buf + k, l->s + i + 1, m);
			k += m;
			i += m + 2;
		} else if (c == '\\') {
			if (i + 1 == l->n)
				return bad(l, i, "a backslash ends the line (a job is "
				           "one line)", err);
			buf[k++] = l->s[i + 1];
			i += 2;
		} else {
			buf[k++] = c;
			i++;
		}
	}
	buf[k] = 0;
	*wl = k;
	*p = i;
	return 0;
}

static void job_free(job *j)
{
	for (int e = 0; e < j->nenv; e++)
		free(j->env[e]);
	free(j->env);
	for (int a = 0; j->argv && a < j->argc; a++)
		free(j->argv[a]);
	free(j->argv);
	free(j->out);
	free(j->err);
	memset(j, 0, sizeof *j);
}

static int oom(char **err)
{
	*err = strdup("out of memory reading the jobs\n");
	return -1;
}

/* The length of an assignment's NAME at s[0..n) (its '=' follows), else 0. */
static size_t assignment(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && (s[k] == '_' || (s[k] >= 'a' && s[k] <= 'z') ||
	                 (s[k] >= 'A' && s[k] <= 'Z') ||
	                 (k && s[k] >= '0' && s[k] <= '9')))
		k++;
	return k && k < n && s[k] == '=' ? k : 0;
}

/* Appends w (malloc'd; freed on failure) to the vector *vec of *n words,
 * kept NULL-terminated (argv needs it; env is counted). */
static int push(char ***vec, int *n, char *w, char **err)
{
	char **v = realloc(*vec, sizeof *v * (size_t)(*n + 2));
	if (!v) {
		free(w);
		return oom(err);
	}
	*vec = v;
	v[(*n)++] = w;
	v[*n] = NULL;
	return 0;
}

/* The words of one line into j (argv[0] "nbrun"; argc 1 for a blank or
 * comment line).  On failure j is freed. */
static int parse_line(const Line *l, job *j, char *buf, char **err)
{
	memset(j, 0, sizeof *j);
	j->line = l->no;
	const char *nul = memchr(l->s, 0, l->n);
	if (nul)
		return bad(l, (size_t)(nul - l->s), "a NUL byte", err);
	char *w0 = strdup("nbrun");
	if (!w0 || push(&j->argv, &j->argc, w0, err))
		return w0 ? -1 : oom(err);
	size_t p = 0;
	for (;;) {
		while (p < l->n && blank(l->s[p]))
			p++;
		if (p == l->n || l->s[p] == '#')
			break;
		size_t at = p, wl, name = j->argc == 1 ?
		                  assignment(l->s + p, l->n - p) : 0;
		char **to = NULL;
		if (name) {
			memcpy(buf, l->s + p, name + 1);
			p += name + 1;
		} else if (l->s[p] == '>') {
			to = &j->out;
			p++;
		} else if (l->s[p] == '2' && p + 1 < l->n && l->s[p + 1] == '>') {
			to = &j->err;
			p += 2;
		}
		int rc = word(l, &p, buf + (name ? name + 1 : 0), &wl, err);
		wl += name ? name + 1 : 0;
		if (!rc && to && *to)
			rc = bad(l, at, "this output is redirected already", err);
		if (!rc && to && !wl)
			rc = bad(l, at, "a redirection needs a file name: >PATH or "
			         "2>PATH", err);
		char *w = rc ? NULL : malloc(wl + 1);
		if (!rc && !w)
			rc = oom(err);
		if (!rc) {
			memcpy(w, buf, wl + 1);
			if (to)
				*to = w;
			else
				rc = name ? push(&j->env, &j->nenv, w, err)
			          : push(&j->argv, &j->argc, w, err);
		}
		if (rc) {
			job_free(j);
			return -1;
		}
	}
	if (j->argc == 1 && (j->out || j->err || j->nenv)) {
		job_free(j);
		return bad(l, 0, "a job of redirections and assignments only: "
		           "give nbrun's arguments", err);
	}
	return 0;
}

int jobs_parse(const char *path, const char *text, size_t len, job **jobs,
               int *n, char **err)
{
	*jobs = NULL;
	*n = 0;
	*err = NULL;
	size_t p = 0;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		p = 3;
	char *buf = malloc(len + 1);
	if (!buf)
		return oom(err);
	job *v = NULL;
	int nv = 0, rc = 0;
	for (int no = 1; p < len && !rc; no++) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - text) : len;
		Line l = {path, text + p, e - p, no};
		if (l.n && l.s[l.n - 1] == '\r')
			l.n--;
		job j;
		rc = parse_line(&l, &j, buf, err);
		if (!rc && j.argc == 1)
			job_free(&j);
		else if (!rc) {
			job *g = realloc(v, sizeof *g * (size_t)(nv + 1));
			if (!g) {
				job_free(&j);
				rc = oom(err);
			} else {
				v = g;
				v[nv++] = j;
			}
		}
		p = e + 1;
	}
	free(buf);
	if (rc) {
		jobs_free(v, nv);
		return -1;
	}
	*jobs = v;
	*n = nv;
	return 0;
}

int jobs_read(const char *path, job **jobs, int *n, char **err)
{
	size_t len;
	*jobs = NULL;
	*n = 0;
	char *text = csv_read_text(path, &len, err);
	if (!text)
		return -1;
	int rc = jobs_parse(strcmp(path, "-") ? path : "<stdin>", text, len,
	                    jobs, n, err);
	free(text);
	return rc;
}

void jobs_free(job *jobs, int n)
{
	for (int i = 0; i < n; i++)
		job_free(&jobs[i]);
	free(jobs);
}

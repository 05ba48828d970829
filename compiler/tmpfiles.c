/* tmpfiles.c: the temporaries this process holds (output files being
 * written, cache entries, the host back end's build directory), removed
 * when a fatal signal ends it: SIGINT, SIGTERM, SIGXFSZ from a file size
 * limit, and the like would otherwise leave them behind. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nbcc.h"

/* A fixed table, so that the handler reads it without a lock or malloc;
 * a process holds a few temporaries at a time (one per output being
 * written, three per kernel being built). */
#define NSLOT 64
static char *_Atomic slot[NSLOT];
static atomic_int installed;

static void on_signal(int sig)
{
	int e = errno;
	/* the files first, then the directories they were in */
	for (int i = 0; i < NSLOT; i++) {
		char *p = atomic_load(&slot[i]);
		if (p)
			unlink(p);
	}
	for (int i = 0; i < NSLOT; i++) {
		char *p = atomic_load(&slot[i]);
		if (p)
			rmdir(p);
	}
	errno = e;
	/* SA_RESETHAND put the default back; SA_NODEFER lets it act now */
	raise(sig);
}

static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
                           SIGXCPU, SIGXFSZ};

/* Only where the signal would kill us anyway: a program's own handler
 * or an ignored signal (Python's SIGINT, a shell's SIGPIPE) is left as
 * it is. */
static void install(void)
{
	if (atomic_exchange(&installed, 1))
		return;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigaction(sigs[i], &sa, NULL);
	}
}

int nb_tmp_add(const char *path)
{
	install();
	char *p = strdup(path);
	if (!p)
		return -1;
	for (int i = 0; i < NSLOT; i++) {
		char *none = NULL;
		if (atomic_compare_exchange_strong(&slot[i], &none, p))
			return i;
	}
	free(p);
	return -1;
}

void nb_tmp_drop(int i)
{
	if (i >= 0 && i < NSLOT)
		free(atomic_exchange(&slot[i], NULL));
}

/* The slots first: a signal between the two steps finds nothing to
 * remove.  Only this file's handlers go; a program's own stay. */
void nb_tmp_child(void)
{
	for (int i = 0; i < NSLOT; i++)
		free(atomic_exchange(&slot[i], NULL));
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		if (!sigaction(sigs[i], NULL, &old) && !(old.sa_flags & SA_SIGINFO) &&
		    old.sa_handler == on_signal)
			signal(sigs[i], SIG_DFL);
	}
}

/* fuzz_hdf5.c: the libFuzzer target for bin/nbody's HDF5 reader
 * (apps/nbody/snap_hdf5_read.c), the outside input of --ic and --restart
 * FILE.hdf5.  The reader runs libhdf5 in a child process (snap_fork.c),
 * as nbody does, so the target checks what nbody relies on: its own
 * process never faults; a refusal names the file; what is read has 1 to
 * 1000 bodies, the seven columns of the bodies and a name of the model
 * that is a string; snap_check accepts it or says why.  A fault of libhdf5
 * in the child is a refusal here, not a finding: libhdf5 1.10.8 has such
 * faults (issue 28 item 23), and nbody contains them.  Coverage is the
 * parent's only, so this is a mutation loop over the seeds more than a
 * guided search.  Seeds: tests/fuzz/corpus/hdf5 (nbody's snapshots of
 * both integrators, a GADGET-style file without /Header, the issue's
 * damaged snapshot). */
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "snap.h"

/* libFuzzer's crash handlers and the sanitizer's death callback write
 * the parent's input as a crash artifact: in the child they would count
 * a contained fault as a finding */
static void in_child(void)
{
	__sanitizer_set_death_callback(NULL);
	static const int sigs[] = {SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV,
	                           SIGINT, SIGTERM, SIGUSR1, SIGUSR2};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	snap_apart_child = in_child;
	char err[1024] = "";
	snap_data d;
	if (snap_parse_hdf5("fuzz.hdf5", data, size, 1000, &d, err,
	                    sizeof err)) {
		if (strncmp(err, "fuzz.hdf5: ", 11) != 0)
			abort();
		return 0;
	}
	if (d.n == 0 || d.n > 1000 || d.line || !memchr(d.info.ic, 0,
	                                               sizeof d.info.ic))
		abort();
	for (int k = 0; k <= SC_M; k++)
		if (!d.col[k])
			abort();
	err[0] = 0;
	if (snap_check(&d, "fuzz.hdf5", 0, err, sizeof err) && !err[0])
		abort();
	snap_data_free(&d);
	return 0;
}

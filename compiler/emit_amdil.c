/* emit_amdil.c: the AMD IL back end (paper 001 programmed Cypress in IL).
 * Not written yet: choosing it is reported as an error, never as output. */
#include "emit.h"

static void il_emit(const Func *f, const nb_iface *fc, Buf *out)
{
	(void)fc;
	(void)out;
	error_file(f->ctx, "the AMD IL back end (.il, --target=amdil) is not "
	           "implemented yet; use .cl or .c");
}

const Target target_amdil = {"amdil", ".il", NULL, il_emit};

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

/* Interface files naming amdil have always meant the bare kernel name as
 * their entry; the rest waits for the back end. */
const Target target_amdil = {
	.name = "amdil", .ext = ".il", .lang = "AMD IL",
	.entry_suffix = "", .emit = il_emit,
};

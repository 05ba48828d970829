/* emit_amdil.c: the AMD IL back end (paper 001 programmed Cypress in IL).
 * Not written yet: choosing it is reported as an error, never as output.
 * The record layout of its kernel ABI (docs/amdil.md) is here already,
 * for the runtime that feeds the kernels. */
#include "emit.h"

/* A role's elements are records in one raw UAV: its variables in
 * declaration order, each at the next offset that is a multiple of its
 * size (float 4, double 8, dd 16 as hi then lo), the record padded to a
 * multiple of 16 bytes, so that every 16-byte chunk is one aligned
 * four-dword load and no value straddles two. */
size_t nb_il_record(const nb_iface *f, nb_role role, long *off)
{
	size_t at = 0;
	for (int v = 0; v < f->nvar; v++) {
		off[v] = -1;
		if (f->var[v].role != role)
			continue;
		size_t sz = (size_t)nb_prec_scalars(f->var[v].type) *
		            nb_prec_scalar_bytes(f->var[v].type);
		at = (at + sz - 1) / sz * sz;
		off[v] = (long)at;
		at += sz;
	}
	return (at + 15) / 16 * 16;
}

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

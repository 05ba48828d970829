/* abi.c: the record layout of the AMD IL kernel ABI (docs/amdil.md, "The
 * kernel ABI"), nb_il_record of nbcc.h: the one statement of it, which the
 * amdil back end writes its loads and stores by and the runtime's amdil
 * device packs its UAVs by (through libnbcc's API).  It lays out nbcc's
 * interface, so it is the compiler's, not il/'s: il/ knows no nbcc.h. */
#include "nbcc.h"

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

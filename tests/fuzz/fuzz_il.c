/* fuzz_il.c: the libFuzzer target for the AMD IL reader (nb_il_read,
 * il/ilread.c) and, on what it accepts, the interpreter (nb_il_run,
 * il/ilexec.c) with a bounded number of steps.  The input is the
 * program.  Beyond not crashing or leaking: a refusal carries a
 * "fuzz.il:LINE: error:" message; an accepted program is well formed
 * (it ends in end, every operand names a row of the register file, every
 * jump lands inside the program); a run that fails says why.  Seeds:
 * tests/cases/il's programs, good and malformed (tests/fuzz/seeds.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "il.h"

static void check(const IlProg *p)
{
	if (p->nins < 1 || p->ins[p->nins - 1].op != IL_END || p->group < 1 ||
	    p->ntemp > p->nreg)
		abort();
	for (int k = 0; k < p->nins; k++) {
		const IlIns *in = &p->ins[k];
		const IlOpInfo *o = &il_ops[in->op];
		int dst = o->shape != SH_COND && o->shape != SH_FLOW;
		if (in->op >= IL_NOP || in->mask > 15 || !in->mask != !dst ||
		    in->line < 1)
			abort();
		for (int s = 0; s < o->nsrc; s++)
			if (in->src[s].reg >= (uint32_t)p->nreg)
				abort();
		if (dst && o->shape != SH_STORE && in->dst >= (uint32_t)p->ntemp)
			abort();
		int jumps = in->op == IL_WHILE || in->op == IL_ENDLOOP ||
		            in->op == IL_BREAK || in->op == IL_BREAKZ ||
		            in->op == IL_BREAKNZ || in->op == IL_IFZ ||
		            in->op == IL_IFNZ || in->op == IL_ELSE ||
		            in->op == IL_ENDIF;
		if (jumps && (in->match < 0 || in->match >= p->nins))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	IlProg *p = nb_il_read((const char *)data, size, "fuzz.il", err, sizeof err);
	if (!p) {
		if (strncmp(err, "fuzz.il:", 8) != 0 || !strstr(err, ": error: "))
			abort();
		return 0;
	}
	check(p);
	IlMem m;
	memset(&m, 0, sizeof m);
	static unsigned char uav[IL_NUAV][64];
	static uint32_t cb[IL_NCB][4 * IL_MAXCB];
	for (int u = 0; u < IL_NUAV; u++) {
		memset(uav[u], 0, sizeof uav[u]);
		m.uav[u] = uav[u];
		m.uavlen[u] = p->uavs >> u & 1 ? sizeof uav[u] : 0;
	}
	for (int k = 0; k < IL_NCB; k++) {
		for (int e = 0; e < 4 * p->cbsize[k]; e++)
			cb[k][e] = (uint32_t)e * 0x9e3779b9u;
		m.cb[k] = cb[k];
		m.cblen[k] = (size_t)p->cbsize[k];
	}
	uint64_t n = p->group < 8 ? (uint64_t)p->group : 8;
	err[0] = 0;
	if (nb_il_run(p, &m, 0, n, 20000, err, sizeof err) &&
	    strncmp(err, "fuzz.il:", 8) != 0)
		abort();
	nb_il_free(p);
	return 0;
}

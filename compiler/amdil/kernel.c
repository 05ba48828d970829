/* kernel.c: the amdil Target and its emit: the kernel as a compute shader
 * (il_cs_2_0, docs/amdil.md): PRE once per work item of NI i-elements, the
 * j loops (split or not), the stores; then declarations, literals, code. */
#include <math.h>
#include <stdlib.h>
#include "amdil.h"

/* "xi +0, yi +4" */
static void record_text(E *e, Buf *out, nb_role role)
{
	int first = 1;
	for (int v = 0; v < e->f->nvar; v++)
		if (e->f->var[v].role == role) {
			buf_printf(out, "%s%s +%ld", first ? "" : ", ",
			           e->f->var[v].name, e->off[v]);
			first = 0;
		}
}

static int chunk_mask(E *e, int c)
{
	int mask = 0;
	for (int v = 0; v < e->f->nvar; v++)
		if (e->f->var[v].role == NB_RMEM && e->off[v] / 16 == c)
			mask |= var_mask(e, v);
	return mask;
}

/* Each accumulator set: per (lane, chunk) the chunk's RMEM values in one
 * temporary, in the record's order from component comp (a shift that
 * keeps doubles in pairs), so a store is one swizzle away.  Results of
 * one float pack four lanes into one temporary. */
static Opd *take_accs(E *e)
{
	int n = e->f->ni * e->nchunk;
	Opd *set = calloc((size_t)n + 1, sizeof *set);
	if (!set)
		ICE("out of memory");
	for (int i = 0; i < n; i++) {
		int m = chunk_mask(e, i % e->nchunk), step = 1;
		for (int v = 0; v < e->f->nvar; v++)
			if (e->f->var[v].role == NB_RMEM &&
			    e->off[v] / 16 == i % e->nchunk &&
			    width(e->f->var[v].type) > step)
				step = width(e->f->var[v].type);
		set[i].file = 'r';
		for (int r = 0, done = 0; !done; r++) {
			if (r == NREG) {
				ran_out(e);
				break;
			}
			for (int c = 0; c < 4 && !done; c += step)
				if (m << c < 16 && !(e->busy[r] & m << c)) {
					mark(e, r, m << c);
					set[i].n = r;
					set[i].comp = c;
					done = 1;
				}
		}
	}
	return set;
}

/* mov set to zero, or to another set */
static void set_acc(E *e, const Opd *to, const Opd *from)
{
	for (int i = 0; i < e->f->ni * e->nchunk; i++) {
		int m = chunk_mask(e, i % e->nchunk) << to[i].comp;
		emitf(e, "mov %s, %s", rmask(e, to[i].n, m),
		      from ? shifted(e, from[i], m, from[i].comp - to[i].comp) :
		      src(e, lit_i(e, 0), SW));
	}
}

/* r = s at p = 0, else r + s (dd: nb_dd_add): C's p ? r + s : s */
static void combine(E *e, Opd p)
{
	const Func *f = e->f;
	emitf(e, "if_logicalnz %s", src(e, p, S1));
	e->depth++;
	for (int l = 0; l < f->ni; l++)
		for (int v = 0; v < f->nvar; v++) {
			if (f->var[v].role != NB_RMEM)
				continue;
			Opd r = acc_at(e, e->acc, v, l), s = acc_at(e, e->part, v, l);
			int x = l * f->nvar + v;
			if (f->var[v].red > NB_COUNT)
				red_update(e, v, r, e->aux[x], s, e->paux[x]);
			else if (f->var[v].type == T_DD)
				dd_add(e, r, r, s);
			else if (f->var[v].type == T_F64)
				d3(e, "dadd", r, r, s);
			else
				emitf(e, "add %s, %s, %s", dst(e, r, 1), src(e, r, S1),
				      src(e, s, S1));
		}
	e->depth--;
	emitf(e, "else");
	e->depth++;
	set_acc(e, e->acc, e->part);
	for (int x = 0; x < f->ni * f->nvar; x++)
		if (e->aux[x].w)
			emitf(e, "mov %s, %s", dst(e, e->aux[x], e->aux[x].w),
			      src(e, e->paux[x], e->aux[x].w == 1 ? S1 :
			         e->aux[x].w == 2 ? SP : SW));
	e->depth--;
	emitf(e, "endif");
}

/* One loop over block blk ("body" or "tail"): while j + ahead < jend,
 * the block, then j += step. */
static void jloop(E *e, Opd jend, int blk, int ahead, int step)
{
	const char *name = blk == B_BODY ? "body" : "tail";
	emitf(e, "whileloop");
	e->depth++;
	Opd c = take(e, 1);
	if (ahead) {
		iop(e, "iadd", c, e->gj, lit_i(e, ahead));
		iop(e, "ilt", c, c, jend);
	} else {
		iop(e, "ilt", c, e->gj, jend);
	}
	emitf(e, "break_logicalz %s", src(e, c, S1));
	give(e, c);
	buf_printf(&e->code, "; j-loop %s\n", name);
	block_il(e, blk);
	buf_printf(&e->code, "; j-loop %s end\n", name);
	iop(e, "iadd", e->gj, e->gj, lit_i(e, step));
	e->depth--;
	emitf(e, "endloop");
}

/* The j loop: steps of NJ j-elements while a whole step fits, then the
 * tail one at a time (without a j-unroll, BODY is that loop).  Frees the
 * PRE values the tail does not need when the body loop ends. */
static void jloops(E *e, Opd jend)
{
	const Func *f = e->f;
	int nj = f->nj, t = f->jsplit;
	jloop(e, jend, B_BODY, (nj - 1) * t, nj * t);
	if (nj == 1)
		return;
	if (t == 1) /* a PRE value only the body reads is dead now */
		for (int k = 0; k < f->n; k++)
			if (e->loopuse[k] == 1 && e->rep[k] == k)
				give(e, e->val[k]);
	jloop(e, jend, B_TAIL, 0, t);
}

/* Stores each lane's results where i + lane <= ilast: r, or old + r when
 * cb0[1].x (accum) is set. */
static void stores(E *e)
{
	const Func *f = e->f;
	Opd i = take(e, 1), end = take(e, 1), a = take(e, 1), c = take(e, 1);
	emitf(e, "; results: r = accum ? old + r : r, for the lanes up to ilast");
	emitf(e, "imad %s, vAbsTidFlat.x, %s, cb0[0].z", dst(e, i, 1),
	      src(e, lit_i(e, f->ni), S1));
	emitf(e, "iadd %s, cb0[0].x, cb0[0].z", dst(e, end, 1));
	for (int l = 0; l < f->ni; l++) {
		Opd x = i;
		if (l) {
			iop(e, "iadd", a, i, lit_i(e, l));
			x = a;
		}
		iop(e, "ilt", c, x, end);
		emitf(e, "if_logicalnz %s", src(e, c, S1));
		e->depth++;
		iop(e, "imul", a, x, lit_i(e, (int32_t)e->rec[NB_RMEM]));
		for (int ch = 0; ch < e->nchunk; ch++) {
			Opd ad = a;
			if (ch) {
				ad = c; /* the lane's test is done with */
				iop(e, "iadd", ad, a, lit_i(e, 16 * ch));
			}
			Opd R = e->acc[l * e->nchunk + ch];
			int mask = chunk_mask(e, ch);
			emitf(e, "if_logicalnz cb0[1].x");
			e->depth++;
			int on = take_mask(e, mask);
			emitf(e, "uav_raw_load_id(2) %s, %s",
			      rmask(e, on, mask), src(e, ad, S1));
			for (int v = 0; v < f->nvar; v++) {
				if (f->var[v].role != NB_RMEM || e->off[v] / 16 != ch)
					continue;
				Opd r = acc_at(e, e->acc, v, l), old = r;
				old.n = on;
				old.comp -= R.comp;
				Type ty = f->var[v].type;
				nb_red red = f->var[v].red;
				/* an index is never resumed (nb_red_resumes) */
				if (red == NB_ARGMIN || red == NB_ARGMAX)
					continue;
				if (red > NB_COUNT)
					red_update(e, v, r, e->aux[l * f->nvar + v], old,
					           lit_t(e, ty, 1));
				else if (f->var[v].type == T_DD)
					dd_add(e, r, old, r);
				else if (f->var[v].type == T_F64)
					d3(e, "dadd", r, old, r);
				else
					emitf(e, "add %s, %s, %s", dst(e, r, 1),
					      src(e, old, S1), src(e, r, S1));
			}
			e->busy[on] &= (unsigned char)~mask;
			e->depth--;
			emitf(e, "endif");
			for (int v = 0; v < f->nvar; v++) {
				if (f->var[v].role != NB_RMEM || e->off[v] / 16 != ch)
					continue;
				Opd r = acc_at(e, e->acc, v, l);
				Opd X = e->aux[l * f->nvar + v];
				if (f->var[v].red == NB_ARGMIN ||
				    f->var[v].red == NB_ARGMAX) {
					itot(e, r, X, f->var[v].type);
				} else if (f->var[v].red == NB_LOGSUMEXP) {
					lse_end(e, r, X, f->var[v].type);
				}
			}
			emitf(e, "uav_raw_store_id(2) %s, %s, %s", masked(e, "mem", mask),
			      src(e, ad, S1), shifted(e, R, mask, R.comp));
		}
		e->depth--;
		emitf(e, "endif");
	}
	GIVE(e, i, end, a, c);
}

static void il_emit(const Func *f, const nb_iface *fc, Buf *out)
{
	/* the IL expands the accurate algorithms only */
	if (f->ctx->opt->dd_qd && ir_widest(f, 0) == T_DD) {
		error_file(f->ctx, "--dd=qd has no AMD IL form (only ddlib.h's "
		           "accurate dd arithmetic is expanded into IL); use the "
		           "c or opencl target");
		return;
	}
	if (refuse(f))
		return;
	E e = {0};
	e.f = f;
	e.fc = fc;
	size_t n = (size_t)(f->n ? f->n : 1), nv = (size_t)(f->nvar + 1);
	e.val = calloc(n, sizeof *e.val);
	e.rep = malloc(n * sizeof(int));
	e.last = malloc(n * sizeof(int));
	e.loopuse = malloc(n * sizeof(int));
	e.gmask = calloc(n, sizeof(int));
	e.lead = malloc(n * sizeof(int));
	e.off = malloc(nv * sizeof(long));
	e.cbix = calloc(nv, sizeof(int));
	long *off = malloc(nv * sizeof(long));
	if (!e.val || !e.rep || !e.last || !e.loopuse || !e.gmask || !e.lead ||
	    !e.off || !e.cbix || !off)
		ICE("out of memory");
	static const nb_role roles[3] = {NB_LMEM, NB_BMEM, NB_RMEM};
	for (int r = 0; r < 3; r++) {
		e.rec[roles[r]] = nb_il_record(fc, roles[r], off);
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == roles[r])
				e.off[v] = off[v];
	}
	free(off);
	int ncb = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_CONST)
			e.cbix[v] = ncb++;
	e.nchunk = (int)(e.rec[NB_RMEM] / 16);
	analyse(&e);

	/* once per work item: its i-elements and the i-side work */
	int ldi = 0;
	for (int k = 0; k < f->n; k++) {
		if (f->ins[k].op == O_LDI && f->ins[k].blk != B_PRE)
			ICE("an LMEM load outside PRE");
		ldi |= f->ins[k].op == O_LDI;
	}
	emitf(&e, "; once per work item: thread g = vAbsTidFlat.x takes the %d "
	      "i-element%s from i = ibase + g*%d", f->ni, f->ni > 1 ? "s" : "",
	      f->ni);
	if (ldi) {
		e.gi = take(&e, 1);
		e.gl = take(&e, 1);
		emitf(&e, "imad %s, vAbsTidFlat.x, %s, cb0[0].z ; i", dst(&e, e.gi, 1),
		      src(&e, lit_i(&e, f->ni), S1));
		emitf(&e, "iadd %s, cb0[0].x, cb0[0].z", dst(&e, e.gl, 1));
		iop(&e, "iadd", e.gl, e.gl, lit_i(&e, -1));
		e.code.len--;
		buf_puts(&e.code, " ; ilast\n");
	}
	block_il(&e, B_PRE);
	GIVE(&e, e.gi, e.gl);

	int t = f->jsplit;
	e.acc = take_accs(&e);
	e.aux = take_aux(&e);
	if (t == 1) {
		set_acc(&e, e.acc, NULL);
		red_init(&e, e.acc, e.aux);
	}
	Opd jend = take(&e, 1), p = {0};
	e.gj = take(&e, 1);
	emitf(&e, "iadd %s, cb0[0].w, cb0[0].y ; jend = jbase + nj",
	      dst(&e, jend, 1));
	if (t > 1) {
		e.part = take_accs(&e);
		e.paux = take_aux(&e);
		p = take(&e, 1);
		emitf(&e, "; j-split: partial sums p = 0..%d over j = jbase + p, "
		      "+%d, ..., combined in order", t - 1, t);
		emitf(&e, "mov %s, %s", dst(&e, p, 1), src(&e, lit_i(&e, 0), S1));
		emitf(&e, "whileloop");
		e.depth++;
		Opd c = take(&e, 1);
		iop(&e, "ige", c, p, lit_i(&e, t));
		emitf(&e, "break_logicalnz %s", src(&e, c, S1));
		give(&e, c);
		set_acc(&e, e.part, NULL);
		red_init(&e, e.part, e.paux);
		emitf(&e, "iadd %s, cb0[0].w, %s", dst(&e, e.gj, 1), src(&e, p, S1));
	} else {
		emitf(&e, "mov %s, cb0[0].w", dst(&e, e.gj, 1));
	}
	jloops(&e, jend);
	if (t > 1) {
		combine(&e, p);
		iop(&e, "iadd", p, p, lit_i(&e, 1));
		e.depth--;
		emitf(&e, "endloop");
	}
	/* what the loops needed, PRE values included, is dead */
	for (int k = 0; k < f->n; k++)
		if (e.loopuse[k] && e.rep[k] == k &&
		    !(e.loopuse[k] == 1 && t == 1 && f->nj > 1))
			give(&e, e.val[k]);
	GIVE(&e, jend, e.gj, p);
	for (int i = 0; t > 1 && i < f->ni * e.nchunk; i++)
		e.busy[e.part[i].n] &=
			(unsigned char)~(chunk_mask(&e, i % e.nchunk) << e.part[i].comp);
	if (t > 1)
		give_aux(&e, e.paux);
	e.paux = NULL;
	stores(&e);
	give_aux(&e, e.aux);
	e.aux = NULL;

	/* the text: version, interface, declarations, literals, code */
	buf_puts(out, "il_cs_2_0\n");
	iface_put(out, fc, "; ");
	buf_printf(out, "; Generated by nbcc %s; do not edit.\n", NBCC_VERSION);
	buf_printf(out, "; %d temporaries (r0-r%d), %d literals\n", e.nreg,
	           e.nreg - 1, e.nlit);
	buf_printf(out, "dcl_num_thread_per_group %d, 1, 1\n", fc->wg);
	buf_puts(out, "dcl_cb cb0[2] ; (ni, nj, ibase, jbase), (accum, 0, 0, 0)\n");
	if (ncb) {
		buf_printf(out, "dcl_cb cb1[%d] ;", ncb);
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_CONST)
				buf_printf(out, " %s", f->var[v].name);
		buf_putc(out, '\n');
	}
	static const char *const what[3] = {"i", "j", "result"};
	for (int r = 0; r < 3; r++) {
		buf_printf(out, "dcl_raw_uav_id(%d) ; %s-records", r, what[r]);
		if (e.rec[roles[r]])
			buf_printf(out, " of %zu bytes: ", e.rec[roles[r]]);
		else
			buf_puts(out, ": none");
		record_text(&e, out, roles[r]);
		buf_putc(out, '\n');
	}
	for (int i = 0; i < e.nlit; i++) {
		const Lit *l = &e.lit[i];
		buf_printf(out, "dcl_literal l%d, 0x%08X, 0x%08X, 0x%08X, 0x%08X", i,
		           l->w[0], l->w[1], l->w[2], l->w[3]);
		switch (l->kind) {
		case 'f': buf_printf(out, " ; %.9g\n", l->v[0]); break;
		case 'i': buf_printf(out, " ; %.0f\n", l->v[0]); break;
		case 'd': buf_printf(out, " ; double %.17g\n", l->v[0]); break;
		default:
			buf_printf(out, " ; dd (%.17g, %.17g)\n", l->v[0], l->v[1]);
		}
	}
	buf_puts(out, e.code.s);
	buf_puts(out, "end\n");

	buf_free(&e.code);
	free(e.lit);
	free(e.val);
	free(e.rep);
	free(e.last);
	free(e.loopuse);
	free(e.gmask);
	free(e.lead);
	free(e.off);
	free(e.cbix);
	free(e.acc);
	free(e.part);
}

/* The row of compiler/defaults.c (papers 000 and 001's unrolling). */
static const nb_defaults *il_defaults(Type widest, nb_options *o)
{
	return defaults_apply("amdil", widest, o);
}

/* The kernel ABI fixes 64 threads a group; no local-memory staging:
 * BMEM is read through the cache, as paper 001 does. */
static void il_launch(const Func *f, const nb_options *o, nb_iface *fc)
{
	(void)f;
	(void)o;
	fc->wg = 64;
	fc->tile = 0;
}

/* Records in UAVs, not packs: no BMEM packing.  Interface files naming
 * amdil have always meant the bare kernel name as their entry. */
const Target target_amdil = {
	.name = "amdil", .ext = ".il", .lang = "AMD IL",
	.pack_bmem = 0, .entry_suffix = "",
	.defaults = il_defaults, .launch = il_launch,
	.build_options = NULL, .spell = NULL, .emit = il_emit,
	.vliw = amdil_vliw_report,
};

/* vliw.c: nbcc --vliw, the amdil Target's report: the IL the back end
 * wrote, read back by il/'s reader and packed by il/'s VLIW model, for
 * the j-loop's body and tail (between the back end's markers) and all. */
#include "amdil.h"
#include "ilvliw.h"

static IlPack packed(const IlProg *p, int a, int b, IlOrder order)
{
	IlPack r;
	if (il_pack(p, a, b, order, &r))
		ICE("out of memory");
	return r;
}

static void report_region(Buf *out, const IlProg *p, const char *text,
                          size_t len, const char *name, int per)
{
	int a, b;
	if (!il_region(p, text, len, name, &a, &b)) {
		buf_printf(out, "%s: none\n", name);
		return;
	}
	IlCount c = il_count(p, a, b);
	IlPack lst = packed(p, a, b, IL_REORDER);
	IlPack ord = packed(p, a, b, IL_INORDER);
	IlPack dep = packed(p, a, b, IL_UNLIMITED);
	buf_printf(out, "%s (%d interaction%s a step):\n", name, per,
	           per == 1 ? "" : "s");
	buf_printf(out, "  ALU operations   %d (float %d, transcendental %d, "
	           "double %d, integer %d); fetches %d\n", c.alu,
	           c.cls[IC_FLOAT], c.cls[IC_TRANS], c.cls[IC_DOUBLE],
	           c.cls[IC_INT], c.loads);
	buf_printf(out, "  bundles          %d reordered, %d in order "
	           "(dependence bound %d, slot bound %d)\n", lst.bundles,
	           ord.bundles, dep.bundles, il_slot_bound(&lst));
	buf_printf(out, "  per interaction  %.2f reordered, %.2f in order\n",
	           (double)lst.bundles / per, (double)ord.bundles / per);
	buf_printf(out, "  slots used       %d of %d (%.0f%%) reordered, "
	           "%d of %d (%.0f%%) in order\n", lst.slots, 5 * lst.bundles,
	           lst.bundles ? 100.0 * lst.slots / (5 * lst.bundles) : 0.0,
	           ord.slots, 5 * ord.bundles,
	           ord.bundles ? 100.0 * ord.slots / (5 * ord.bundles) : 0.0);
}

void amdil_vliw_report(const Func *f, const char *text, size_t len, Buf *out)
{
	char err[512];
	IlProg *p = nb_il_read(text, len, f->name, err, sizeof err);
	if (!p) {
		ICE("the amdil back end wrote IL its reader refuses: %s", err);
		return;
	}
	IlPack lst, ord;
	if (il_pack_whole(p, IL_REORDER, &lst) || il_pack_whole(p, IL_INORDER, &ord))
		ICE("out of memory");
	buf_printf(out, "vliw: %s, --unroll-i=%d --unroll-j=%d --jsplit=%d%s\n",
	           f->name, f->ni, f->nj, f->jsplit,
	           f->sched ? ", scheduled (--sched=interleave)" :
	           " (--sched=none)");
	buf_puts(out, "model: R700/Evergreen thread processor, bundles of 5 "
	         "slots (x y z w general, t transcendental), docs/amdil.md\n");
	report_region(out, p, text, len, "j-loop body", f->ni * f->nj);
	report_region(out, p, text, len, "j-loop tail", f->ni);
	buf_printf(out, "whole kernel: %d ALU bundles reordered, %d in order; "
	           "GPRs %d\n", lst.bundles, ord.bundles, p->ntemp);
	nb_il_free(p);
}

/* ilvliw.h: the VLIW model of il/ilvliw.c (docs/amdil.md, "The VLIW
 * report"): a decoded program's ALU work packed into the 5-slot bundles of
 * an R700/Evergreen thread processor, ilops.h's columns its costs.  Plain
 * numbers out; nbcc's --vliw report (compiler/amdil/vliw.c) words them. */
#ifndef NB_ILVLIW_H
#define NB_ILVLIW_H

#include "il.h"

/* What one slot-sized piece of work (a micro-operation) may use. */
enum {
	IL_U_ANY,  /* a simple op: one of x, y, z, w, or t when those are full */
	IL_U_T,    /* the transcendental slot only */
	IL_U_GEN2, /* two of x, y, z, w (a double add) */
	IL_U_GEN4  /* all of x, y, z, w (a double multiply or fma) */
};

/* How a packer places each micro-operation: in the first bundle at or
 * after those its operands come from where a slot of its kind is free
 * (IL_REORDER, as a list scheduler would reorder the block), never
 * before the previous one's bundle either (IL_INORDER, a packer that
 * does not reorder), or with as many slots as wanted (IL_UNLIMITED,
 * which leaves the dependences). */
typedef enum { IL_REORDER, IL_INORDER, IL_UNLIMITED } IlOrder;

typedef struct IlPack {
	int bundles, uops, slots;
	int n[IL_U_GEN4 + 1]; /* uops of each kind (il_pack only) */
} IlPack;

/* Packs the ALU work of instructions [a, b) of p into *r.  Returns 0, or
 * -1 when out of memory. */
int il_pack(const IlProg *p, int a, int b, IlOrder order, IlPack *r);
/* The whole program, each stretch between flow instructions packed alone
 * (a branch ends an ALU clause): bundles, uops and slots summed. */
int il_pack_whole(const IlProg *p, IlOrder order, IlPack *r);
/* The bundles the slots alone need, of what il_pack packed. */
int il_slot_bound(const IlPack *r);

typedef struct IlCount {
	int alu;              /* micro-operations */
	int cls[IC_FLOW + 1]; /* of them, of each IlClass */
	int loads, stores;
} IlCount;

IlCount il_count(const IlProg *p, int a, int b);

/* The instructions [*a, *b) of the lines between the comment lines
 * "; NAME" and "; NAME end" of text (which p was read from): 1, or 0 when
 * there are no such lines or nothing between them. */
int il_region(const IlProg *p, const char *text, size_t len,
              const char *name, int *a, int *b);

#endif

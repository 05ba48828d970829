/* kernels.cl: the OpenCL back end's own kernels (runtime/cl/array.c):
 * fixed text, nothing from a kernel or a user spliced in.  Conversions
 * between nbrt_array's doubles and a kernel's buffers (value i at scalar
 * i * s + o, as convert.c packs them on the host), the leap-frog's update,
 * the finite check, and the sums of a launch's j-slices.  FP_CONTRACT
 * OFF: y + h * x is a rounded multiply and a rounded add, as the host's
 * loop in nbrt_array.c computes it.  The build puts compiler/ddlib.h in
 * place of the line that includes it (the Makefile, cl_kernels_src.c). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#include "ddlib.h"
/* Up to 8 columns a launch (na of them: a run's inputs, LMEMs and the
 * packs' lanes, or its results), each of n.sC values at scalar
 * i * s.sC + o.sC: as many launches fewer, where on a GPU a
 * device-resident run's conversions cost a launch each, more than the
 * kernel at small N. */
#define NBRT_CONV8(one)                                                    \
	size_t i = get_global_id(0);                                           \
	one(0, a0, d0, s0) one(1, a1, d1, s1) one(2, a2, d2, s2)               \
	one(3, a3, d3, s3) one(4, a4, d4, s4) one(5, a5, d5, s5)               \
	one(6, a6, d6, s6) one(7, a7, d7, s7)
#define NBRT_CONV_ARGS(S, D)                                               \
	global const S *a0, global const S *a1, global const S *a2,            \
	global const S *a3, global const S *a4, global const S *a5,            \
	global const S *a6, global const S *a7, global D *d0, global D *d1,    \
	global D *d2, global D *d3, global D *d4, global D *d5, global D *d6,  \
	global D *d7, ulong8 s, ulong8 o, ulong8 n, int na
#define NBRT_COL(c, sc) (na > c && i < n.sc)
#define NBRT_TO_F(c, a, d, sc) if (NBRT_COL(c, sc)) d[i * s.sc + o.sc] = (float)a[i];
#define NBRT_TO_D(c, a, d, sc) if (NBRT_COL(c, sc)) d[i * s.sc + o.sc] = a[i];
#define NBRT_TO_DD(c, a, d, sc)                                            \
	if (NBRT_COL(c, sc)) { d[i * s.sc + o.sc] = a[i]; d[i * s.sc + o.sc + 1] = 0; }
kernel void nbrt_to_f(NBRT_CONV_ARGS(double, float)) { NBRT_CONV8(NBRT_TO_F) }
kernel void nbrt_to_d(NBRT_CONV_ARGS(double, double)) { NBRT_CONV8(NBRT_TO_D) }
kernel void nbrt_to_dd(NBRT_CONV_ARGS(double, double)) { NBRT_CONV8(NBRT_TO_DD) }
/* results: a the kernel's, d the arrays (s and o unused: one argument
 * list for both ways); a run of one launch stores them so itself
 * (emit_opencl.c's NB_DIRECT), which must give these bits */
#define NBRT_FROM_F(c, a, d, sc) if (NBRT_COL(c, sc)) d[i] = a[i];
#define NBRT_FROM_DD(c, a, d, sc) if (NBRT_COL(c, sc)) d[i] = a[2 * i] + a[2 * i + 1];
kernel void nbrt_from_f(NBRT_CONV_ARGS(float, double)) { NBRT_CONV8(NBRT_FROM_F) }
kernel void nbrt_from_d(NBRT_CONV_ARGS(double, double)) { NBRT_CONV8(NBRT_FROM_F) }
kernel void nbrt_from_dd(NBRT_CONV_ARGS(double, double)) { NBRT_CONV8(NBRT_FROM_DD) }
/* The same for up to 4 columns (a gravity run's 4 results): half the
 * arguments' bytes, which NVIDIA's OpenCL copies at every launch (some
 * 8.5 us of host time for the 20 above, 4.2 for one). */
#define NBRT_CONV4(one)                                                    \
	size_t i = get_global_id(0);                                           \
	one(0, a0, d0, s0) one(1, a1, d1, s1) one(2, a2, d2, s2)               \
	one(3, a3, d3, s3)
#define NBRT_CONV4_ARGS(S, D)                                              \
	global const S *a0, global const S *a1, global const S *a2,            \
	global const S *a3, global D *d0, global D *d1, global D *d2,          \
	global D *d3, ulong4 s, ulong4 o, ulong4 n, int na
kernel void nbrt_to_f4(NBRT_CONV4_ARGS(double, float)) { NBRT_CONV4(NBRT_TO_F) }
kernel void nbrt_to_d4(NBRT_CONV4_ARGS(double, double)) { NBRT_CONV4(NBRT_TO_D) }
kernel void nbrt_to_dd4(NBRT_CONV4_ARGS(double, double)) { NBRT_CONV4(NBRT_TO_DD) }
kernel void nbrt_from_f4(NBRT_CONV4_ARGS(float, double)) { NBRT_CONV4(NBRT_FROM_F) }
kernel void nbrt_from_d4(NBRT_CONV4_ARGS(double, double)) { NBRT_CONV4(NBRT_FROM_F) }
kernel void nbrt_from_dd4(NBRT_CONV4_ARGS(double, double)) { NBRT_CONV4(NBRT_FROM_DD) }
kernel void nbrt_axpy(global double *y0, global double *y1,
                      global double *y2, global const double *x0,
                      global const double *x1, global const double *x2,
                      double h, int na, ulong n)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	y0[i] += h * x0[i];
	if (na > 1) y1[i] += h * x1[i];
	if (na > 2) y2[i] += h * x2[i];
}
/* axpy, then z += g y with y as updated: a kick and a drift in one launch */
kernel void nbrt_axpy2(global double *y0, global double *y1,
                       global double *y2, global const double *x0,
                       global const double *x1, global const double *x2,
                       global double *z0, global double *z1,
                       global double *z2, double h, double g, int na, ulong n)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	z0[i] += g * (y0[i] += h * x0[i]);
	if (na > 1) z1[i] += g * (y1[i] += h * x1[i]);
	if (na > 2) z2[i] += g * (y2[i] += h * x2[i]);
}
/* The same two, each updated array's float copy written beside it (the
 * value as stored, cast as nbrt_to_f casts it; the copies at o0.. in the
 * shadow room f): the float copies a float kernel reads (run.c's
 * shadows) kept current without a launch of their own, run after run of
 * a leap-frog */
kernel void nbrt_axpyf(global double *y0, global double *y1,
                       global double *y2, global const double *x0,
                       global const double *x1, global const double *x2,
                       global float *f, ulong o0, ulong o1, ulong o2,
                       double h, int na, ulong n)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	f[o0 + i] = (float)(y0[i] += h * x0[i]);
	if (na > 1) f[o1 + i] = (float)(y1[i] += h * x1[i]);
	if (na > 2) f[o2 + i] = (float)(y2[i] += h * x2[i]);
}
kernel void nbrt_axpy2f(global double *y0, global double *y1,
                        global double *y2, global const double *x0,
                        global const double *x1, global const double *x2,
                        global double *z0, global double *z1,
                        global double *z2, global float *f, ulong o0,
                        ulong o1, ulong o2, double h, double g, int na,
                        ulong n)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	f[o0 + i] = (float)(z0[i] += g * (y0[i] += h * x0[i]));
	if (na > 1) f[o1 + i] = (float)(z1[i] += g * (y1[i] += h * x1[i]));
	if (na > 2) f[o2 + i] = (float)(z2[i] += g * (y2[i] += h * x2[i]));
}
/* Element i of nine arrays a launch (bin/nbody checks x, v and a: one
 * launch), and the flag set to the check's epoch rather than zeroed
 * first: on a GPU each launch and fill is host time that a small step's
 * queue pays. */
#define NBRT_CHECK_ARGS                                                      \
	global const double *a0, global const double *a1,                    \
	global const double *a2, global const double *a3,                    \
	global const double *a4, global const double *a5,                    \
	global const double *a6, global const double *a7,                    \
	global const double *a8, int na, ulong n, uint epoch, global uint *bad
void nbrt_check_at(size_t i, NBRT_CHECK_ARGS)
{
	double z = 0 * a0[i]; /* NaN for a NaN or an infinity */
	if (na > 1) z += 0 * a1[i];
	if (na > 2) z += 0 * a2[i];
	if (na > 3) z += 0 * a3[i];
	if (na > 4) z += 0 * a4[i];
	if (na > 5) z += 0 * a5[i];
	if (na > 6) z += 0 * a6[i];
	if (na > 7) z += 0 * a7[i];
	if (na > 8) z += 0 * a8[i];
	if (z != 0)
		*bad = epoch;
}
#define NBRT_CHECK_PASS a0, a1, a2, a3, a4, a5, a6, a7, a8, na, n, epoch, bad
kernel void nbrt_finite(NBRT_CHECK_ARGS)
{
	size_t i = get_global_id(0);
	if (i < n)
		nbrt_check_at(i, NBRT_CHECK_PASS);
}
/* nbrt_axpy, then nbrt_finite's check (y among the arrays, read as
 * updated): a leap-frog's closing kick and its step's check in one
 * launch.  No restrict: the same buffer comes as a y and as an a. */
kernel void nbrt_axpy_finite(global double *y0, global double *y1,
                             global double *y2, global const double *x0,
                             global const double *x1,
                             global const double *x2, double h, int ny,
                             NBRT_CHECK_ARGS)
{
	size_t i = get_global_id(0);
	if (i >= n)
		return;
	y0[i] += h * x0[i];
	if (ny > 1) y1[i] += h * x1[i];
	if (ny > 2) y2[i] += h * x2[i];
	nbrt_check_at(i, NBRT_CHECK_PASS);
}
/* the j-slices' sums of a launch (run.c): slice 0 first, in order, so a
 * run's results do not depend on timing; dd by an accurate addition, the
 * kernels' own */
kernel void nbrt_sum_f(global const float *p, global float *r, int ns,
                       ulong n, ulong off, int accum)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	float s = p[i];
	for (int k = 1; k < ns; k++) s += p[k * n + i];
	r[off + i] = accum ? r[off + i] + s : s;
}
kernel void nbrt_sum_d(global const double *p, global double *r, int ns,
                       ulong n, ulong off, int accum)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	double s = p[i];
	for (int k = 1; k < ns; k++) s += p[k * n + i];
	r[off + i] = accum ? r[off + i] + s : s;
}
/* the kernels' own accurate dd addition (ddlib.h's nb_dd_add), on
 * (hi, lo) pairs */
double2 nbrt_dd_add(double2 a, double2 b)
{
	nb_dd s = nb_dd_add(nb_dd_make(a.x, a.y), nb_dd_make(b.x, b.y));
	return (double2)(s.hi, s.lo);
}
kernel void nbrt_sum_dd(global const double2 *p, global double2 *r,
                        int ns, ulong n, ulong off, int accum)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	double2 s = p[i];
	for (int k = 1; k < ns; k++) s = nbrt_dd_add(s, p[k * n + i]);
	r[off + i] = accum ? nbrt_dd_add(r[off + i], s) : s;
}
/* block steps' j-bodies (cl/predict.c): rows of a body's 13 values and
 * its index from the host into the series (value c of body i at c n + i);
 * every body predicted as predict.c's loop does it; the active ones
 * gathered.  Indices travel as doubles, exact below 2^53. */
kernel void nbrt_put(global const double *rows, global double *s, ulong m,
                     ulong n)
{
	size_t r = get_global_id(0);
	if (r >= m) return;
	global const double *w = rows + r * 14;
	ulong i = (ulong)w[13];
	for (int c = 0; c < 13; c++) s[c * n + i] = w[c];
}
kernel void nbrt_predict(global const double *s, global double *p0,
                         global double *p1, global double *p2,
                         global double *p3, global double *p4,
                         global double *p5, ulong n, double now,
                         double unit)
{
	size_t i = get_global_id(0);
	if (i >= n) return;
	double dt = (now - s[12 * n + i]) * unit;
	double dt2 = dt * dt * 0.5, dt3 = dt2 * dt * (1.0 / 3);
	double x[3], v[3];
	for (int k = 0; k < 3; k++) {
		double xk = s[k * n + i], vk = s[(3 + k) * n + i];
		double ak = s[(6 + k) * n + i], jk = s[(9 + k) * n + i];
		x[k] = xk + vk * dt + ak * dt2 + jk * dt3;
		v[k] = vk + ak * dt + jk * dt2;
	}
	p0[i] = x[0]; p1[i] = x[1]; p2[i] = x[2];
	p3[i] = v[0]; p4[i] = v[1]; p5[i] = v[2];
}
kernel void nbrt_gather(global const double *p0, global const double *p1,
                        global const double *p2, global const double *p3,
                        global const double *p4, global const double *p5,
                        global double *q0, global double *q1,
                        global double *q2, global double *q3,
                        global double *q4, global double *q5,
                        global const double *act, ulong off, ulong m)
{
	size_t r = get_global_id(0);
	if (r >= m) return;
	ulong i = (ulong)act[off + r];
	q0[r] = p0[i]; q1[r] = p1[i]; q2[r] = p2[i];
	q3[r] = p3[i]; q4[r] = p4[i]; q5[r] = p5[i];
}
/* ---- the radix sort (cl/sort.c) ----
 * A stable LSD sort of (ulong key, uint value) pairs, a pass a 4-bit
 * digit at any shift.  The keys are cut into tiles of L * SORT_ITEMS (L
 * the group's size, a power of two up to SORT_WG), each group a run of
 * whole tiles: nbrt_sort_count counts each group's digits into hist[d * G
 * + g], nbrt_sort_scan makes each digit's counts their running sums and
 * totals, which say where each group's keys of each digit go, and
 * nbrt_sort_scatter ranks every tile in local memory (counts of digit x
 * work item, scanned: the tile sorted stably) and writes it out by runs
 * of one digit.  4-bit digits keep the counts of a tile in 8 KB, so the
 * whole of a group's local memory is about 21 KB. */
#define SORT_WG 256
#define SORT_ITEMS 4
#define SORT_RADIX 16
/* group g's keys of n in tiles of `tile`: [*lo, *hi) */
void nbrt_sort_span(ulong n, ulong tile, ulong *lo, ulong *hi)
{
	ulong t = (n + tile - 1) / tile, G = get_num_groups(0),
	      g = get_group_id(0);
	*lo = g * t / G * tile;
	*hi = min((g + 1) * t / G * tile, n);
}
/* s[0..L) made its inclusive prefix sums, by the whole group, whose
 * writes to s are done (a barrier before) */
void nbrt_sort_scan_local(local uint *s, uint l, uint L)
{
	for (uint d = 1; d < L; d <<= 1) {
		uint v = l >= d ? s[l - d] : 0;
		barrier(CLK_LOCAL_MEM_FENCE);
		s[l] += v;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}
/* each group's OR and AND of its share of the keys (the bits they
 * differ in, where the caller does not know them) */
kernel void nbrt_sort_differ(global const ulong *key, ulong n,
                             global ulong *part)
{
	local ulong lor[SORT_WG], land[SORT_WG];
	size_t l = get_local_id(0), L = get_local_size(0);
	size_t g = get_group_id(0), G = get_num_groups(0);
	ulong o = 0, a = ~(ulong)0;
	for (size_t e = g * L + l; e < n; e += G * L) {
		o |= key[e];
		a &= key[e];
	}
	lor[l] = o;
	land[l] = a;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = L / 2; s > 0; s >>= 1) {
		if (l < s) {
			lor[l] |= lor[l + s];
			land[l] &= land[l + s];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0) {
		part[2 * g] = lor[0];
		part[2 * g + 1] = land[0];
	}
}
/* the digits of each group's keys counted (8 copies of the counts, so
 * that fewer work items contend for one) */
kernel void nbrt_sort_count(global const ulong *key, ulong n, uint shift,
                            global uint *hist)
{
	local uint h[SORT_RADIX * 8];
	uint l = get_local_id(0), L = get_local_size(0);
	uint g = get_group_id(0), G = get_num_groups(0);
	for (uint i = l; i < SORT_RADIX * 8; i += L)
		h[i] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	ulong lo, hi;
	nbrt_sort_span(n, (ulong)L * SORT_ITEMS, &lo, &hi);
	for (ulong e = lo + l; e < hi; e += L)
		atomic_inc(&h[(uint)(key[e] >> shift & 15) * 8 + (l & 7)]);
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l < SORT_RADIX) {
		uint s = 0;
		for (int c = 0; c < 8; c++)
			s += h[l * 8 + c];
		hist[l * G + g] = s;
	}
}
/* each digit's counts made their exclusive prefix sums, a group a digit
 * (d of 16), by chunks of the group's size; the digit's total after all
 * digits' counts, at hist[16 G + d] */
kernel void nbrt_sort_scan(global uint *hist, uint G)
{
	local uint s[SORT_WG];
	uint l = get_local_id(0), L = get_local_size(0), d = get_group_id(0);
	global uint *h = hist + d * G;
	uint carry = 0;
	for (uint b = 0; b < G; b += L) {
		uint x = b + l < G ? h[b + l] : 0;
		s[l] = x;
		barrier(CLK_LOCAL_MEM_FENCE);
		nbrt_sort_scan_local(s, l, L);
		if (b + l < G)
			h[b + l] = carry + s[l] - x;
		carry += s[L - 1];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		hist[SORT_RADIX * G + d] = carry;
}
/* the tile lk, lv in local memory (tile L * SORT_ITEMS, written and a
 * barrier passed) sorted stably by its 4-bit digit at shift: counts of
 * digit x work item, scanned, each item's keys (consecutive) to their
 * ranks.  After it cnt[d L] is where digit d starts. */
void nbrt_sort_rank(local ulong *lk, local uint *lv, local ushort *cnt,
                    local uint *sum, uint shift, uint l, uint L)
{
	for (uint d = 0; d < SORT_RADIX; d++)
		cnt[d * L + l] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	/* item l's keys, consecutive: each one's rank among its own of the
	 * same digit */
	ulong k[SORT_ITEMS];
	uint v[SORT_ITEMS], dg[SORT_ITEMS], rk[SORT_ITEMS];
	for (int i = 0; i < SORT_ITEMS; i++) {
		k[i] = lk[l * SORT_ITEMS + i];
		v[i] = lv[l * SORT_ITEMS + i];
		dg[i] = (uint)(k[i] >> shift) & 15;
		rk[i] = cnt[dg[i] * L + l];
		cnt[dg[i] * L + l] = (ushort)(rk[i] + 1);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	/* the counts scanned in digit-major order: each item l owns
	 * SORT_RADIX consecutive ones */
	uint own = 0;
	for (int c = 0; c < SORT_RADIX; c++)
		own += cnt[l * SORT_RADIX + c];
	sum[l] = own;
	barrier(CLK_LOCAL_MEM_FENCE);
	nbrt_sort_scan_local(sum, l, L);
	uint run = sum[l] - own;
	for (int c = 0; c < SORT_RADIX; c++) {
		uint x = cnt[l * SORT_RADIX + c];
		cnt[l * SORT_RADIX + c] = (ushort)run;
		run += x;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int i = 0; i < SORT_ITEMS; i++) {
		uint p = cnt[dg[i] * L + l] + rk[i];
		lk[p] = k[i];
		lv[p] = v[i];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}
/* each group's tiles in order: a tile loaded, ranked stably by digit in
 * local memory, and written to where hist says its digits go next.  A
 * last tile's missing keys are all ones: the greatest digit, after the
 * real keys, never written.  iota: the values are the keys' indices,
 * made here, not read. */
kernel void nbrt_sort_scatter(global const ulong *key, global const uint *val,
                              global ulong *okey, global uint *oval, ulong n,
                              uint shift, global const uint *hist, uint iota)
{
	local ulong lk[SORT_WG * SORT_ITEMS];
	local uint lv[SORT_WG * SORT_ITEMS];
	local ushort cnt[SORT_RADIX * SORT_WG]; /* digit d, item l at d L + l */
	local uint sum[SORT_WG];
	local uint base[SORT_RADIX], first[SORT_RADIX + 1];
	uint l = get_local_id(0), L = get_local_size(0);
	uint g = get_group_id(0), G = get_num_groups(0), tile = L * SORT_ITEMS;
	ulong lo, hi;
	nbrt_sort_span(n, tile, &lo, &hi);
	/* where the group's keys of digit l go: after every key of a lesser
	 * digit and the groups' before it of digit l */
	if (l < SORT_RADIX) {
		uint at = hist[l * G + g];
		for (uint d = 0; d < l; d++)
			at += hist[SORT_RADIX * G + d];
		base[l] = at;
	}
	for (ulong t0 = lo; t0 < hi; t0 += tile) {
		uint m = (uint)min((ulong)tile, hi - t0);
		for (uint i = l; i < tile; i += L) {
			lk[i] = i < m ? key[t0 + i] : ~(ulong)0;
			lv[i] = i >= m ? 0 : iota ? (uint)(t0 + i) : val[t0 + i];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		nbrt_sort_rank(lk, lv, cnt, sum, shift, l, L);
		if (l < SORT_RADIX)
			first[l] = cnt[l * L];
		if (l == SORT_RADIX)
			first[l] = tile;
		barrier(CLK_LOCAL_MEM_FENCE);
		for (uint p = l; p < m; p += L) {
			uint d = (uint)(lk[p] >> shift) & 15;
			ulong o = base[d] + (p - first[d]);
			okey[o] = lk[p];
			oval[o] = lv[p];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		if (l < SORT_RADIX)
			base[l] += first[l + 1] - first[l];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}
/* The sort a byte a pass, one launch a pass (cl/sort.c's nbrt_cl_sort8):
 * a group a tile, the tiles taken in the order the groups start (a
 * ticket), each tile's digit counts chained to the next tile's by
 * decoupled look-back (Merrill and Garland's single-pass scan, as in
 * Adinets and Merrill's Onesweep): a tile publishes its counts, adds
 * those of the tiles before it back to the first whose running total is
 * out, and publishes its own running total.  A tile waits only on tiles
 * whose groups started before it, which run or have ended.  The digits'
 * totals of all 8 passes come before, from the keys (nbrt_sort8_hist),
 * into the work space ws: [8 x 256 totals][8 tickets, padded to
 * SORT8_HEAD][two status arrays of 256 a tile, a pass's and the next's,
 * which the pass zeroes].  A status is a flag in its top 2 bits (1: the
 * tile's count, 2: the running total to the tile's end) over 30 bits of
 * value, hence fewer than 2^30 keys. */
#define SORT8_HEAD (8 * 256 + 64)
#define SORT8_COUNT 0x40000000u
#define SORT8_TOTAL 0x80000000u
#define SORT8_VALUE 0x3fffffffu
/* item l's share of the 8 passes' byte counts of key k into lh */
void nbrt_sort8_count(local uint *lh, ulong k)
{
	for (int b = 0; b < 8; b++)
		atomic_inc(&lh[b * 256 + (uint)(k >> 8 * b & 255)]);
}
/* a group's counts lh (8 x 256, local) added into ws's totals, and the
 * first pass's statuses zeroed (ns of them) by the whole grid */
void nbrt_sort8_flush(local uint *lh, global uint *ws, ulong ns)
{
	uint l = get_local_id(0), L = get_local_size(0);
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint i = l; i < 8 * 256; i += L)
		if (lh[i])
			atomic_add(&ws[i], lh[i]);
	for (size_t i = get_global_id(0); i < ns; i += get_global_size(0))
		ws[SORT8_HEAD + i] = 0;
}
/* the 8 passes' byte counts of n keys (where no kernel that made them
 * counted them, as nbrt_morton_keys8 does): a grid that strides */
kernel void nbrt_sort8_hist(global const ulong *key, ulong n,
                            global uint *ws, ulong ns)
{
	local uint lh[8 * 256];
	for (uint i = get_local_id(0); i < 8 * 256; i += get_local_size(0))
		lh[i] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t e = get_global_id(0); e < n; e += get_global_size(0))
		nbrt_sort8_count(lh, key[e]);
	nbrt_sort8_flush(lh, ws, ns);
}
/* s[0..256) made their exclusive prefix sums by the group (tmp: L) */
void nbrt_sort8_scan256(local uint *s, local uint *tmp, uint l, uint L)
{
	uint carry = 0;
	for (uint b = 0; b < 256; b += L) {
		uint x = s[b + l];
		tmp[l] = x;
		barrier(CLK_LOCAL_MEM_FENCE);
		nbrt_sort_scan_local(tmp, l, L);
		s[b + l] = carry + tmp[l] - x;
		carry += tmp[L - 1];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}
/* the most tiles a look-back reads at once (its win) */
#define SORT8_WIN 16
kernel void nbrt_sort8_pass(global const ulong *key, global const uint *val,
                            global ulong *okey, global uint *oval, ulong n,
                            uint pass, global uint *ws, uint win)
{
	local ulong lk[SORT_WG * SORT_ITEMS];
	local uint lv[SORT_WG * SORT_ITEMS];
	local ushort cnt[SORT_RADIX * SORT_WG];
	local uint sum[SORT_WG];
	local uint lo[256], hi[256], base[256];
	local uint tid;
	uint l = get_local_id(0), L = get_local_size(0), tile = L * SORT_ITEMS;
	uint shift = 8 * pass;
	ulong T = (n + tile - 1) / tile;
	global uint *stat = ws + SORT8_HEAD + (pass & 1) * T * 256,
	            *next = ws + SORT8_HEAD + (~pass & 1) * T * 256;
	volatile global uint *vs = stat;
	if (l == 0)
		tid = atomic_inc(&ws[8 * 256 + pass]);
	for (uint d = l; d < 256; d += L) {
		lo[d] = hi[d] = 0;
		base[d] = ws[pass * 256 + d];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	uint t = tid;
	ulong t0 = (ulong)t * tile;
	uint m = (uint)min((ulong)tile, n - t0);
	for (uint d = l; d < 256; d += L)
		next[t * 256 + d] = 0;
	for (uint i = l; i < tile; i += L) {
		lk[i] = i < m ? key[t0 + i] : ~(ulong)0;
		lv[i] = i < m ? val[t0 + i] : 0;
	}
	/* the digits' starts over all tiles */
	nbrt_sort8_scan256(base, sum, l, L);
	nbrt_sort_rank(lk, lv, cnt, sum, shift, l, L);
	nbrt_sort_rank(lk, lv, cnt, sum, shift + 4, l, L);
	/* the tile sorted by the byte: where each byte's run starts and
	 * ends (absent: 0, 0) */
	for (uint p = l; p < m; p += L) {
		uint d = (uint)(lk[p] >> shift) & 255;
		if (p == 0 || ((uint)(lk[p - 1] >> shift) & 255) != d)
			lo[d] = p;
		if (p == m - 1 || ((uint)(lk[p + 1] >> shift) & 255) != d)
			hi[d] = p + 1;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint d = l; d < 256; d += L) {
		uint c = hi[d] - lo[d], before = 0;
		if (t == 0) {
			atomic_xchg(&stat[d], SORT8_TOTAL | c);
		} else {
			atomic_xchg(&stat[t * 256 + d], SORT8_COUNT | c);
			/* the tiles before, newest first, to the first running
			 * total: the one before alone, then win at a time, read at
			 * once (tiles that started together wait on a chain) and
			 * taken up to the first not yet out */
			for (uint j = t, out = 0; !out;) {
				uint s[SORT8_WIN], w = min(j, j == t ? 1u : win), go = 1;
				for (uint q = 0; q < SORT8_WIN; q++)
					if (q < w)
						s[q] = vs[(j - 1 - q) * 256 + d];
				for (uint q = 0; q < SORT8_WIN; q++) {
					go = go && q < w && (s[q] & (SORT8_COUNT | SORT8_TOTAL));
					if (go) {
						before += s[q] & SORT8_VALUE;
						j--;
						out = (s[q] & SORT8_TOTAL) != 0;
						go = !out;
					}
				}
			}
			atomic_xchg(&stat[t * 256 + d], SORT8_TOTAL | (before + c));
		}
		base[d] += before - lo[d];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint p = l; p < m; p += L) {
		ulong o = base[(uint)(lk[p] >> shift) & 255] + p;
		okey[o] = lk[p];
		oval[o] = lv[p];
	}
}
/* ---- the cell lists (cl/cells.c) ----
 * Cells of one cutoff keyed row-major (x fastest), so the 3 cells along x around a cell are one run
 * of the sorted order.  Element e of a column of host type t (0 float,
 * 1 double, 2 dd: its high part, as cutoff.c reads positions). */
double nbrt_cells_at(global const uchar *p, int t, size_t e)
{
	return t == 0 ? (double)((global const float *)p)[e]
	     : t == 1 ? ((global const double *)p)[e]
	              : ((global const double *)p)[2 * e];
}
/* each work group's box of n positions (min, max an axis) and its count
 * of non-finite ones, at part[7 g]: the host finishes the reduction */
kernel void nbrt_cells_bbox(global const uchar *x0, global const uchar *x1,
                            global const uchar *x2, int t0, int t1, int t2,
                            int dim, ulong n, global double *part)
{
	local double lo[3][128], hi[3][128], bad[128];
	/* array.c's work groups are at most 128 items */
	size_t l = get_local_id(0), ls = get_local_size(0);
	double mn[3] = {INFINITY, INFINITY, INFINITY};
	double mx[3] = {-INFINITY, -INFINITY, -INFINITY}, nb = 0;
	for (size_t e = get_global_id(0); e < n; e += get_global_size(0))
		for (int d = 0; d < dim; d++) {
			double x = nbrt_cells_at(d == 0 ? x0 : d == 1 ? x1 : x2,
			                         d == 0 ? t0 : d == 1 ? t1 : t2, e);
			if (!isfinite(x)) { nb += 1; continue; }
			mn[d] = fmin(mn[d], x);
			mx[d] = fmax(mx[d], x);
		}
	for (int d = 0; d < 3; d++) { lo[d][l] = mn[d]; hi[d][l] = mx[d]; }
	bad[l] = nb;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = 1; s < ls; s *= 2) {
		if (l % (2 * s) == 0 && l + s < ls) {
			for (int d = 0; d < 3; d++) {
				lo[d][l] = fmin(lo[d][l], lo[d][l + s]);
				hi[d][l] = fmax(hi[d][l], hi[d][l + s]);
			}
			bad[l] += bad[l + s];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0) {
		global double *o = part + 7 * get_group_id(0);
		for (int d = 0; d < 3; d++) { o[2 * d] = lo[d][0]; o[2 * d + 1] = hi[d][0]; }
		o[6] = bad[0];
	}
}
/* element e's cell c0 + n0 (c1 + n1 c2), c = floor((x - o) / w) clamped
 * to [0, n) (cells.c's nbrt_cells_grid), and its index */
long nbrt_cells_cell(double x, double o, double w, long n)
{
	double t = floor((x - o) / w);
	return t < 0 ? 0 : t >= (double)n ? n - 1 : (long)t;
}
kernel void nbrt_cells_keys(global const uchar *x0, global const uchar *x1,
                            global const uchar *x2, int t0, int t1, int t2,
                            int dim, double o0, double o1, double o2,
                            double w0, double w1, double w2, long n0,
                            long n1, long n2, ulong n, global ulong *key,
                            global uint *val)
{
	size_t e = get_global_id(0);
	if (e >= n) return;
	long c = nbrt_cells_cell(nbrt_cells_at(x0, t0, e), o0, w0, n0);
	if (dim > 1)
		c += n0 * nbrt_cells_cell(nbrt_cells_at(x1, t1, e), o1, w1, n1);
	if (dim > 2)
		c += n0 * n1 * nbrt_cells_cell(nbrt_cells_at(x2, t2, e), o2, w2, n2);
	key[e] = (ulong)c;
	val[e] = (uint)e;
}
/* start[c] for c in [0, ncell]: the first of the n sorted keys >= c */
kernel void nbrt_cells_starts(global const ulong *key, ulong n, ulong ncell,
                              global uint *start)
{
	size_t c = get_global_id(0);
	if (c > ncell) return;
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (key[m] < c) a = m + 1; else b = m;
	}
	start[c] = (uint)a;
}
/* cell c's nr = (2 reach + 1)^(dim-1) j-ranges, a row of at most 2 reach
 * + 1 cells along x each, at nr c (an empty one beyond the grid), the
 * ranges entry's offsets (two past the last cell) and the j-elements each
 * cell meets.  A cell g whole cells away along each axis is at least
 * |g| w > |g| cutoff / reach away (w > cutoff / reach: nbrt_cells_grid),
 * so a row drops the cells with |g|^2 >= reach^2: at reach 3, 2.75 pairs
 * a needed pair instead of 3.03 at uniform density; none below reach 3.
 * No task reads the ranges of a cell without i-elements (most cells of a
 * third of the cutoff: 64% at 50 neighbours), nor its count: none are
 * written.  Row q of the cell at (cx, cy, cz): */
int2 nbrt_cells_row(global const uint *jstart, int dim, int reach, long n0,
                    long n1, long n2, long cx, long cy, long cz, int q)
{
	int side = 2 * reach + 1, ry = dim > 1 ? reach : 0;
	int dy = q % side - ry, dz = dim > 2 ? q / side - reach : 0;
	long y = cy + dy, z = cz + dz;
	int gy = abs(dy) > 1 ? abs(dy) - 1 : 0;
	int gz = abs(dz) > 1 ? abs(dz) - 1 : 0;
	int left = reach * reach - 1 - gy * gy - gz * gz, rx = 0;
	while (rx < reach && rx * rx <= left) /* gx = rx kept */
		rx++;
	long x0 = cx > rx ? cx - rx : 0;
	long x1 = cx + rx < n0 ? cx + rx : n0 - 1;
	if (left < 0 || y < 0 || y >= n1 || z < 0 || z >= n2)
		return (int2)(0, 0);
	long row = n0 * (y + n1 * z);
	return (int2)((int)jstart[row + x0], (int)jstart[row + x1 + 1]);
}
/* a work item a cell (on a CPU: cl/cells.c's NBRT_CELL_RANGES) */
kernel void nbrt_cells_ranges(global const uint *istart,
                              global const uint *jstart, int dim, int reach,
                              long n0, long n1, long n2, ulong ncell,
                              global int *offset, global int2 *range,
                              global uint *glen)
{
	size_t c = get_global_id(0);
	int side = 2 * reach + 1, nr = dim == 1 ? 1 : dim == 2 ? side
	                                                  : side * side;
	if (c >= ncell) {
		if (c < ncell + 2) offset[c] = (int)(ncell * nr);
		return;
	}
	offset[c] = (int)(c * nr);
	if (istart[c] == istart[c + 1]) {
		glen[c] = 0;
		return;
	}
	long cx = (long)c % n0, cy = (long)c / n0 % n1, cz = (long)c / n0 / n1;
	uint len = 0;
	for (int q = 0; q < nr; q++) {
		int2 r = nbrt_cells_row(jstart, dim, reach, n0, n1, n2, cx, cy, cz,
		                        q);
		range[c * nr + q] = r;
		len += (uint)(r.y - r.x);
	}
	glen[c] = len;
}
/* The same, a work group a block of NBRT_CELLS_BLOCK cells (of any local
 * size; on a GPU): the block's busy cells (those with i-elements) listed
 * in order, their rows' starts read row by row (the cells side by side,
 * so neighbouring work items read neighbouring starts) into local
 * memory, the ranges written cell by cell (neighbouring work items write
 * neighbouring ranges), the counts summed there.  A work item a cell
 * writes its 49 ranges 392 bytes from its neighbour's: 350 MB took
 * 1.9 ms on an H100 at Lennard-Jones 2^20, reach 3 (1.6 with int2
 * stores); this form 0.93 ms with every cell's rows computed, less with
 * only the busy ones.  On PoCL this one is the slower (docs/neighbours.md,
 * "On an OpenCL device": 280 against 40 ms at 2^17). */
/* NBRT_CELLS_BLOCK and NBRT_CELLS_MAXR come from cl_impl.h (array.c) */
kernel void nbrt_cells_ranges_block(global const uint *istart,
                                    global const uint *jstart, int dim,
                                    int reach, long n0, long n1, long n2,
                                    ulong ncell, global int *offset,
                                    global int2 *range, global uint *glen)
{
	local int2 rg[NBRT_CELLS_BLOCK * NBRT_CELLS_MAXR];
	/* each cell's x, y, z and whether it is busy; the busy ones' places
	 * in the block, in order, and their count */
	local long cx[NBRT_CELLS_BLOCK], cy[NBRT_CELLS_BLOCK], cz[NBRT_CELLS_BLOCK];
	local int busy[NBRT_CELLS_BLOCK], bz[NBRT_CELLS_BLOCK], nbz;
	int l = (int)get_local_id(0), ls = (int)get_local_size(0);
	size_t c0 = get_group_id(0) * NBRT_CELLS_BLOCK;
	int side = 2 * reach + 1, nr = dim == 1 ? 1 : dim == 2 ? side
	                                                  : side * side;
	/* strided: a device may allow work groups of one item */
	if (get_group_id(0) == 0)
		for (int e = l; e < 2; e += ls)
			offset[ncell + e] = (int)(ncell * nr);
	/* the host launches no group past the last cell (and no return may
	 * come before a barrier: PoCL asserts) */
	int nb = ncell - c0 < NBRT_CELLS_BLOCK ? (int)(ncell - c0)
	                                       : NBRT_CELLS_BLOCK;
	for (int s = l; s < nb; s += ls) {
		size_t c = c0 + s;
		busy[s] = istart[c] != istart[c + 1];
		cx[s] = (long)c % n0;
		cy[s] = (long)c / n0 % n1;
		cz[s] = (long)c / n0 / n1;
		offset[c] = (int)(c * nr);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l == 0) {
		int k = 0;
		for (int s = 0; s < nb; s++)
			if (busy[s])
				bz[k++] = s;
		nbz = k;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	int m = nbz;
	for (int t = l; t < m * nr; t += ls) {
		int q = t / m, b = t - q * m, s = bz[b];
		rg[b * nr + q] = nbrt_cells_row(jstart, dim, reach, n0, n1, n2,
		                                cx[s], cy[s], cz[s], q);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int t = l; t < m * nr; t += ls) {
		int b = t / nr;
		range[(c0 + bz[b]) * nr + (t - b * nr)] = rg[t];
	}
	for (int s = l; s < nb; s += ls)
		if (!busy[s])
			glen[c0 + s] = 0;
	for (int b = l; b < m; b += ls) {
		uint len = 0;
		for (int q = 0; q < nr; q++)
			len += (uint)(rg[b * nr + q].y - rg[b * nr + q].x);
		glen[c0 + bz[b]] = len;
	}
}
/* each work group's pairs (a cell's i-elements times the j-elements it
 * meets), i-elements of cells that meet some j-element, and such cells, at
 * part[3 g], from the cells' i-starts and counts (cl/cells.c's cell_sums,
 * for cells too many to read back): exact below 2^53; the host adds the
 * groups' */
kernel void nbrt_cells_sums(global const uint *istart, global const uint *glen,
                            ulong ncell, global double *part)
{
	local double sum[3][128];
	size_t l = get_local_id(0), ls = get_local_size(0);
	double pr = 0, cv = 0, bz = 0;
	for (size_t c = get_global_id(0); c < ncell; c += get_global_size(0)) {
		uint n = istart[c + 1] - istart[c];
		pr += (double)n * (double)glen[c];
		if (n && glen[c]) { cv += n; bz += 1; }
	}
	sum[0][l] = pr; sum[1][l] = cv; sum[2][l] = bz;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = 1; s < ls; s *= 2) {
		if (l % (2 * s) == 0 && l + s < ls)
			for (int q = 0; q < 3; q++)
				sum[q][l] += sum[q][l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		for (int q = 0; q < 3; q++)
			part[3 * get_group_id(0) + q] = sum[q][0];
}
/* the ranges entry's tasks of one i-element each: sorted element s, 1,
 * its cell (its key); from n to m, none (element 1 of the cell past the
 * last, which has no ranges: packed tasks fill their last work group) */
kernel void nbrt_cells_tasks1(global const ulong *key, ulong n, ulong m,
                              int ncell, global int4 *task)
{
	size_t s = get_global_id(0);
	if (s < n) task[s] = (int4)((int)s, 1, (int)key[s], 0);
	else if (s < m) task[s] = (int4)(1, 0, ncell, 0);
}
/* a sorted copy: dst's element s (scalar s stride + off, of kernel
 * precision kt: 0 float, 1 double, 2 dd) is src's element perm[s] (host
 * type t), converted as convert.c's nbrt_to_kernel does */
kernel void nbrt_cells_gather(global const uchar *src, int t,
                              global uchar *dst, int kt, ulong stride,
                              ulong off, global const uint *perm, ulong n)
{
	size_t s = get_global_id(0);
	if (s >= n) return;
	size_t e = perm[s];
	double hi = t == 0 ? (double)((global const float *)src)[e]
	          : t == 1 ? ((global const double *)src)[e]
	                   : ((global const double *)src)[2 * e];
	double lo = t == 2 ? ((global const double *)src)[2 * e + 1] : 0;
	size_t o = s * stride + off;
	if (kt == 0)
		((global float *)dst)[o] = t == 0 ? ((global const float *)src)[e]
		                         : (float)(lo == 0 ? hi : hi + lo);
	else if (kt == 1)
		((global double *)dst)[o] = lo == 0 ? hi : hi + lo;
	else {
		((global double *)dst)[o] = hi;
		((global double *)dst)[o + 1] = lo;
	}
}
/* results back in the caller's order: element s of src (kernel precision
 * kt) to element perm[s] of dst (host type t), converted as convert.c's
 * nbrt_from_kernel does, or copied where the layouts are the same */
kernel void nbrt_cells_scatter(global const uchar *src, int kt,
                               global uchar *dst, int t,
                               global const uint *perm, ulong n)
{
	size_t s = get_global_id(0);
	if (s >= n) return;
	size_t e = perm[s];
	if (kt == t) {
		if (t == 0)
			((global float *)dst)[e] = ((global const float *)src)[s];
		else if (t == 1)
			((global double *)dst)[e] = ((global const double *)src)[s];
		else
			((global double2 *)dst)[e] = ((global const double2 *)src)[s];
		return;
	}
	double hi = kt == 0 ? (double)((global const float *)src)[s]
	          : kt == 1 ? ((global const double *)src)[s]
	                    : ((global const double *)src)[2 * s];
	double lo = kt == 2 ? ((global const double *)src)[2 * s + 1] : 0;
	if (t == 0)
		((global float *)dst)[e] = (float)(hi + lo);
	else if (t == 1)
		((global double *)dst)[e] = hi + lo;
	else {
		((global double *)dst)[2 * e] = hi;
		((global double *)dst)[2 * e + 1] = lo;
	}
}
/* The treecode's Morton keys (cl/morton.c): order.c's nbrt_order_keys in
 * 3 D, the same bits (21 an axis, spread3's masks, a point below the
 * cube or NaN to 0, above it to top), key[e] and val[e] = e */
ulong nbrt_morton_spread(ulong v)
{
	v &= 0x1fffffUL;
	v = (v | v << 32) & 0x1f00000000ffffUL;
	v = (v | v << 16) & 0x1f0000ff0000ffUL;
	v = (v | v << 8) & 0x100f00f00f00f00fUL;
	v = (v | v << 4) & 0x10c30c30c30c30c3UL;
	v = (v | v << 2) & 0x1249249249249249UL;
	return v;
}
ulong nbrt_morton_cell(double x, double lo, double scale, double top)
{
	double t = (x - lo) * scale;
	return !(t >= 0) ? 0 : t > top ? (ulong)top : (ulong)t;
}
ulong nbrt_morton_key(double x0, double x1, double x2, double lo0,
                      double lo1, double lo2, double scale, double top)
{
	return nbrt_morton_spread(nbrt_morton_cell(x0, lo0, scale, top)) |
	       nbrt_morton_spread(nbrt_morton_cell(x1, lo1, scale, top)) << 1 |
	       nbrt_morton_spread(nbrt_morton_cell(x2, lo2, scale, top)) << 2;
}
kernel void nbrt_morton_keys(global const double *x0,
                             global const double *x1,
                             global const double *x2, double lo0,
                             double lo1, double lo2, double scale,
                             double top, ulong n, global ulong *key,
                             global uint *val)
{
	size_t e = get_global_id(0);
	if (e >= n) return;
	key[e] = nbrt_morton_key(x0[e], x1[e], x2[e], lo0, lo1, lo2, scale, top);
	val[e] = (uint)e;
}
/* the same, and the byte counts and statuses of the sort a byte a pass
 * (nbrt_sort8_pass) in ws, ns statuses zeroed: a grid that strides */
kernel void nbrt_morton_keys8(global const double *x0,
                              global const double *x1,
                              global const double *x2, double lo0,
                              double lo1, double lo2, double scale,
                              double top, ulong n, global ulong *key,
                              global uint *val, global uint *ws, ulong ns)
{
	local uint lh[8 * 256];
	for (uint i = get_local_id(0); i < 8 * 256; i += get_local_size(0))
		lh[i] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t e = get_global_id(0); e < n; e += get_global_size(0)) {
		ulong k = nbrt_morton_key(x0[e], x1[e], x2[e], lo0, lo1, lo2, scale,
		                          top);
		key[e] = k;
		val[e] = (uint)e;
		nbrt_sort8_count(lh, k);
	}
	nbrt_sort8_flush(lh, ws, ns);
}
/* the gathers of the sorted bodies (nb columns of x into y, the order
 * copied to keep), as one launch */
kernel void nbrt_morton_gather(global const uint *perm, ulong n, int nb,
                               global const double *x0,
                               global const double *x1,
                               global const double *x2,
                               global const double *x3, global double *y0,
                               global double *y1, global double *y2,
                               global double *y3, global uint *keep)
{
	size_t s = get_global_id(0);
	if (s >= n) return;
	uint e = perm[s];
	keep[s] = e;
	y0[s] = x0[e];
	y1[s] = x1[e];
	y2[s] = x2[e];
	if (nb > 3)
		y3[s] = x3[e];
}

/* a treecode's results back in the caller's order from its far and near
 * runs, which ran side by side into buffers of their own (tree.c):
 * dst[perm[s]] = a[s] + b[s], far + near, of floats (t 0) or doubles */
kernel void nbrt_tree_add(global const uchar *a, global const uchar *b,
                          int t, global uchar *dst, global const uint *perm,
                          ulong n)
{
	size_t s = get_global_id(0);
	if (s >= n) return;
	size_t e = perm[s];
	if (t == 0)
		((global float *)dst)[e] = ((global const float *)a)[s] +
		                           ((global const float *)b)[s];
	else
		((global double *)dst)[e] = ((global const double *)a)[s] +
		                            ((global const double *)b)[s];
}

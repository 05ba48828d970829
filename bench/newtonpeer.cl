/* newtonpeer.cl: issue 25's dense Newton by hand (bench/newtonpeer.c):
 * gravity_force (bench/newton/gravity_force.nbl) over every pair
 * (every) and over unordered block pairs with the j-sides rotated
 * through a warp (pairs), partial sums folded in a fixed order (fold).
 * Built with -DW=work group size -DU=i-elements a work item -DG=rounds
 * a work group (pairs) [-DDBL]
 * [-DNB_NVIDIA_SHFL: inline PTX shuffles, else local memory]. */
#ifdef DBL
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double T;
typedef double4 T4;
#else
typedef float T;
typedef float4 T4;
#endif
#define NW (W / 32)
#define B (W * U)

/* a = (x, y, z, m): the force on a from b and the pair's energy, into ai;
 * with JS, b's side (the force's opposite, the same energy) into aj */
#define PAIR(a, b, ai, JS)                                              \
	do {                                                            \
		T dx_ = (b).x - (a).x, dy_ = (b).y - (a).y,             \
		  dz_ = (b).z - (a).z;                                  \
		T r2_ = eps2 + dx_ * dx_ + dy_ * dy_ + dz_ * dz_;        \
		T ri_ = rsqrt(r2_);                                     \
		T mm_ = (a).w * (b).w * ri_, f_ = mm_ * ri_ * ri_;      \
		T fx_ = f_ * dx_, fy_ = f_ * dy_, fz_ = f_ * dz_;       \
		(ai) += (T4)(fx_, fy_, fz_, -mm_);                      \
		JS;                                                     \
	} while (0)

#ifdef NB_NVIDIA_SHFL
/* NVIDIA's OpenCL has no cl_khr_subgroup_shuffle; its PTX does */
static inline uint shfl1(uint x, int src)
{
	uint r;
	asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
	             : "=r"(r) : "r"(x), "r"(src));
	return r;
}
#ifdef DBL
static inline double shfl(double x, int src)
{
	uint2 u = as_uint2(x);
	return as_double((uint2)(shfl1(u.x, src), shfl1(u.y, src)));
}
#else
static inline float shfl(float x, int src)
{
	return as_float(shfl1(as_uint(x), src));
}
#endif
#endif

/* every pair, the i-side only: the control.  Group (A, q) meets j-blocks
 * [q per, (q + 1) per) of nb, its sums to pi[q] (a j-split, so that small
 * N fills the device as the pairs' rounds do; the fold adds them) */
__kernel __attribute__((reqd_work_group_size(W, 1, 1)))
void every(__global const T4 *p, int nb, int per, int npad, T eps2,
           __global T4 *pi)
{
	__local T4 tile[W];
	int t = get_local_id(0), q = get_group_id(1);
	int i0 = get_group_id(0) * B + t;
	int j1 = min(nb, (q + 1) * per) * B;
	T4 xi[U], ai[U];
	for (int k = 0; k < U; k++) {
		xi[k] = p[i0 + k * W];
		ai[k] = (T4)(0);
	}
	for (int j0 = q * per * B; j0 < j1; j0 += W) {
		barrier(CLK_LOCAL_MEM_FENCE);
		tile[t] = p[j0 + t];
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int j = 0; j < W; j++) {
			T4 xj = tile[j];
			for (int k = 0; k < U; k++)
				PAIR(xi[k], xj, ai[k], (void)0);
		}
	}
	for (int k = 0; k < U; k++)
		pi[(size_t)q * npad + i0 + k * W] = ai[k];
}

/* The tasks (A, A + s mod nb) of G rounds s = s0 + G group 1 + g
 * (plan_make's rounds): the i-side summed over them to pi[group 1],
 * the j-side of each to pj[r], r the round in this launch (nr of
 * them); a block meets each round once as i and once as j, so every
 * slot has one writer.  s = 0: every pair of the block, i-side only.
 * In a sub-tile of 32 j, lane l meets j = (l + step) mod 32 and passes
 * its j-sum to lane l - 1 after each step: a j's sum gathers in lane
 * order, and after 32 steps lane l holds j = l's; the warps' sums then
 * add in warp order. */
__kernel __attribute__((reqd_work_group_size(W, 1, 1)))
void pairs(__global const T4 *p, int nb, int s0, int nr, int npad, T eps2,
           __global T4 *pi, __global T4 *pj)
{
	__local T4 tile[W];
	__local T4 part[2][NW][32];
#ifndef NB_NVIDIA_SHFL
	__local T4 rot[W];
#endif
	int t = get_local_id(0), lane = t & 31, w = t >> 5;
	int src = (lane + 1) & 31; /* whose j-sum this lane takes next */
	int a = get_group_id(0), rg = get_group_id(1), ib = a * B;
	T4 xi[U], ai[U];
	for (int k = 0; k < U; k++) {
		xi[k] = p[ib + t + k * W];
		ai[k] = (T4)(0);
	}
	for (int g = 0; g < G && rg * G + g < nr; g++) {
		int r = rg * G + g, s = s0 + r, jb = (a + s) % nb * B;
		size_t slot = (size_t)r * npad;
		if (s > 0 && 2 * s == nb && a >= nb / 2) {
			/* the pair's other half (plan_make's na = nb / 2) */
			for (int k = 0; k < U; k++)
				pj[slot + jb + t + k * W] = (T4)(0);
			continue;
		}
		if (s == 0)
			for (int k = 0; k < U; k++)
				pj[slot + ib + t + k * W] = (T4)(0);
		/* a barrier at each tile: the last sub-tile's readers of
		 * part are done before the next round writes it */
		for (int jt = 0; jt < B; jt += W) {
			barrier(CLK_LOCAL_MEM_FENCE);
			tile[t] = p[jb + jt + t];
			barrier(CLK_LOCAL_MEM_FENCE);
			if (s == 0) {
				for (int j = 0; j < W; j++) {
					T4 xj = tile[j];
					for (int k = 0; k < U; k++)
						PAIR(xi[k], xj, ai[k], (void)0);
				}
				continue;
			}
			for (int c = 0; c < NW; c++) {
				int sub = jt / 32 + c;
				T4 aj = (T4)(0);
				for (int st = 0; st < 32; st++) {
					T4 xj = tile[c * 32 + ((lane + st) & 31)];
					for (int k = 0; k < U; k++)
						PAIR(xi[k], xj, ai[k],
						     aj += (T4)(-fx_, -fy_, -fz_, -mm_));
#ifdef NB_NVIDIA_SHFL
					aj = (T4)(shfl(aj.x, src), shfl(aj.y, src),
					          shfl(aj.z, src), shfl(aj.w, src));
#else
					rot[t] = aj;
					barrier(CLK_LOCAL_MEM_FENCE);
					aj = rot[(w << 5) | src];
					barrier(CLK_LOCAL_MEM_FENCE);
#endif
				}
				/* two buffers: sub + 2 writes after the reader
				 * of sub has passed sub + 1's barrier */
				part[sub & 1][w][lane] = aj;
				barrier(CLK_LOCAL_MEM_FENCE);
				if (w == sub % NW) {
					T4 sum = part[sub & 1][0][lane];
					for (int v = 1; v < NW; v++)
						sum += part[sub & 1][v][lane];
					pj[slot + jb + sub * 32 + lane] = sum;
				}
			}
		}
	}
	for (int k = 0; k < U; k++)
		pi[(size_t)rg * npad + ib + t + k * W] = ai[k];
}

/* out = (first ? 0 : out) + the rounds' j-sides in round order, then
 * the groups' i-sides in theirs */
__kernel void fold(__global const T4 *pi, __global const T4 *pj, int nr,
                   int ni, int npad, int first, __global T4 *out)
{
	int e = get_global_id(0);
	if (e >= npad)
		return;
	T4 acc = first ? (T4)(0) : out[e];
	for (int r = 0; r < nr; r++)
		acc += pj[(size_t)r * npad + e];
	for (int r = 0; r < ni; r++)
		acc += pi[(size_t)r * npad + e];
	out[e] = acc;
}

/* warppeer.cl: hand-written float gravity for small N (bench/warppeer.c):
 * a warp's 32 lanes hold 32 i-elements (UI each), the S warps of a group
 * its j-slices, so each j-element read is one address a warp (a
 * broadcast): from a local-memory tile of TL (IL: warp s takes entries
 * s, s + S, ...; else a chunk), or (TL 0) from global memory through the
 * cache.  The slices' sums meet in local memory; X groups an i-block
 * each take a part of j, added up by the last group to finish. */
#ifndef UI
#define UI 1
#endif
#ifndef UJ
#define UJ 4
#endif
#ifndef S
#define S 8
#endif
#ifndef X
#define X 1
#endif
#ifndef IL
#define IL 0
#endif
#define W (32 * UI)
/* j-element q against the work item's UI i-elements (as gravity.nbl) */
#define PAIRS(q)                                                            \
	for (int u = 0; u < UI; u++) {                                      \
		const float dx = q.x - xi[u], dy = q.y - yi[u];             \
		const float dz = q.z - zi[u];                               \
		const float r2 = fma(dz, dz, fma(dy, dy, fma(dx, dx, eps2))); \
		const float ri = rsqrt(r2);                                 \
		const float mr = q.w * ri;                                  \
		const float m3 = mr * ri * ri;                              \
		ax[u] = fma(m3, dx, ax[u]);                                 \
		ay[u] = fma(m3, dy, ay[u]);                                 \
		az[u] = fma(m3, dz, az[u]);                                 \
		pt[u] -= mr;                                                \
	}
/* DIN: inputs and results as nbcc's one-launch entry on device arrays
 * has them (NB_DIN, NB_DIRECT): a double array a column */
#ifndef DIN
#define DIN 0
#endif
#if DIN
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* DIN 2: the inputs float arrays, a column each (float shadows) */
#if DIN == 2
#define IT float
#else
#define IT double
#endif
#define IO_ARGS __global const IT *restrict ix, __global const IT *restrict iy, \
	__global const IT *restrict iz, __global const IT *restrict jx, \
	__global const IT *restrict jy, __global const IT *restrict jz, \
	__global const IT *restrict jm, __global double *restrict ox, \
	__global double *restrict oy, __global double *restrict oz, \
	__global double *restrict op
#define LOADI(k) ((float4)((float)ix[k], (float)iy[k], (float)iz[k], 0))
#define LOADJ(k) ((float4)((float)jx[k], (float)jy[k], (float)jz[k], (float)jm[k]))
#define STORE(k, a) (ox[k] = (a).x, oy[k] = (a).y, oz[k] = (a).z, op[k] = (a).w)
#else
#define IO_ARGS __global const float4 *restrict ip, __global const float4 *restrict jp, \
	__global float4 *restrict out
#define LOADI(k) ip[k]
#define LOADJ(k) jp[k]
#define STORE(k, a) (out[k] = (a))
#endif
__kernel __attribute__((reqd_work_group_size(S * 32, 1, 1)))
void grav(IO_ARGS, const int nj, const float eps2,
          __global float4 *part, __global int *cnt)
{
#ifndef TL
#define TL 0
#endif
	__local float4 red[S * W > TL ? S * W : TL];
	__local int last;
	const int l = get_local_id(0) & 31, s = get_local_id(0) >> 5;
	const int g = get_group_id(0), ib = g / X, x = g % X;
	const int i0 = ib * W + l;
	float xi[UI], yi[UI], zi[UI];
	float ax[UI], ay[UI], az[UI], pt[UI];
#pragma unroll
	for (int u = 0; u < UI; u++) {
		float4 p = LOADI(i0 + 32 * u);
		xi[u] = p.x; yi[u] = p.y; zi[u] = p.z;
		ax[u] = ay[u] = az[u] = pt[u] = 0;
	}
#ifndef TL
#define TL 0
#endif
#if TL
	/* a tile of TL j a group, warp s taking entries s, s + S, ... (IL) or a chunk */
	__local float4 *tj = red;
	const int jg = nj / X, jb = x * jg;
	for (int jt = 0; jt < jg; jt += TL) {
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int k = get_local_id(0); k < TL; k += S * 32)
			tj[k] = LOADJ(jb + jt + k);
		barrier(CLK_LOCAL_MEM_FENCE);
#if IL
		const int t0 = s, tstep = S, tend = TL;
#else
		const int t0 = s * (TL / S), tstep = 1, tend = t0 + TL / S;
#endif
		for (int j = t0; j < tend; j += UJ * tstep) {
#pragma unroll
			for (int v = 0; v < UJ; v++) {
				const float4 q = tj[j + v * tstep];
				PAIRS(q);
			}
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
#else
	const int sl = x * S + s;
#if IL
	const int step = S * X, j0 = sl;
	const int jend = nj;
#else
	const int ch = nj / (S * X), step = 1, j0 = sl * ch;
	const int jend = j0 + ch;
#endif
	for (int j = j0; j < jend; j += UJ * step) {
#pragma unroll
		for (int v = 0; v < UJ; v++) {
			const float4 q = LOADJ(j + v * step);
			PAIRS(q);
		}
	}
#endif
#pragma unroll
	for (int u = 0; u < UI; u++)
		red[s * W + l + 32 * u] = (float4)(ax[u], ay[u], az[u], pt[u]);
	barrier(CLK_LOCAL_MEM_FENCE);
	const int t = get_local_id(0);
	if (t < W) {
		float4 a = red[t];
		for (int k = 1; k < S; k++)
			a += red[k * W + t];
#if X == 1
		STORE(ib * W + t, a);
#else
		part[(ib * X + x) * W + t] = a;
#endif
	}
#if X > 1
	mem_fence(CLK_GLOBAL_MEM_FENCE);
	barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
	if (t == 0)
		last = atomic_inc(&cnt[ib]) == X - 1;
	barrier(CLK_LOCAL_MEM_FENCE);
	if (last && t < W) {
		volatile __global float4 *vp = part;
		float4 a = vp[(ib * X) * W + t];
		for (int k = 1; k < X; k++)
			a += vp[(ib * X + k) * W + t];
		STORE(ib * W + t, a);
		if (t == 0)
			cnt[ib] = 0;
	}
#endif
}

/* bench/naive.cl: the "naive one-i-per-thread" OpenCL gravity kernel of the
 * reference figures, written by hand for comparison: each work item sums
 * over all j reading float4 (x, y, z, m) through the cache; no tiling, no
 * unrolling; built with fast math (subnormals flushed, relaxed math), as
 * the reference figures' naive kernel is: the best naive kernel, never a
 * weakened one.  The header below lets nbrt launch it like nbcc's kernels.
 * nbcc-interface 1
 * kernel naive
 * target opencl
 * source bench/naive.cl (hand-written)
 * flags hand-written
 * precision float
 * unroll 1 1 1
 * options -cl-denorms-are-zero -cl-fast-relaxed-math
 * launch 128 0
 * flops 20 38
 * pack 0 float 4 4
 * var xi LMEM float
 * var yi LMEM float
 * var zi LMEM float
 * var xj BMEM float 0 0
 * var yj BMEM float 0 1
 * var zj BMEM float 0 2
 * var mj BMEM float 0 3
 * var eps2 CONST float
 * var ax RMEM float
 * var ay RMEM float
 * var az RMEM float
 * var pot RMEM float
 * end
 */
__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void naive(const int ni, const int nj, const int ibase, const int jbase,
           const int accum, __global const float *xi, __global const float *yi,
           __global const float *zi, __global const float4 *b,
           const float eps2, __global float *ax, __global float *ay,
           __global float *az, __global float *pot)
{
	int i = ibase + get_global_id(0);
	int il = min(i, ibase + ni - 1);
	float x = xi[il], y = yi[il], z = zi[il];
	float a0 = 0, a1 = 0, a2 = 0, p = 0;
	for (int j = jbase; j < jbase + nj; j++) {
		float4 q = b[j];
		float dx = q.x - x, dy = q.y - y, dz = q.z - z;
		float r2 = eps2 + dx * dx + dy * dy + dz * dz;
		float ri = rsqrt(r2);
		float mr = q.w * ri;
		float m3 = mr * ri * ri;
		a0 += m3 * dx;
		a1 += m3 * dy;
		a2 += m3 * dz;
		p -= mr;
	}
	if (i < ibase + ni) {
		ax[i] = accum ? ax[i] + a0 : a0;
		ay[i] = accum ? ay[i] + a1 : a1;
		az[i] = accum ? az[i] + a2 : a2;
		pot[i] = accum ? pot[i] + p : p;
	}
}

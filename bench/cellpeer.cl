/* cellpeer.cl: hand-written Lennard-Jones kernels (float, fast math) for
 * bench/cellpeer.c: what a cell-list kernel written for this one problem
 * reaches, beside nbcc's generated ranges entry (issue 25's 50% target).
 * The body of a pair is dsl-examples/lennard_jones_self.nbl's, term for
 * term.  Positions are sorted by cell (row-major keys, x fastest), so a
 * cell's 3 x 3 x 3 neighbours are 9 contiguous runs of the sorted order. */

#ifndef WG
#define WG 64
#endif

/* One pair (i, j) added to the sums; near as the .nbl source says. */
#define PAIR(pi, pj, i, j)                                               \
	do {                                                             \
		float dx = (pi).x - (pj).x, dy = (pi).y - (pj).y;        \
		float dz = (pi).z - (pj).z;                              \
		float r2 = dx * dx + dy * dy + dz * dz;                  \
		int near = (j) != (i) && r2 < rc2;                       \
		float ir2 = near ? 1.0f / r2 : 0.0f;                     \
		float s6 = sig2 * ir2;                                   \
		s6 = s6 * s6 * s6;                                       \
		float s12 = s6 * s6;                                     \
		float f = 24.0f * eps * (2.0f * s12 - s6) * ir2;         \
		ax += f * dx;                                            \
		ay += f * dy;                                            \
		az += f * dz;                                            \
		uu += 4.0f * eps * (s12 - s6);                           \
		cnt += near ? 1.0f : 0.0f;                               \
	} while (0)

/* A work group an i-cell: its 9 rows of 3 cells are one virtual j-list,
 * streamed through local memory WG at a time; the cell's ni elements
 * take WG / ni work items each (a j-split), whose partial sums are added
 * in a fixed order at the end. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void cells(__global const float4 *p, __global const int *start, int nc,
           float rc2, float sig2, float eps, __global float *out)
{
	__local float4 tile[WG];
	__local int tj[WG];
	__local int rb[9], rp[10];
	__local float red[5][WG];
	int c = get_group_id(0), t = get_local_id(0);
	int cx = c % nc, cy = c / nc % nc, cz = c / (nc * nc);
	int i0 = start[c], ni = start[c + 1] - i0;
	size_t n = (size_t)start[nc * nc * nc];
	if (t < 9) {
		int y = cy + t % 3 - 1, z = cz + t / 3 - 1, b = 0, e = 0;
		if (y >= 0 && y < nc && z >= 0 && z < nc) {
			int base = (z * nc + y) * nc;
			b = start[base + max(cx - 1, 0)];
			e = start[base + min(cx + 1, nc - 1) + 1];
		}
		rb[t] = b;
		rp[t + 1] = e - b;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (t == 0) {
		rp[0] = 0;
		for (int r = 0; r < 9; r++)
			rp[r + 1] += rp[r];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	int total = rp[9];
	for (int ib = 0; ib < ni; ib += WG) {
		int nib = min(ni - ib, WG), s = WG / nib;
		int ii = t % nib, jj = t / nib, i = i0 + ib + ii;
		float4 pi = p[i];
		float ax = 0, ay = 0, az = 0, uu = 0, cnt = 0;
		for (int tb = 0; tb < total; tb += WG) {
			int q = tb + t;
			if (q < total) {
				int r = 0;
				while (r < 8 && rp[r + 1] <= q)
					r++;
				int j = rb[r] + q - rp[r];
				tile[t] = p[j];
				tj[t] = j;
			}
			barrier(CLK_LOCAL_MEM_FENCE);
			int m = min(WG, total - tb);
			if (jj < s)
				for (int k = jj; k < m; k += s) {
					float4 pj = tile[k];
#ifdef BRANCH
					float ex = pi.x - pj.x, ey = pi.y - pj.y;
					float ez = pi.z - pj.z;
					if (ex * ex + ey * ey + ez * ez >= rc2)
						continue;
#endif
					PAIR(pi, pj, i, tj[k]);
				}
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		red[0][t] = ax;
		red[1][t] = ay;
		red[2][t] = az;
		red[3][t] = uu;
		red[4][t] = cnt;
		barrier(CLK_LOCAL_MEM_FENCE);
		if (t < nib)
			for (int v = 0; v < 5; v++) {
				float sum = 0;
				for (int h = 0; h < s; h++)
					sum += red[v][h * nib + t];
				out[v * n + i0 + ib + t] = sum;
			}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}

/* The ceiling of any list: a work item an i walking its exact neighbour
 * list (every pair it holds is needed), the lists made on the host and
 * not timed; nbr[k n + i], k < len[i]. */
__kernel void verlet(__global const float4 *p, __global const int *nbr,
                     __global const int *len, int ni, float rc2, float sig2,
                     float eps, __global float *out)
{
	int i = get_global_id(0);
	if (i >= ni)
		return;
	size_t n = (size_t)ni;
	float4 pi = p[i];
	float ax = 0, ay = 0, az = 0, uu = 0, cnt = 0;
	int m = len[i];
	for (int k = 0; k < m; k++) {
		int j = nbr[(size_t)k * n + i];
		float4 pj = p[j];
		PAIR(pi, pj, i, j);
	}
	out[i] = ax;
	out[n + i] = ay;
	out[2 * n + i] = az;
	out[3 * n + i] = uu;
	out[4 * n + i] = cnt;
}

/* Cells of a third of the cutoff (at least; nf a side of width wf), T3
 * work items an i-element, 32 / T3 elements a work group: each work item
 * walks whole rows of cells along x, every T3-th of the element's 7 x 7
 * rows, reading their ends from the cell starts (no ranges written, the
 * cell-walking form).  Rows and their x-extent are pruned as the
 * runtime's nbrt_cells_row prunes them (cells g whole cells off with
 * |g|^2 >= 9 dropped: 2.75 pairs a needed pair at 50 neighbours), or
 * (POINT) by the element's own distance to the row and the cells along
 * it.  pairs[i] counts the pairs computed. */
#ifndef T3
#define T3 8
#endif
__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void cells3(__global const float4 *p, __global const int *start,
            __global const int *cellof, int nf, float wf, int ni, float rc2,
            float sig2, float eps, __global float *out,
            __global int *pairs)
{
	__local float red[5][32];
	__local int rpair[32];
	int t = get_local_id(0), lane = t % T3;
	int i = get_group_id(0) * (32 / T3) + t / T3;
	size_t n = (size_t)ni;
	float ax = 0, ay = 0, az = 0, uu = 0, cnt = 0;
	int np = 0;
	if (i < ni) {
		float4 pi = p[i];
		int c = cellof[i], cx = c % nf, cy = c / nf % nf, cz = c / (nf * nf);
		for (int q = lane; q < 49; q += T3) {
			int dy = q % 7 - 3, dz = q / 7 - 3, y = cy + dy, z = cz + dz;
			if (y < 0 || y >= nf || z < 0 || z >= nf)
				continue;
#ifdef POINT
			float ly = y * wf, lz = z * wf;
			float ey = fmax(0.0f, fmax(ly - pi.y, pi.y - (ly + wf)));
			float ez = fmax(0.0f, fmax(lz - pi.z, pi.z - (lz + wf)));
			float left = rc2 - ey * ey - ez * ez;
			if (left < 0)
				continue;
			float s = sqrt(left);
			int x0 = max((int)floor((pi.x - s) / wf), max(cx - 3, 0));
			int x1 = min((int)floor((pi.x + s) / wf), min(cx + 3, nf - 1));
#else
			int gy = abs(dy) > 1 ? abs(dy) - 1 : 0;
			int gz = abs(dz) > 1 ? abs(dz) - 1 : 0;
			int left = 8 - gy * gy - gz * gz, rx = 0;
			if (left < 0)
				continue;
			while (rx < 3 && rx * rx <= left)
				rx++;
			int x0 = max(cx - rx, 0), x1 = min(cx + rx, nf - 1);
#endif
			int row = (z * nf + y) * nf;
			int b = start[row + x0], e = start[row + x1 + 1];
			np += max(e - b, 0);
			for (int j = b; j < e; j++) {
				float4 pj = p[j];
				PAIR(pi, pj, i, j);
			}
		}
	}
	red[0][t] = ax;
	red[1][t] = ay;
	red[2][t] = az;
	red[3][t] = uu;
	red[4][t] = cnt;
	rpair[t] = np;
	barrier(CLK_LOCAL_MEM_FENCE);
	if (lane == 0 && i < ni) {
		for (int v = 0; v < 5; v++) {
			float sum = 0;
			for (int h = 0; h < T3; h++)
				sum += red[v][t + h];
			out[v * n + i] = sum;
		}
		int s = 0;
		for (int h = 0; h < T3; h++)
			s += rpair[t + h];
		pairs[i] = s;
	}
}

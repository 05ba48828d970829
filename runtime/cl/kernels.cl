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
kernel void nbrt_to_f(global const double *a, global float *d,
                      ulong s, ulong o, ulong n)
{ size_t i = get_global_id(0); if (i < n) d[i * s + o] = (float)a[i]; }
kernel void nbrt_to_d(global const double *a, global double *d,
                      ulong s, ulong o, ulong n)
{ size_t i = get_global_id(0); if (i < n) d[i * s + o] = a[i]; }
kernel void nbrt_to_dd(global const double *a, global double *d,
                       ulong s, ulong o, ulong n)
{
	size_t i = get_global_id(0);
	if (i < n) { d[i * s + o] = a[i]; d[i * s + o + 1] = 0; }
}
kernel void nbrt_from_f(global const float *r, global double *a, ulong n)
{ size_t i = get_global_id(0); if (i < n) a[i] = r[i]; }
kernel void nbrt_from_d(global const double *r, global double *a, ulong n)
{ size_t i = get_global_id(0); if (i < n) a[i] = r[i]; }
kernel void nbrt_from_dd(global const double *r, global double *a, ulong n)
{ size_t i = get_global_id(0); if (i < n) a[i] = r[2 * i] + r[2 * i + 1]; }
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
kernel void nbrt_finite(global const double *a0, global const double *a1,
                        global const double *a2, int na, ulong n,
                        global int *bad)
{
	size_t i = get_global_id(0);
	if (i < n && (!isfinite(a0[i]) || (na > 1 && !isfinite(a1[i])) ||
	              (na > 2 && !isfinite(a2[i]))))
		*bad = 1;
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

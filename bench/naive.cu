/* naive.cu: the hand-written CUDA gravity kernel (acceleration and
 * potential, float) that nbcc's OpenCL kernels are measured against on
 * NVIDIA GPUs: K i-elements per thread, every j read as a float4 through
 * the cache, no tiling.  Prints the best of K = 1, 2, 4 per N.
 *   nvcc -O3 --use_fast_math -arch=sm_90 -o naive_cuda bench/naive.cu &&
 *   ./naive_cuda N...
 * Random inputs, warm-up, median of 7 timed runs (events); a few i are
 * checked against a double sum on the host.  ./naive_cuda -q Q N...: each
 * timed run is Q launches back to back between the two events, divided by
 * Q (the way CUDA's nbody sample times, nbbench --queue's peer); its rows
 * are naive_cuda_q and naive_cuda_q_best. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>

#define CK(x)                                                                \
	do {                                                                 \
		cudaError_t e_ = (x);                                        \
		if (e_ != cudaSuccess) {                                     \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,   \
			        cudaGetErrorString(e_));                     \
			exit(1);                                             \
		}                                                            \
	} while (0)

template <int K>
__global__ void grav(int n, const float4 *__restrict__ p, float eps2,
                     float4 *__restrict__ out)
{
	int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * K;
	float xi[K], yi[K], zi[K], ax[K], ay[K], az[K], pot[K];
	for (int k = 0; k < K; k++) {
		float4 q = p[min(i0 + k, n - 1)];
		xi[k] = q.x, yi[k] = q.y, zi[k] = q.z;
		ax[k] = ay[k] = az[k] = pot[k] = 0;
	}
	for (int j = 0; j < n; j++) {
		float4 q = p[j];
		for (int k = 0; k < K; k++) {
			float dx = q.x - xi[k], dy = q.y - yi[k], dz = q.z - zi[k];
			float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
			float ri = rsqrtf(r2), mr = q.w * ri, mr3 = mr * ri * ri;
			ax[k] = fmaf(dx, mr3, ax[k]);
			ay[k] = fmaf(dy, mr3, ay[k]);
			az[k] = fmaf(dz, mr3, az[k]);
			pot[k] -= mr;
		}
	}
	for (int k = 0; k < K; k++)
		if (i0 + k < n)
			out[i0 + k] = make_float4(ax[k], ay[k], az[k], pot[k]);
}

static int queue = 0; /* -q Q: launches a timed run; 0: one, plain rows */

template <int K>
static double run(int n, const float4 *p, float4 *o, float eps2)
{
	int threads = (n + K - 1) / K, bs = 128;
	int blocks = (threads + bs - 1) / bs;
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	grav<K><<<blocks, bs>>>(n, p, eps2, o);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	float t[7];
	for (int r = 0; r < 7; r++) {
		int q = queue ? queue : 1;
		CK(cudaEventRecord(a));
		for (int s = 0; s < q; s++)
			grav<K><<<blocks, bs>>>(n, p, eps2, o);
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaGetLastError());
		CK(cudaEventElapsedTime(&t[r], a, b));
		t[r] /= q;
	}
	std::sort(t, t + 7);
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	return t[3] * 1e-3;
}

int main(int argc, char **argv)
{
	const float eps2 = 1e-4f;
	srand(12345);
	int a0 = 1;
	if (argc > 2 && !strcmp(argv[1], "-q")) {
		char *end;
		long q = strtol(argv[2], &end, 10);
		if (*end || end == argv[2] || q < 1 || q > 100000) {
			fprintf(stderr, "naive_cuda: bad -q '%s': launches a timed "
			        "run, from 1 to 100000\n", argv[2]);
			return 2;
		}
		queue = (int)q;
		a0 = 3;
	}
	const char *kn = queue ? "naive_cuda_q" : "naive_cuda";
	printf("kernel,N,K,seconds,interactions_per_s,check\n");
	for (int a = a0; a < argc; a++) {
		int n = atoi(argv[a]);
		if (n < 1) {
			fprintf(stderr, "naive_cuda: bad N '%s'\n", argv[a]);
			return 2;
		}
		float4 *h = (float4 *)malloc(sizeof(float4) * n);
		float4 *r = (float4 *)malloc(sizeof(float4) * n);
		for (int i = 0; i < n; i++)
			h[i] = make_float4(rand() / (float)RAND_MAX - 0.5f,
			                   rand() / (float)RAND_MAX - 0.5f,
			                   rand() / (float)RAND_MAX - 0.5f,
			                   (rand() / (float)RAND_MAX + 0.5f) / n);
		float4 *p, *o;
		CK(cudaMalloc(&p, sizeof(float4) * n));
		CK(cudaMalloc(&o, sizeof(float4) * n));
		CK(cudaMemcpy(p, h, sizeof(float4) * n, cudaMemcpyHostToDevice));
		double best = 1e30;
		int bk = 0;
		for (int K = 1; K <= 4; K *= 2) {
			CK(cudaMemset(o, 0xff, sizeof(float4) * n)); /* NaN poison */
			double t = K == 1 ? run<1>(n, p, o, eps2)
			         : K == 2 ? run<2>(n, p, o, eps2)
			                  : run<4>(n, p, o, eps2);
			CK(cudaMemcpy(r, o, sizeof(float4) * n, cudaMemcpyDeviceToHost));
			double worst = 0; /* relative error of |a| at 8 i's */
			for (int s = 0; s < 8; s++) {
				int i = (int)((long long)s * (n - 1) / 7);
				double ax = 0, ay = 0, az = 0;
				for (int j = 0; j < n; j++) {
					double dx = h[j].x - h[i].x, dy = h[j].y - h[i].y,
					       dz = h[j].z - h[i].z;
					double r2 = dx * dx + dy * dy + dz * dz + eps2;
					double m = h[j].w / (r2 * sqrt(r2));
					ax += m * dx, ay += m * dy, az += m * dz;
				}
				double d = sqrt((r[i].x - ax) * (r[i].x - ax) +
				                (r[i].y - ay) * (r[i].y - ay) +
				                (r[i].z - az) * (r[i].z - az)) /
				           sqrt(ax * ax + ay * ay + az * az);
				worst = d > worst || d != d ? d : worst;
			}
			printf("%s,%d,%d,%.6e,%.4e,%.1e\n", kn, n, K, t,
			       (double)n * n / t, worst);
			if (!(worst < 1e-3)) {
				fprintf(stderr, "naive_cuda: N = %d K = %d wrong (%g)\n",
				        n, K, worst);
				return 1;
			}
			if (t < best)
				best = t, bk = K;
		}
		printf("%s_best,%d,%d,%.6e,%.4e,\n", kn, n, bk, best,
		       (double)n * n / best);
		CK(cudaFree(p));
		CK(cudaFree(o));
		free(h);
		free(r);
	}
	return 0;
}

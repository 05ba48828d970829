// launchfloor.cu: bench/launchfloor.c's measurement in CUDA, by events
// recorded around each launch: whether a small launch's floor on an NVIDIA
// GPU is OpenCL's or the device's.  launchfloor_cu Q adds rows cuda_KERNEL_qQ:
// Q launches back to back between the two events, over Q (the queued floor).
#include <algorithm>
#include <cstdio>
#include <cstdlib>

__global__ void empty(float *a) {}
__global__ void work(float *a, int k)
{
	float s = 0;
	for (int i = 0; i < k; i++)
		s = s * 0.999f + 1.0f;
	if (s == -1.0f)
		a[0] = s;
}

/* Microseconds a launch of n launches back to back between events a and
 * b (n = 1: one launch alone); nonzero when a launch failed. */
static int span(cudaEvent_t a, cudaEvent_t b, float *m, int w, int g, int k,
                int n, float *us)
{
	cudaEventRecord(a);
	for (int s = 0; s < n; s++)
		if (w)
			work<<<g, 128>>>(m, k);
		else
			empty<<<g, 128>>>(m);
	cudaEventRecord(b);
	if (cudaEventSynchronize(b) != cudaSuccess) {
		fprintf(stderr, "launchfloor.cu: launch failed\n");
		return 1;
	}
	cudaEventElapsedTime(us, a, b);
	*us *= 1000.0f / n;
	return 0;
}

int main(int argc, char **argv)
{
	int nq = argc > 1 ? atoi(argv[1]) : 0;
	if (argc > 1 && (nq < 1 || nq > 100000)) {
		fprintf(stderr, "launchfloor.cu: bad Q '%s'\n", argv[1]);
		return 2;
	}
	float *m;
	cudaEvent_t a, b;
	if (cudaMalloc(&m, 64) != cudaSuccess || cudaEventCreate(&a) ||
	    cudaEventCreate(&b)) {
		fprintf(stderr, "launchfloor.cu: no CUDA device\n");
		return 1;
	}
	const int groups[] = {1, 132, 1024, 1056, 2048}, ks[] = {0, 100, 1000};
	for (int w = 0; w < 2; w++)
		for (int g : groups)
			for (int x = w ? 0 : 2; x < 3; x++) {
				int k = w ? ks[x] : 0;
				float t[101];
				for (int r = 0; r < 101; r++)
					if (span(a, b, m, w, g, k, 1, &t[r]))
						return 1;
				std::sort(t + 1, t + 101);
				printf("cuda_%s,%d,%d,%.2f,%.2f\n", w ? "work" : "empty",
				       g, k, t[50], t[1]);
				if (!nq)
					continue;
				for (int r = 0; r < 21; r++)
					if (span(a, b, m, w, g, k, nq, &t[r]))
						return 1;
				std::sort(t + 1, t + 21);
				printf("cuda_%s_q%d,%d,%d,%.2f,%.2f\n",
				       w ? "work" : "empty", nq, g, k, t[10], t[1]);
			}
	return 0;
}

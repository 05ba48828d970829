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
				float t[101];
				for (int r = 0; r < 101; r++) {
					cudaEventRecord(a);
					if (w)
						work<<<g, 128>>>(m, ks[x]);
					else
						empty<<<g, 128>>>(m);
					cudaEventRecord(b);
					if (cudaEventSynchronize(b) != cudaSuccess) {
						fprintf(stderr, "launchfloor.cu: launch failed\n");
						return 1;
					}
					cudaEventElapsedTime(&t[r], a, b);
					t[r] *= 1000;
				}
				std::sort(t + 1, t + 101);
				printf("cuda_%s,%d,%d,%.2f,%.2f\n", w ? "work" : "empty",
				       g, w ? ks[x] : 0, t[50], t[1]);
				for (int r = 0; nq && r < 21; r++) {
					cudaEventRecord(a);
					for (int s = 0; s < nq; s++)
						if (w)
							work<<<g, 128>>>(m, ks[x]);
						else
							empty<<<g, 128>>>(m);
					cudaEventRecord(b);
					if (cudaEventSynchronize(b) != cudaSuccess) {
						fprintf(stderr, "launchfloor.cu: launch failed\n");
						return 1;
					}
					cudaEventElapsedTime(&t[r], a, b);
					t[r] *= 1000.0f / nq;
				}
				if (nq) {
					std::sort(t + 1, t + 21);
					printf("cuda_%s_q%d,%d,%d,%.2f,%.2f\n",
					       w ? "work" : "empty", nq, g, w ? ks[x] : 0,
					       t[10], t[1]);
				}
			}
	return 0;
}

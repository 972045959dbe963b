// SPDX-License-Identifier: GPL-2.0
/*
 * getppid_loop N: the median over 5 runs of N getppid() calls, in ns per
 * call, on stdout.  A helper of the tracer benchmarks: it is what they
 * trace, strace or leave alone.
 */
#include <sys/syscall.h>
#include "../bench.h"

#define RUNS 5

int main(int argc, char *argv[])
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	uint64_t t[RUNS];
	int r;
	long i;

	if (n <= 0) {
		fprintf(stderr, "usage: getppid_loop N\n");
		return 1;
	}
	for (r = 0; r < RUNS; r++) {
		uint64_t start = bench_now();

		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		t[r] = bench_now() - start;
	}
	printf("%.1f\n", (double)bench_median(t, RUNS) / n);
	return 0;
}

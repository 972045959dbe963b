// SPDX-License-Identifier: GPL-2.0
/*
 * tp_attach N ID: the median over N times of opening and closing a perf
 * event on tracepoint ID (what perf and BPF do to attach to a syscall
 * tracepoint), in ns, on stdout.  A helper of bench/ctxswitch.sh.
 */
#include "../bench.h"

int main(int argc, char *argv[])
{
	long n = argc > 2 ? atol(argv[1]) : 0;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
	};
	uint64_t t[64];
	long i;
	int fd;

	if (n <= 0 || n > 64) {
		fprintf(stderr, "usage: tp_attach N(1-64) TRACEPOINT_ID\n");
		return 1;
	}
	attr.config = strtoull(argv[2], NULL, 0);
	for (i = 0; i < n; i++) {
		uint64_t start = bench_now();

		fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd < 0) {
			perror("perf_event_open");
			return 1;
		}
		close(fd);
		t[i] = bench_now() - start;
	}
	printf("%.1f\n", (double)bench_median(t, n));
	return 0;
}

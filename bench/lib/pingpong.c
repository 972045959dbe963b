// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong N: the median over 5 runs of N round trips of one byte between
 * two processes through two pipes, in ns per round trip (two context
 * switches and four system calls each, on one CPU), on stdout.  A helper
 * of bench/ctxswitch.sh.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include "../bench.h"

#define RUNS 5

int main(int argc, char *argv[])
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	int ping[2], pong[2], r;
	uint64_t t[RUNS];
	cpu_set_t cpu;
	pid_t child;
	char c = 0;
	long i;

	if (n <= 0) {
		fprintf(stderr, "usage: pingpong N\n");
		return 1;
	}
	/* One CPU: each round trip is two switches, not two idle wakeups. */
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	if (sched_setaffinity(0, sizeof(cpu), &cpu) || pipe(ping) || pipe(pong)) {
		perror("pingpong");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (!child) {
		/* Its own end of ping closed, so that the parent's close ends it. */
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (r = 0; r < RUNS; r++) {
		uint64_t start = bench_now();

		for (i = 0; i < n; i++)
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
				perror("pingpong");
				return 1;
			}
		t[r] = bench_now() - start;
	}
	close(ping[1]);
	waitpid(child, NULL, 0);
	printf("%.1f\n", (double)bench_median(t, RUNS) / n);
	return 0;
}

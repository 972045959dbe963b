// SPDX-License-Identifier: GPL-2.0
/*
 * runcmd R DIV CMD [ARGS...]: run CMD R times, one after the other, and
 * print the median time of a run divided by DIV (the operations a run
 * makes), in ns.  The timer of the workloads that are a command of their
 * own rather than a loop of bench/lib.
 */
#include <sys/wait.h>
#include "../bench.h"

#define MAX_RUNS 15

int main(int argc, char *argv[])
{
	int runs = argc > 3 ? atoi(argv[1]) : 0;
	double div = argc > 3 ? atof(argv[2]) : 0;
	uint64_t t[MAX_RUNS];
	int r, status;

	if (runs <= 0 || runs > MAX_RUNS || div <= 0) {
		fprintf(stderr, "usage: runcmd RUNS DIV CMD [ARGS...]\n");
		return 1;
	}
	for (r = 0; r < runs; r++) {
		uint64_t start = bench_now();
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			execvp(argv[3], argv + 3);
			perror(argv[3]);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "runcmd: %s failed\n", argv[3]);
			return 1;
		}
		t[r] = bench_now() - start;
	}
	printf("%.1f\n", (double)bench_median(t, runs) / div);
	return 0;
}

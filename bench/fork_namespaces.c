// SPDX-License-Identifier: GPL-2.0
/*
 * fork+exit+wait with no perf event, with a dummy event on the task, and
 * with a namespaces event, without and with the namespaces' ids: what
 * PERF_RECORD_NAMESPACES costs a fork.
 */
#include <sys/wait.h>
#include "bench.h"

#define LOOPS	2000
#define RUNS	5

/* ns per fork+exit+wait, median of RUNS runs of LOOPS. */
static double fork_loop(struct bench_event *ev)
{
	uint64_t t[RUNS];
	int r, i;

	for (r = 0; r < RUNS; r++) {
		uint64_t start = bench_now();

		for (i = 0; i < LOOPS; i++) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(0);
			waitpid(pid, NULL, 0);
			if (ev)
				bench_event_drain(ev);
		}
		t[r] = bench_now() - start;
	}
	return (double)bench_median(t, RUNS) / LOOPS;
}

int main(void)
{
	struct perf_event_attr attr = bench_dummy_attr();
	struct bench_event ev;

	bench_row("fork+exit", "no event", fork_loop(NULL), NULL);

	bench_event_open(&ev, &attr);
	bench_row("fork+exit", "dummy event", fork_loop(&ev), NULL);
	bench_event_close(&ev);

	attr.namespaces = 1;
	bench_event_open(&ev, &attr);
	bench_row("fork+exit", "namespaces event", fork_loop(&ev), "<= 1.10");
	bench_event_close(&ev);

	attr.namespace_ids = 1;
	bench_event_open(&ev, &attr);
	bench_row("fork+exit", "namespaces event, ids", fork_loop(&ev), "<= 1.10");
	bench_event_close(&ev);
	return 0;
}

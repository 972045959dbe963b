// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_TASK_PERF_UEVENT): what a call costs when nobody listens (the
 * goal: no more than a trivial prctl), and, for scale, when a perf event
 * or the perf:uevent trace event takes it, next to ftrace's trace_marker.
 */
#include <fcntl.h>
#include <sys/prctl.h>
#include "bench.h"


#define LOOPS	20000
#define RUNS	5
#define TRACEFS	"/sys/kernel/tracing/"

static const char msg[] = "request 4711 done";	/* 17 bytes */

enum op { DUMPABLE, UEVENT, MARKER };

/* ns per call, median of RUNS runs of LOOPS; -1 if a call fails. */
static double loop(enum op op, struct bench_event *ev, int marker)
{
	uint64_t t[RUNS];
	int r, i;
	long ret = 0;

	for (r = 0; r < RUNS; r++) {
		uint64_t start = bench_now();

		for (i = 0; i < LOOPS; i++) {
			if (op == DUMPABLE)
				ret = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) < 0;
			else if (op == UEVENT)
				ret = prctl(PR_TASK_PERF_UEVENT, 0, sizeof(msg) - 1,
					    msg, 0);
			else
				ret = write(marker, msg, sizeof(msg) - 1) < 0;
			if (ret)
				return -1;
			if (ev && !(i & 63))
				bench_event_drain(ev);
		}
		t[r] = bench_now() - start;
	}
	return (double)bench_median(t, RUNS) / LOOPS;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

int main(void)
{
	struct perf_event_attr attr = bench_dummy_attr();
	struct bench_event ev;
	int marker;

	attr.uevent = 1;
	bench_row("uevent", "prctl(PR_GET_DUMPABLE)", loop(DUMPABLE, NULL, -1), NULL);
	bench_row("uevent", "PR_TASK_PERF_UEVENT, nobody listens",
		  loop(UEVENT, NULL, -1), "<= 1.10");

	bench_event_open(&ev, &attr);
	bench_row("uevent", "PR_TASK_PERF_UEVENT, perf event",
		  loop(UEVENT, &ev, -1), "scale");
	bench_event_close(&ev);

	if (write_file(TRACEFS "events/perf/uevent/enable", "1") == 0) {
		bench_row("uevent", "PR_TASK_PERF_UEVENT, ftrace event",
			  loop(UEVENT, NULL, -1), "scale");
		write_file(TRACEFS "events/perf/uevent/enable", "0");
	}
	marker = open(TRACEFS "trace_marker", O_WRONLY);
	if (marker >= 0) {
		bench_row("uevent", "write(trace_marker)",
			  loop(MARKER, NULL, marker), "scale");
		close(marker);
	}
	return 0;
}

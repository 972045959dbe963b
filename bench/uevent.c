// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_TASK_PERF_UEVENT): what a call costs when nobody listens (the
 * goal: a trivial prctl and the read of the data), and when a perf event
 * or the perf:uevent trace event takes it (the goal: no more than
 * ftrace's trace_marker, and 5% more for the trace event, which escapes).
 */
#include <fcntl.h>
#include <linux/user_events.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include "bench.h"
#include "user_event.h"


#define LOOPS	20000
#define RUNS	5
#define TRACEFS	"/sys/kernel/tracing/"

static const char msg[] = "request 4711 done";	/* 17 bytes and a NUL */

enum op { DUMPABLE, UEVENT, MARKER, USER_EVENT };

static struct bench_user_event user_event;

/*
 * Empty ftrace's buffer: the rows that write into it start each run on an
 * empty one, large enough for the run, so that every row writes its
 * events and none overwrites.
 */
static bool clear_ftrace;

static void trace_clear(void)
{
	int fd = open(TRACEFS "trace", O_WRONLY | O_TRUNC);

	if (fd >= 0)
		close(fd);
}

/*
 * ns per call, median of RUNS runs of LOOPS; -1 if a call fails.  fd:
 * trace_marker for MARKER, user_events_data for USER_EVENT.
 */
static double loop(enum op op, struct bench_event *ev, int fd)
{
	uint64_t t[RUNS];
	int r, i;
	long ret = 0;

	for (r = 0; r < RUNS; r++) {
		uint64_t start;

		if (clear_ftrace)
			trace_clear();
		start = bench_now();

		for (i = 0; i < LOOPS; i++) {
			if (op == DUMPABLE)
				ret = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) < 0;
			else if (op == UEVENT)
				ret = prctl(PR_TASK_PERF_UEVENT, 0, sizeof(msg) - 1,
					    msg, 0);
			else if (op == MARKER)
				ret = write(fd, msg, sizeof(msg) - 1) < 0;
			else if (user_event.enabled)
				ret = writev(fd, user_event.iov, 3) < 0;
			if (ret)
				return -1;
			if (ev && !(i & 63))
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
	int fd;

	attr.uevent = 1;
	bench_row("uevent", "prctl(PR_GET_DUMPABLE)", loop(DUMPABLE, NULL, -1), NULL);
	/*
	 * The data is copied in whether or not anybody listens, so that
	 * nothing tells a task whether it is monitored: about 80 instructions
	 * over a trivial prctl, which the goal allows.
	 */
	bench_row("uevent", "PR_TASK_PERF_UEVENT, nobody listens",
		  loop(UEVENT, NULL, -1), "<= 1.35");

	/*
	 * A message path that costs more than the trace_marker write it
	 * would replace is a hard sell: the listened-to rows are measured
	 * against it.
	 */
	fd = open(TRACEFS "trace_marker", O_WRONLY);
	if (fd < 0)
		return 0;
	/* 4 MiB a CPU: a run's 20000 events of about 50 bytes fill a quarter. */
	write_file(TRACEFS "buffer_size_kb", "4096");
	clear_ftrace = true;
	bench_row("uevent-listened", "write(trace_marker)",
		  loop(MARKER, NULL, fd), NULL);
	close(fd);

	fd = open(TRACEFS "user_events_data", O_RDWR);
	if (fd >= 0 &&
	    bench_user_event_on(&user_event, fd, "sideband_msg", msg, sizeof(msg)) == 0) {
		bench_row("uevent-listened", "writev(user_events_data)",
			  loop(USER_EVENT, NULL, fd), "scale");
		write_file(TRACEFS "events/user_events/sideband_msg/enable", "0");
	}
	if (fd >= 0)
		close(fd);

	clear_ftrace = false;
	bench_event_open(&ev, &attr);
	bench_row("uevent-listened", "PR_TASK_PERF_UEVENT, perf event",
		  loop(UEVENT, &ev, -1), "<= 1.00");
	bench_event_close(&ev);

	clear_ftrace = true;
	if (write_file(TRACEFS "events/perf/uevent/enable", "1") == 0) {
		/*
		 * The text is escaped as it is stored, which trace_marker does
		 * not do: the goal allows the word-at-a-time test for bytes to
		 * escape.
		 */
		bench_row("uevent-listened", "PR_TASK_PERF_UEVENT, ftrace event",
			  loop(UEVENT, NULL, -1), "<= 1.05");
		write_file(TRACEFS "events/perf/uevent/enable", "0");
	}
	trace_clear();
	write_file(TRACEFS "buffer_size_kb", "1408");
	return 0;
}

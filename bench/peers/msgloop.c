// SPDX-License-Identifier: GPL-2.0
/*
 * msgloop OP: RUNS runs of LOOPS messages of 17 bytes, each through OP,
 * and what got them: "NS WRITTEN LOST" on stdout, ns per message (the
 * median run), messages the listener kept and lost over all runs ("-"
 * where the listener is another program, which counts them itself).
 * The loop of group 2 of make bench-peers (bench/peers/messages.sh),
 * as bench/uevent.c writes its messages:
 *
 *   none         prctl(PR_TASK_PERF_UEVENT), nobody listens
 *   prctl        prctl(PR_TASK_PERF_UEVENT), listened to by another program
 *   perf         prctl(PR_TASK_PERF_UEVENT) to a perf event of the task,
 *                whose ring this program reads as it goes
 *   ftrace       prctl(PR_TASK_PERF_UEVENT) to ftrace's perf:uevent event
 *   marker       write(trace_marker)
 *   marker_raw   write(trace_marker_raw): a 4-byte id, then the bytes
 *   user_event   writev(user_events_data), an event of user_events
 *   usdt         a USDT probe (sys/sdt.h), for bpftrace to attach to
 *   tracef       LTTng-UST's tracef(), into its user-space buffer
 *
 * The ftrace ops start each run on an emptied buffer and count what it
 * holds after the run (per_cpu/cpu*\/stats: entries, and overrun, commit
 * overrun and dropped events as lost).
 */
#include <fcntl.h>
#include <linux/user_events.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include "../bench.h"
#include "../user_event.h"
#ifdef HAVE_SDT
#include <sys/sdt.h>
#endif
#ifdef HAVE_LTTNG_UST
#include <lttng/tracef.h>
#endif

#define LOOPS	5000
#define RUNS	5
#define TRACEFS	"/sys/kernel/tracing/"

static const char msg[] = "request 4711 done";	/* 17 bytes and a NUL */

static struct bench_user_event user_event;

static struct {
	uint32_t id;
	char text[sizeof(msg) - 1];
} raw_marker = { .id = 4711 };

static long long written, lost;

static void trace_clear(void)
{
	int fd = open(TRACEFS "trace", O_WRONLY | O_TRUNC);

	if (fd >= 0)
		close(fd);
}

/* Add the buffer's entries to written, what it lost to lost. */
static void trace_count(void)
{
	char path[64], line[128];
	long long v;
	int cpu;

	for (cpu = 0; ; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), TRACEFS "per_cpu/cpu%d/stats", cpu);
		f = fopen(path, "r");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "entries: %lld", &v) == 1)
				written += v;
			else if (sscanf(line, "overrun: %lld", &v) == 1 ||
				 sscanf(line, "commit overrun: %lld", &v) == 1 ||
				 sscanf(line, "dropped events: %lld", &v) == 1)
				lost += v;
		}
		fclose(f);
	}
}

/* Read the ring as perf would: count the uevents and the lost ones. */
static void perf_read(struct bench_event *ev)
{
	uint64_t head = __atomic_load_n(&ev->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ev->page->data_tail;
	size_t size = ev->page->data_size;
	char *data = (char *)ev->page + ev->page->data_offset;

	while (tail < head) {
		struct perf_event_header *h = (void *)(data + tail % size);

		if (h->type == PERF_RECORD_UEVENT) {
			written++;
		} else if (h->type == PERF_RECORD_LOST) {
			uint64_t n;

			/* id, then lost; the record may wrap. */
			if ((tail % size) + 24 <= size)
				memcpy(&n, (char *)h + 16, 8);
			else
				n = 1;
			lost += n;
		}
		tail += h->size;
	}
	__atomic_store_n(&ev->page->data_tail, tail, __ATOMIC_RELEASE);
}

enum op { NONE, PRCTL, PERF, FTRACE, MARKER, MARKER_RAW, USER_EVENT, USDT, TRACEF };
static const char *const names[] = {
	"none", "prctl", "perf", "ftrace", "marker", "marker_raw",
	"user_event", "usdt", "tracef",
};

int main(int argc, char *argv[])
{
	struct perf_event_attr attr = bench_dummy_attr();
	struct bench_event ev;
	enum op op;
	bool ftrace = false;
	uint64_t t[RUNS];
	int fd = -1, r, i;
	long ret = 0;

	for (op = 0; op <= TRACEF; op++)
		if (argc == 2 && !strcmp(argv[1], names[op]))
			break;
	if (op > TRACEF) {
		fprintf(stderr, "usage: msgloop none|prctl|perf|ftrace|marker|marker_raw|user_event|usdt|tracef\n");
		return 1;
	}
#ifndef HAVE_SDT
	if (op == USDT) {
		puts("not run: no <sys/sdt.h> when built (systemtap-sdt-dev)");
		return 0;
	}
#endif
#ifndef HAVE_LTTNG_UST
	if (op == TRACEF) {
		puts("not run: no <lttng/tracef.h> when built (liblttng-ust-dev)");
		return 0;
	}
#endif
	memcpy(raw_marker.text, msg, sizeof(raw_marker.text));
	switch (op) {
	case PERF:
		attr.uevent = 1;
		bench_event_open(&ev, &attr);
		break;
	case FTRACE:
		ftrace = true;
		if (write_file(TRACEFS "events/perf/uevent/enable", "1")) {
			puts("not run: no perf:uevent event");
			return 0;
		}
		break;
	case MARKER:
	case MARKER_RAW:
		ftrace = true;
		fd = open(op == MARKER ? TRACEFS "trace_marker" : TRACEFS "trace_marker_raw",
			  O_WRONLY);
		break;
	case USER_EVENT:
		ftrace = true;
		fd = open(TRACEFS "user_events_data", O_RDWR);
		if (fd >= 0 &&
		    bench_user_event_on(&user_event, fd, "sideband_peer", msg, sizeof(msg))) {
			puts("not run: user_events registration failed");
			return 0;
		}
		break;
	default:
		break;
	}
	if (ftrace && fd < 0 && op != FTRACE) {
		printf("not run: no %s\n", names[op]);
		return 0;
	}

	for (r = 0; r < RUNS; r++) {
		uint64_t start;

		if (ftrace)
			trace_clear();
		start = bench_now();
		for (i = 0; i < LOOPS; i++) {
			switch (op) {
			case NONE:
			case PRCTL:
			case PERF:
			case FTRACE:
				ret = prctl(PR_TASK_PERF_UEVENT, 0, sizeof(msg) - 1, msg, 0);
				break;
			case MARKER:
				ret = write(fd, msg, sizeof(msg) - 1) < 0;
				break;
			case MARKER_RAW:
				ret = write(fd, &raw_marker, sizeof(raw_marker)) < 0;
				break;
			case USER_EVENT:
				if (user_event.enabled)
					ret = writev(fd, user_event.iov, 3) < 0;
				break;
			case USDT:
#ifdef HAVE_SDT
				DTRACE_PROBE1(sideband, msg, msg);
#endif
				break;
			case TRACEF:
#ifdef HAVE_LTTNG_UST
				tracef("%s", msg);
#endif
				break;
			}
			if (ret) {
				perror(names[op]);
				return 1;
			}
			if (op == PERF && !(i & 63))
				perf_read(&ev);
		}
		t[r] = bench_now() - start;
		if (op == PERF)
			perf_read(&ev);
		if (ftrace)
			trace_count();
	}
	if (op == FTRACE)
		write_file(TRACEFS "events/perf/uevent/enable", "0");
	if (op == USER_EVENT)
		write_file(TRACEFS "events/user_events/sideband_peer/enable", "0");
	if (ftrace)
		trace_clear();
	if (op == PERF || ftrace)
		printf("%.1f %lld %lld\n", (double)bench_median(t, RUNS) / LOOPS, written, lost);
	else
		printf("%.1f - -\n", (double)bench_median(t, RUNS) / LOOPS);
	return 0;
}

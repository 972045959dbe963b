/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the benchmarks of bench/: a clock, a perf event with a
 * drained ring, and the one output format bench/run reads:
 *
 *   <benchmark> TAB <variant> TAB <ns per operation> TAB <goal>
 *
 * The first row of a benchmark is its baseline; goal ("<= 1.10", or
 * empty) bounds a row's ratio to that baseline.  Run under QEMU's
 * -icount (scripts/bench), nanoseconds are guest instructions.
 */
#ifndef BENCH_H
#define BENCH_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BENCH_RING_PAGES 64

struct bench_event {
	int fd;
	struct perf_event_mmap_page *page;
};

static inline uint64_t bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A dummy software event with a sample_id: side-band records only. */
static inline struct perf_event_attr bench_dummy_attr(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.exclude_kernel = 1,
	};

	return attr;
}

/* Open attr on the calling task and map a ring; exit on failure. */
static inline void bench_event_open(struct bench_event *ev, struct perf_event_attr *attr)
{
	ev->fd = syscall(__NR_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ev->fd < 0) {
		perror("perf_event_open");
		exit(1);
	}
	ev->page = mmap(NULL, (BENCH_RING_PAGES + 1) * sysconf(_SC_PAGESIZE),
			PROT_READ | PROT_WRITE, MAP_SHARED, ev->fd, 0);
	if (ev->page == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
}

/* Throw away what the ring holds, as a fast reader would. */
static inline void bench_event_drain(struct bench_event *ev)
{
	uint64_t head = __atomic_load_n(&ev->page->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&ev->page->data_tail, head, __ATOMIC_RELEASE);
}

static inline void bench_event_close(struct bench_event *ev)
{
	munmap(ev->page, (BENCH_RING_PAGES + 1) * sysconf(_SC_PAGESIZE));
	close(ev->fd);
}

/* The median of n values (sorts them). */
static inline uint64_t bench_median(uint64_t *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

static inline void bench_row(const char *bench, const char *variant,
			     double ns, const char *goal)
{
	printf("%s\t%s\t%.1f\t%s\n", bench, variant, ns, goal ? goal : "");
	fflush(stdout);
}

#endif

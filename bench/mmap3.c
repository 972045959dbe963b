// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3: what mmap()+munmap() of an ELF file costs with an
 * MMAP3 event, next to MMAP2 with attr.build_id and attr.build_id_record
 * (perf's default; the goal: no more than 1.10 times that), plain MMAP2
 * and no event; then, right after the page cache was dropped, for how
 * many mappings each of the two gives the build-id, in the mapping's
 * record or in the PERF_RECORD_MMAP_BUILD_ID that follows it.
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include "bench.h"

#define LOOPS	2000
#define RUNS	9
#define COLD	20

/* The file mapped: another benchmark's helper, which nobody maps here. */
static int open_target(char *path)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	snprintf(path, PATH_MAX, "%s/lib/getppid_loop", dirname(self));
	return open(path, O_RDONLY);
}

/* ns per mmap()+munmap() of the file's first page, over LOOPS. */
static double loop(int fd, struct bench_event *ev)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = bench_now();
	int i;

	for (i = 0; i < LOOPS; i++) {
		void *p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			       fd, 0);

		if (p == MAP_FAILED)
			return -1;
		munmap(p, page);
		if (ev && !(i & 15))
			bench_event_drain(ev);
	}
	return (double)(bench_now() - start) / LOOPS;
}

/* The event of each row; attr.mmap plus these bits ("no event": none). */
static const struct variant {
	const char *name, *goal;
	int event, mmap2, build_id, build_id_record, mmap3;
} variants[] = {
	{ "MMAP2 + build_id", NULL, 1, 1, 1, 1, 0 },
	{ "MMAP3", "<= 1.10", 1, 0, 0, 0, 1 },
	{ "MMAP2 (inode)", "scale", 1, 1, 0, 0, 0 },
	{ "no event", "scale", 0, 0, 0, 0, 0 },
};

#define NR_VARIANTS (sizeof(variants) / sizeof(variants[0]))

static double with_event(int fd, const struct variant *v)
{
	struct perf_event_attr attr = bench_dummy_attr();
	struct bench_event ev;
	double ns;

	if (!v->event)
		return loop(fd, NULL);
	attr.mmap = 1;
	attr.mmap2 = v->mmap2;
	attr.build_id = v->build_id;
	attr.build_id_record = v->build_id_record;
	attr.mmap3 = v->mmap3;
	bench_event_open(&ev, &attr);
	ns = loop(fd, &ev);
	bench_event_close(&ev);
	return ns;
}

/*
 * Each run measures every variant once, in turn, so that a drift of the
 * system during the benchmark weighs on all of them alike; each row is
 * the median of its RUNS.
 */
static void warm(int fd)
{
	uint64_t t[NR_VARIANTS][RUNS];
	unsigned int v;
	int r;

	for (r = 0; r < RUNS; r++)
		for (v = 0; v < NR_VARIANTS; v++)
			t[v][r] = with_event(fd, &variants[v]) * 10;
	for (v = 0; v < NR_VARIANTS; v++)
		bench_row("mmap3", variants[v].name,
			  bench_median(t[v], RUNS) / 10.0, variants[v].goal);
}

/*
 * Mappings whose build-id the ring gives: records of type that carry it,
 * and PERF_RECORD_MMAP_BUILD_ID records that bring it later (one follows
 * each record without it, the file being cold each time).
 */
static int with_build_id(struct bench_event *ev, uint32_t type)
{
	unsigned char *data = (unsigned char *)ev->page + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&ev->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos;
	int n = 0;

	/* COLD small records from an empty ring: no wrap-around. */
	for (pos = 0; pos < head;) {
		struct perf_event_header *h = (void *)(data + pos);

		if (h->type == type && type == PERF_RECORD_MMAP2)
			n += !!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
		else if (h->type == type)
			n += data[pos + 72] != 0;	/* build_id_size */
		else if (h->type == PERF_RECORD_MMAP_BUILD_ID)
			n += data[pos + 32] != 0;	/* build_id_size */
		pos += h->size;
	}
	return n;
}

static void cold(const char *path)
{
	struct perf_event_attr attr = bench_dummy_attr();
	struct bench_event mmap2, mmap3;
	long page = sysconf(_SC_PAGESIZE);
	int i, drop, fd;

	drop = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (drop < 0)
		return;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	attr.build_id_record = 1;
	bench_event_open(&mmap2, &attr);
	attr.mmap2 = 0;
	attr.build_id = 0;
	attr.build_id_record = 0;
	attr.mmap3 = 1;
	bench_event_open(&mmap3, &attr);
	for (i = 0; i < COLD; i++) {
		void *p;

		if (write(drop, "1", 1) != 1)
			break;
		fd = open(path, O_RDONLY);
		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p != MAP_FAILED)
			munmap(p, page);
	}
	printf("# mmap3: build-id present after drop_caches, %d mappings: "
	       "MMAP2 + build_id %d, MMAP3 %d\n", i,
	       with_build_id(&mmap2, PERF_RECORD_MMAP2),
	       with_build_id(&mmap3, PERF_RECORD_MMAP3));
	bench_event_close(&mmap2);
	bench_event_close(&mmap3);
	close(drop);
}

int main(void)
{
	char path[PATH_MAX];
	int fd = open_target(path);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	warm(fd);
	close(fd);
	cold(path);
	return 0;
}

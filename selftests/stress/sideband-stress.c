// SPDX-License-Identifier: GPL-2.0
/*
 * sideband-stress [SECONDS]: every new code path of the series at once,
 * for a bounded time (default 60 s, or STRESS_SECONDS), as root.
 *
 *  - two threads emit uevents of a type of their own, as fast as they can;
 *  - a thread forks children that unshare namespaces and setns back;
 *  - a thread maps ELF files executable, now and then right after
 *    dropping the page cache (the MMAP3 records that wait for the return
 *    to user space), and every 64th time one kind of fd of many (sockets,
 *    a pipe through /proc, character devices, a perf event, memfd, tmpfs
 *    and 9p files) in a child under MMAP3 + mmap_data events: the read of
 *    the build-id on return to user space must neither block mmap() nor
 *    take a socket's data (include/map-fd-kinds.h);
 *  - a thread opens, enables, disables and closes events with the new
 *    bits (namespaces, uevent, mmap3, mmap2 + build_id), task-bound,
 *    inherited and CPU-wide;
 *  - a thread switches the process tracer on and off, following us;
 *  - one CPU-wide uevent event per CPU stays open throughout, read by a
 *    thread of its own.
 *
 * Each call that returned 0 gave its record to the event of the CPU it ran
 * on, so in the end records received + records lost (PERF_RECORD_LOST)
 * must equal calls made, and no fd mapping may have hung, lost data or
 * made the kernel warn.  Splats are the harness' business (dmesg).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "map-fd-kinds.h"
#include "write-file.h"

#define STRESS_TYPE		0x5354	/* 'ST': only the emitters use it */
#define MAX_CPUS		64
#define RING_PAGES		64
#define TRACING			"/sys/kernel/tracing/"

static atomic_bool stop, stop_readers;
static atomic_ulong emitted, received, lost, forks, maps, cold_maps,
	opens, switches;
static long page;

struct ring {
	int fd;
	struct perf_event_mmap_page *pc;
};

static struct ring rings[MAX_CPUS];
static int nr_rings;

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void *emitter(void *arg)
{
	char msg[32];
	unsigned long n = 0;

	while (!atomic_load(&stop)) {
		int len = snprintf(msg, sizeof(msg), "stress %lu", n++);

		if (!prctl(PR_TASK_PERF_UEVENT, STRESS_TYPE, len, msg, 0))
			atomic_fetch_add(&emitted, 1);
	}
	return arg;
}

/* Count our uevents and the losses in one ring; false when it was empty. */
static int drain(struct ring *r)
{
	unsigned char *data = (unsigned char *)r->pc + page;
	uint64_t size = RING_PAGES * page;
	uint64_t head = atomic_load_explicit((_Atomic uint64_t *)&r->pc->data_head,
					     memory_order_acquire);
	uint64_t tail = r->pc->data_tail;

	if (tail == head)
		return 0;
	while (tail < head) {
		struct perf_event_header h;
		unsigned char rec[64];
		uint64_t i;

		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		for (i = 0; i < sizeof(rec) && i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		if (h.type == PERF_RECORD_UEVENT &&
		    *(uint32_t *)(rec + 8) == STRESS_TYPE)
			atomic_fetch_add(&received, 1);
		else if (h.type == PERF_RECORD_LOST)
			atomic_fetch_add(&lost, *(uint64_t *)(rec + 16));
		if (!h.size)
			break;
		tail += h.size;
	}
	atomic_store_explicit((_Atomic uint64_t *)&r->pc->data_tail, tail,
			      memory_order_release);
	return 1;
}

static void *reader(void *arg)
{
	int i, busy;

	do {
		busy = 0;
		for (i = 0; i < nr_rings; i++)
			busy |= drain(&rings[i]);
		if (!busy)
			usleep(1000);
	} while (!atomic_load(&stop_readers) || busy);
	return arg;
}

static void *forker(void *arg)
{
	while (!atomic_load(&stop)) {
		pid_t pid = fork();

		if (pid == 0) {
			int fd = open("/proc/1/ns/uts", O_RDONLY);

			if (!unshare(CLONE_NEWUTS | CLONE_NEWIPC) && fd >= 0)
				setns(fd, CLONE_NEWUTS);
			_exit(0);
		}
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			atomic_fetch_add(&forks, 1);
	}
	return arg;
}

static void *mapper(void *arg)
{
	static const char *const files[] = { "/proc/self/exe", "/bin/sh", "/usr/bin/env" };
	unsigned long n = 0;

	while (!atomic_load(&stop)) {
		int fd, drop;
		void *p;

		if (!(++n % 64)) {
			drop = open("/proc/sys/vm/drop_caches", O_WRONLY);
			if (drop >= 0 && write(drop, "1", 1) == 1)
				atomic_fetch_add(&cold_maps, 1);
			if (drop >= 0)
				close(drop);
		}
		if (n % 64 == 32)
			fdk_probe(n / 64 % FDK_KINDS);
		fd = open(files[n % 3], O_RDONLY);
		if (fd < 0)
			continue;
		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p != MAP_FAILED) {
			atomic_fetch_add(&maps, 1);
			munmap(p, page);
		}
	}
	return arg;
}

static void *opener(void *arg)
{
	unsigned int n = 0;

	while (!atomic_load(&stop)) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_DUMMY,
			.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
			.sample_id_all = 1,
			.disabled = 1,
		};
		int cpu_wide = n % 4 == 3, fd;
		void *ring;

		n++;
		attr.namespaces = n & 1;
		attr.namespace_ids = attr.namespaces && (n & 32);
		attr.uevent = !!(n & 2);
		attr.mmap = 1;
		attr.mmap_data = !!(n & 8);
		if (n & 4) {
			attr.mmap3 = 1;
		} else {
			attr.mmap2 = 1;
			attr.build_id = !!(n & 16);
		}
		attr.inherit = !cpu_wide && (n & 32);
		fd = perf_open(&attr, cpu_wide ? -1 : 0, cpu_wide ? (int)(n / 4 % nr_rings) : -1);
		if (fd < 0)
			continue;
		atomic_fetch_add(&opens, 1);
		ring = mmap(NULL, 9 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		usleep(100);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (ring != MAP_FAILED)
			munmap(ring, 9 * page);
		close(fd);
	}
	return arg;
}

static void *tracer(void *arg)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	while (!atomic_load(&stop)) {
		/* The settings go back to their defaults with each nop. */
		if (write_file(TRACING "process/follow_pid", pid))
			return arg;
		if (!write_file(TRACING "current_tracer", "process"))
			atomic_fetch_add(&switches, 1);
		usleep(20000);
		write_file(TRACING "process/syscalls", "1");
		usleep(20000);
		write_file(TRACING "current_tracer", "nop");
		write_file(TRACING "events/perf/uevent/enable", switches % 2 ? "1" : "0");
	}
	write_file(TRACING "events/perf/uevent/enable", "0");
	return arg;
}

int main(int argc, char *argv[])
{
	int seconds = argc > 1 ? atoi(argv[1]) :
		      getenv("STRESS_SECONDS") ? atoi(getenv("STRESS_SECONDS")) : 60;
	void *(*workers[])(void *) = { emitter, emitter, forker, mapper, opener, tracer };
	pthread_t threads[6], rd;
	int cpus, cpu, i;

	page = sysconf(_SC_PAGESIZE);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > MAX_CPUS)
		cpus = MAX_CPUS;
	for (cpu = 0; cpu < cpus; cpu++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_DUMMY,
			.sample_type = PERF_SAMPLE_TID,
			.sample_id_all = 1,
			.uevent = 1,
		};
		struct ring *r = &rings[nr_rings];

		r->fd = perf_open(&attr, -1, cpu);
		if (r->fd < 0) {
			printf("# CPU-wide uevent event on CPU %d: %s\n", cpu,
			       strerror(errno));
			/*
			 * Not allowed here is a skip.  EINVAL is a kernel
			 * without the uevent bit, or one that broke it: the
			 * suites that run this carry the series, so it fails.
			 */
			return errno == EACCES ? 4 : 1;
		}
		r->pc = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
			     MAP_SHARED, r->fd, 0);
		if (r->pc == MAP_FAILED)
			return 1;
		nr_rings++;
	}

	pthread_create(&rd, NULL, reader, NULL);
	for (i = 0; i < 6; i++)
		pthread_create(&threads[i], NULL, workers[i], NULL);
	sleep(seconds);
	atomic_store(&stop, 1);
	for (i = 0; i < 6; i++)
		pthread_join(threads[i], NULL);
	atomic_store(&stop_readers, 1);
	pthread_join(rd, NULL);
	write_file(TRACING "current_tracer", "nop");

	printf("# figures: stress %d s on %d CPUs: uevents emitted %lu, received %lu, lost %lu; "
	       "children %lu, mappings %lu (%lu after drop_caches), "
	       "events opened %lu, tracer switches %lu\n", seconds, cpus,
	       atomic_load(&emitted), atomic_load(&received), atomic_load(&lost),
	       atomic_load(&forks), atomic_load(&maps), atomic_load(&cold_maps),
	       atomic_load(&opens), atomic_load(&switches));
	fdk_print();
	if (atomic_load(&received) + atomic_load(&lost) != atomic_load(&emitted)) {
		printf("# received + lost != emitted\n");
		return 1;
	}
	return fdk_failed();
}

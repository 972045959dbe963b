// SPDX-License-Identifier: GPL-2.0
/*
 * attr-prctl-fuzz [SECONDS]: random combinations of the series' entry
 * points for a bounded time, as the user it runs as.
 *
 * Each round opens a perf event with a random mix of the side-band bits
 * the series adds or changes (namespaces and their ids, uevent, mmap3,
 * with mmap, mmap2, build_id, mmap_data, inherit, enable_on_exec...),
 * sometimes a bad attr size or reserved bits, on this task, a child or a
 * CPU; then makes random PR_TASK_PERF_UEVENT calls (types past 32 bits,
 * sizes 0 to past the limit, pointers to nothing, to the kernel, to the
 * end of a mapping; flags), maps ELF and other files, forks, unshares,
 * reads and closes.  Every failure must carry one of the errnos the
 * interfaces document; the kernel must not splat (the harness checks
 * dmesg).
 *
 * Every kind of fd it can make (sockets, a pipe through /proc, character
 * devices, a perf event, memfd, tmpfs and 9p files) is mapped under MMAP3
 * + mmap_data events first, as the user it was started as (root: packet
 * sockets and CPU-wide events), then now and then as nobody: each mmap()
 * must return, and leave a socket's or pipe's data where it was
 * (include/map-fd-kinds.h).
 * Prints the counts; exits 1 on an errno outside the documented sets, or
 * on a mapping that hung, lost data or made the kernel warn.
 *
 * Run as root it becomes nobody first (FUZZ_AS_ROOT=1 keeps root);
 * FUZZ_SEED repeats a run, FUZZ_SECONDS (or SECONDS) bounds it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
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

#define UEVENT_MAX		4096

static uint64_t state;
static unsigned long rounds, opened, uevents, uevents_ok, maps, forks;
static unsigned long bad;

/* xorshift64*: a reproducible sequence from the printed seed. */
static uint64_t rnd(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ULL;
}

static int chance(int percent)
{
	return rnd() % 100 < (uint64_t)percent;
}

static void unexpected(const char *what, int err)
{
	bad++;
	printf("# unexpected errno from %s: %d (%s)\n", what, err, strerror(err));
}

/* The width of attr.__reserved_1, which every new attr bit narrows. */
static unsigned int reserved_1_bits(void)
{
	volatile unsigned long long all = ~0ULL;	/* no constant overflow */
	struct perf_event_attr a = { 0 };

	a.__reserved_1 = all;
	return __builtin_popcountll(a.__reserved_1);
}

static struct perf_event_attr random_attr(void)
{
	struct perf_event_attr attr;
	static const uint64_t configs[] = {
		PERF_COUNT_SW_DUMMY, PERF_COUNT_SW_CPU_CLOCK,
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
	};

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = configs[rnd() % 4];
	attr.sample_period = 1 + rnd() % 100000;
	attr.sample_type = rnd() & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				    PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	attr.exclude_kernel = chance(80);
	attr.exclude_hv = 1;
	attr.disabled = chance(30);
	attr.sample_id_all = chance(80);
	attr.mmap = chance(50);
	attr.mmap2 = chance(40);
	attr.mmap3 = chance(40);
	attr.build_id = chance(20);
	attr.mmap_data = chance(30);
	attr.namespaces = chance(30);
	attr.namespace_ids = chance(30);
	attr.uevent = chance(60);
	attr.comm = chance(30);
	attr.task = chance(30);
	attr.inherit = chance(30);
	attr.inherit_thread = attr.inherit && chance(30);
	attr.enable_on_exec = chance(10);
	attr.watermark = chance(20);
	attr.wakeup_events = rnd() % 4;
	if (chance(5))
		attr.size = rnd() % (sizeof(attr) + 64);
	if (chance(5))
		attr.__reserved_1 = 1ULL << (rnd() % reserved_1_bits());
	return attr;
}

/* What perf_event_open() may answer to a random attr and target. */
static int open_errno_ok(int err)
{
	return err == EINVAL || err == E2BIG || err == EACCES ||
	       err == EPERM || err == ENOENT || err == ESRCH ||
	       err == EOPNOTSUPP || err == ENODEV || err == EMFILE;
}

/* A pointer for the uevent data: valid, short, or nowhere. */
static const void *random_data(const char *buf, const char *edge)
{
	switch (rnd() % 6) {
	case 0:
		return NULL;
	case 1:
		return (const void *)0xffffffff81000000UL;
	case 2:
		return edge - rnd() % 64;	/* runs into the guard page */
	case 3:
		return (const void *)1;
	default:
		return buf + rnd() % 64;
	}
}

static void uevent_round(const char *buf, const char *edge)
{
	uint64_t type = chance(10) ? rnd() : rnd() % 4;
	uint64_t size, flags = chance(10) ? rnd() : 0;
	const void *data = random_data(buf, edge);
	long ret;

	switch (rnd() % 5) {
	case 0:
		size = 0;
		break;
	case 1:
		size = UEVENT_MAX + rnd() % 3;
		break;
	case 2:
		size = rnd();
		break;
	default:
		size = 1 + rnd() % 256;
	}
	ret = prctl(PR_TASK_PERF_UEVENT, type, size, data, flags);
	uevents++;
	if (!ret) {
		uevents_ok++;
		return;
	}
	/* Documented: EINVAL, E2BIG, EFAULT, ENOMEM. */
	if (errno != EINVAL && errno != E2BIG && errno != EFAULT && errno != ENOMEM)
		unexpected("PR_TASK_PERF_UEVENT", errno);
}

static void map_round(void)
{
	static const char *const files[] = {
		"/proc/self/exe", "/bin/sh", "/etc/passwd",
	};
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(files[rnd() % 3], O_RDONLY);
	int prot = PROT_READ | (chance(60) ? PROT_EXEC : 0);
	void *p;

	if (fd < 0)
		return;
	p = mmap(NULL, page, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	maps++;
	if (chance(30))
		mprotect(p, page, PROT_READ);
	munmap(p, page);
}

static void child_round(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* Unprivileged: EPERM is the expected answer. */
		if (chance(50))
			unshare(CLONE_NEWUTS | (chance(50) ? CLONE_NEWNS : 0));
		prctl(PR_TASK_PERF_UEVENT, 0, 5, "child", 0);
		_exit(0);
	}
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		forks++;
	}
}

int main(int argc, char *argv[])
{
	int seconds = argc > 1 ? atoi(argv[1]) :
		      getenv("FUZZ_SECONDS") ? atoi(getenv("FUZZ_SECONDS")) : 20;
	long page = sysconf(_SC_PAGESIZE);
	time_t end;
	char *area, *edge;
	int i;

	/* Every kind once before becoming nobody: root may open CPU-wide
	 * events, and make packet sockets in the namespaces it has. */
	for (i = 0; i < FDK_KINDS; i++)
		fdk_probe(i);
	if (getuid() == 0 && !getenv("FUZZ_AS_ROOT") &&
	    (setgroups(0, NULL) || setgid(65534) || setuid(65534))) {
		perror("cannot become nobody");
		return 1;
	}
	end = time(NULL) + seconds;

	state = getenv("FUZZ_SEED") ? strtoull(getenv("FUZZ_SEED"), NULL, 0) :
		(uint64_t)time(NULL) * 2654435761u + getpid();
	if (!state)
		state = 1;
	printf("# seed %#llx, %d s, uid %d\n", (unsigned long long)state,
	       seconds, getuid());

	/* A page of data followed by a page that is not mapped. */
	area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 1;
	memset(area, 'u', page);
	munmap(area + page, page);
	edge = area + page;

	while (time(NULL) < end) {
		struct perf_event_attr attr = random_attr();
		pid_t pid = chance(80) ? 0 : -1;
		int cpu = pid == -1 ? (int)(rnd() % 2) : (chance(80) ? -1 : 0);
		void *ring = MAP_FAILED;
		size_t ring_len = (1 + (1 << (rnd() % 3))) * page;
		int fd;

		rounds++;
		fd = syscall(__NR_perf_event_open, &attr, pid, cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (!open_errno_ok(errno))
				unexpected("perf_event_open", errno);
		} else {
			opened++;
			if (chance(70))
				ring = mmap(NULL, ring_len, PROT_READ | (chance(80) ? PROT_WRITE : 0),
					    MAP_SHARED, fd, 0);
			if (chance(50))
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		for (i = rnd() % 8; i > 0; i--) {
			switch (rnd() % 4) {
			case 0:
			case 1:
				uevent_round(area, edge);
				break;
			case 2:
				map_round();
				break;
			default:
				if (chance(20))
					child_round();
				else if (chance(2))
					fdk_probe(rnd() % FDK_KINDS);
				else if (fd >= 0)
					ioctl(fd, chance(50) ? PERF_EVENT_IOC_DISABLE :
					      PERF_EVENT_IOC_ENABLE, 0);
			}
		}
		if (ring != MAP_FAILED)
			munmap(ring, ring_len);
		if (fd >= 0)
			close(fd);
	}
	printf("# figures: fuzz rounds %lu, events opened %lu, uevent calls %lu (%lu ok), "
	       "mappings %lu, children %lu, unexpected errnos %lu\n",
	       rounds, opened, uevents, uevents_ok, maps, forks, bad);
	fdk_print();
	return bad || fdk_failed() ? 1 : 0;
}

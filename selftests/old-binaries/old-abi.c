// SPDX-License-Identifier: GPL-2.0
/*
 * old-abi: perf_event_open() as every program already built calls it.
 *
 * Built against the distribution's <linux/perf_event.h> (Debian
 * bookworm's, 6.1: a 136-byte perf_event_attr), never the series'
 * headers: its layout is the one existing binaries carry.  Each test
 * sets one of the fields that lie after the flags word and checks that
 * the kernel read it there: a breakpoint (bp_type, bp_addr, bp_len),
 * a uprobe and a kprobe PMU event (config1, config2), a sampling event's
 * wakeup_events, and a synchronous signal's sig_data (the last field).
 * A kernel whose flags word grew into the next one (the lts leg once
 * did) reads each of them eight bytes off, and fails every test here.
 *
 * Two modes serve old-tools: "old-abi --call N" calls old_abi_target()
 * N times (a bpftrace uprobe counts them), "old-abi --write N" writes a
 * watched variable N times and "old-abi --where" prints its address
 * (Debian's perf counts the writes with a breakpoint event).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"

/* What the probes count: a function the compiler keeps, called N times. */
__attribute__((noinline, used)) void old_abi_target(void)
{
	asm volatile("" ::: "memory");
}

static void call_target(int n)
{
	while (n--)
		old_abi_target();
}

static int open_event(struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
}

static uint64_t count_of(int fd)
{
	uint64_t n = 0;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return (uint64_t)-1;
	return n;
}

/* The type of the dynamic PMU NAME (uprobe, kprobe); -1 without it. */
static int pmu_type(const char *name)
{
	char path[128];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* The offset of old_abi_target() in this program's file. */
static long target_file_offset(void)
{
	unsigned long start, end, off, addr = (unsigned long)old_abi_target;
	char line[512], perm[8];
	long found = -1;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perm, &off) != 4)
			continue;
		if (addr >= start && addr < end && perm[2] == 'x') {
			found = addr - start + off;
			break;
		}
	}
	fclose(f);
	return found;
}

static volatile uint64_t watched;

/* A hardware breakpoint on writes to watched, from user space. */
static struct perf_event_attr watch_attr(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(attr),
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uintptr_t)&watched,
		.bp_len = HW_BREAKPOINT_LEN_8,
		.sample_period = 1,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return attr;
}

TEST(breakpoint_counts_writes)
{
	struct perf_event_attr attr = watch_attr();
	int fd, i;

	fd = open_event(&attr);
	ASSERT_GE(fd, 0) TH_LOG("breakpoint event: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 10; i++)
		watched = i;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(10, count_of(fd));
	close(fd);
}

TEST(uprobe_pmu_counts_calls)
{
	char exe[4096];
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.disabled = 1,
		.exclude_kernel = 1,
	};
	long off = target_file_offset();
	ssize_t len;
	int fd;

	attr.type = pmu_type("uprobe");
	if ((int)attr.type < 0)
		SKIP(return, "no uprobe PMU (CONFIG_UPROBE_EVENTS)");
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(len, 0);
	exe[len] = '\0';
	ASSERT_GE(off, 0);
	attr.uprobe_path = (uintptr_t)exe;
	attr.probe_offset = off;
	fd = open_event(&attr);
	ASSERT_GE(fd, 0) TH_LOG("uprobe event on %s+%#lx: %s", exe, off, strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	call_target(7);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(7, count_of(fd));
	close(fd);
}

/* A kprobe on getppid(), which the C library does not cache. */
static int open_getppid_kprobe(struct perf_event_attr *attr)
{
	static const char func[] = "__x64_sys_getppid";

	attr->type = pmu_type("kprobe");
	if ((int)attr->type < 0)
		return -2;
	attr->size = sizeof(*attr);
	attr->kprobe_func = (uintptr_t)func;
	attr->probe_offset = 0;
	return open_event(attr);
}

TEST(kprobe_pmu_counts_calls)
{
	struct perf_event_attr attr = { .disabled = 1 };
	int fd, i;

	fd = open_getppid_kprobe(&attr);
	if (fd == -2)
		SKIP(return, "no kprobe PMU (CONFIG_KPROBE_EVENTS)");
	ASSERT_GE(fd, 0) TH_LOG("kprobe event: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 5; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(5, count_of(fd));
	close(fd);
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

TEST(wakeup_events_wakes_at_n)
{
	struct perf_event_attr attr = {
		.disabled = 1,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TID,
		.wakeup_events = 4,
	};
	size_t len = 9 * getpagesize();
	void *rb;
	int fd, i;

	fd = open_getppid_kprobe(&attr);
	if (fd == -2)
		SKIP(return, "no kprobe PMU (CONFIG_KPROBE_EVENTS)");
	ASSERT_GE(fd, 0) TH_LOG("kprobe event: %s", strerror(errno));
	rb = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, rb);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 3; i++)
		syscall(SYS_getppid);
	/* Three samples of a 32 KiB buffer: only wakeup_events wakes. */
	EXPECT_FALSE(readable(fd));
	syscall(SYS_getppid);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_TRUE(readable(fd)) TH_LOG("no wake-up after wakeup_events samples");
	munmap(rb, len);
	close(fd);
}

static volatile uint64_t sig_data_seen;

static void on_sigtrap(int sig, siginfo_t *info, void *uc)
{
	/*
	 * The C library's siginfo_t does not name si_perf_data: it is the
	 * word after si_addr in the fault member (asm-generic/siginfo.h).
	 */
	sig_data_seen = *(unsigned long *)((char *)&info->si_addr + sizeof(void *));
}

TEST(sigtrap_carries_sig_data)
{
	struct perf_event_attr attr = watch_attr();
	struct sigaction sa = { .sa_sigaction = on_sigtrap, .sa_flags = SA_SIGINFO };
	struct sigaction old;
	int fd;

	attr.remove_on_exec = 1;
	attr.sigtrap = 1;
	attr.sig_data = 0x5eb5eb;
	ASSERT_EQ(0, sigaction(SIGTRAP, &sa, &old));
	fd = open_event(&attr);
	ASSERT_GE(fd, 0) TH_LOG("breakpoint event with sigtrap: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	watched = 1;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	sigaction(SIGTRAP, &old, NULL);
	EXPECT_EQ(0x5eb5eb, sig_data_seen);
	close(fd);
}

int main(int argc, char **argv)
{
	int i;

	if (argc == 3 && !strcmp(argv[1], "--call")) {
		call_target(atoi(argv[2]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--write")) {
		for (i = 0; i < atoi(argv[2]); i++)
			watched = i;
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--where")) {
		printf("%p\n", (void *)&watched);
		return 0;
	}
	return test_harness_run(argc, argv);
}

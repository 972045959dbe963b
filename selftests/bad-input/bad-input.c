// SPDX-License-Identifier: GPL-2.0
/*
 * bad-input [--table]: the series' new entry points with the malformed
 * inputs their documentation gives an errno for, as one table that is
 * also the test.
 *
 * Each case names an entry point (an attr bit or combination of bits of
 * perf_event_open(2), an argument of prctl(PR_TASK_PERF_UEVENT), a tracefs
 * file of the process tracer or uevent_user_buf_size), says in words what
 * is wrong with the input, makes the call and compares the errno with the
 * one the documentation gives: Documentation/userspace-api/perf_sideband.rst,
 * Documentation/trace/process.rst, Documentation/trace/ftrace.rst, and
 * perf_event_open(2) and write(2)
 * where those say nothing.  A few valid neighbours of bad inputs (the
 * largest size, a bit alone) are cases too, expected to succeed: they
 * show where the boundary is, and that the checks after the call can see
 * something happen.
 *
 * After each call it checks, where that is cheap, that nothing else
 * happened: a rejected tracefs write leaves the file's value and the
 * current tracer as they were; a rejected prctl() writes no record into
 * the ring buffer of a listening attr.uevent event and no line into a
 * trace instance with perf:uevent on; an attr size error writes back the
 * size the kernel expects, as perf_event_open(2) says.
 *
 * Run as root.  While it runs it changes perf_event_paranoid, the process
 * tracer's files and current_tracer, and makes a trace instance
 * "bad-input"; it puts them back at exit.  Prints TAP, one line per case.
 *
 * With --table it runs nothing and prints the table in markdown:
 * Documentation/bad-input.md holds that, and scripts/check-doc-tables
 * checks that the two agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <linux/prctl.h>

#include "kselftest.h"
#include "read-file.h"
#include "write-file.h"

/* The words of the table say 4096 and 4097. */
_Static_assert(PERF_UEVENT_MAX_SIZE == 4096, "the table's words need updating");

#define TRACING		"/sys/kernel/tracing"
#define INSTANCE	TRACING "/instances/bad-input"
#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define NOBODY_ID	65534
#define KERNEL_TEXT	0xffffffff81000000UL
#define DATA_SIZE	5	/* the uevent data size of most cases */

enum kind { ATTR, UEVENT, KNOB };

/* Who calls perf_event_open(). */
enum who {
	ROOT,
	NOBODY,			/* uid 65534, no capability */
	NOBODY_PERFMON,		/* uid 65534 with CAP_PERFMON */
	ROOT_NO_PERFMON,	/* uid 0 without CAP_PERFMON and CAP_SYS_ADMIN */
};

/* Where the data of prctl(PR_TASK_PERF_UEVENT) points. */
enum data {
	DATA_BUF,		/* a readable buffer */
	DATA_NULL,
	DATA_LOW,		/* address 8: the first page, never mapped */
	DATA_KERNEL,		/* the kernel's text */
	DATA_EDGE,		/* 2 bytes before a page that is not mapped */
	DATA_PROT_NONE,		/* a page mapped PROT_NONE */
};

/* Who listens to the uevents during the call. */
enum listener {
	LISTEN_BOTH,		/* an attr.uevent event on this task, perf:uevent */
	LISTEN_EVENT,		/* the attr.uevent event only */
	LISTEN_TRACE,		/* the perf:uevent trace event only */
	LISTEN_NONE,
};

/* How a tracefs file is written. */
enum how {
	WRITE_VALUE,		/* the bytes of bad */
	WRITE_UNREADABLE,	/* 4 bytes from a page that is not mapped */
	WRITE_REAPED_PID,	/* the pid of a child that was reaped */
	WRITE_FROM_PIDNS,	/* this process's pid, from a new pid namespace */
	WRITE_FROM_USERNS,	/* bad, from a new user namespace with no uid mapped */
};

struct bad_case {
	enum kind kind;
	const char *entry;	/* the entry point (markdown) */
	const char *input;	/* what is wrong with the input (markdown) */
	int err;		/* the documented errno; 0: the call succeeds */

	/* perf_event_open(): these bits on a disabled dummy software event */
	struct perf_event_attr attr;
	enum who who;
	bool cpu_wide;		/* pid -1, CPU 0 instead of this task */
	const char *paranoid;	/* perf_event_paranoid for the call, or as is */
	int bit;		/* attr's flags word must be 1 << bit (the words say so) */
	bool size_tail;		/* attr.size 8 bytes past the struct, nonzero there */

	/* prctl(PR_TASK_PERF_UEVENT, type, size, data, flags) */
	unsigned long type, size, flags;
	enum data data;
	enum listener listener;

	/* a write to TRACING/knob */
	const char *knob;
	const char *good;	/* set before the write; "self": this pid */
	const char *bad;	/* the bytes written */
	size_t len;		/* their number, when bad holds a NUL */
	enum how how;
	const char *after;	/* read back after a write that succeeds */
};

#define PERF_OPEN(_entry, _input, _err, ...) \
	{ .kind = ATTR, .entry = "perf_event_open: " _entry, .input = _input, \
	  .err = _err, __VA_ARGS__ }
#define UEVENT_ARG(_arg, _input, _err, ...) \
	{ .kind = UEVENT, .entry = "prctl(PR_TASK_PERF_UEVENT): " _arg, \
	  .input = _input, .err = _err, .size = DATA_SIZE, __VA_ARGS__ }
#define TRACEFS(_knob, _input, _err, ...) \
	{ .kind = KNOB, .entry = "tracefs `" _knob "`", .knob = _knob, \
	  .input = _input, .err = _err, __VA_ARGS__ }

/* The comm filter rejects 16 characters: TASK_COMM_LEN with the NUL. */
#define COMM16		"0123456789abcdef"
/*
 * Non-numbers of 40 and 71 bytes, zeros but for the last: longer than
 * any u32 (for 71: any s64) can be written, in base 2 with sign and
 * newline, so that a parser that reads only that much sees a valid 0.
 */
#define ZEROS40X	"000000000000000000000000000000000000000x"
#define ZEROS70X	"0000000000000000000000000000000000000000" \
			"000000000000000000000000000000x"

static const struct bad_case cases[] = {
	/* perf_event_open(): the new bits, their combinations, neighbours */
	PERF_OPEN("`attr.mmap3`", "alone, on this task (valid)", 0,
		  .attr = { .mmap3 = 1 }),
	PERF_OPEN("`attr.mmap3`", "with `attr.mmap` and `attr.mmap_data` (valid)", 0,
		  .attr = { .mmap3 = 1, .mmap = 1, .mmap_data = 1 }),
	PERF_OPEN("`attr.mmap3`", "with `attr.mmap2`", EINVAL,
		  .attr = { .mmap3 = 1, .mmap2 = 1 }),
	PERF_OPEN("`attr.build_id_record`", "with `attr.mmap2` and `attr.build_id` (valid)", 0,
		  .attr = { .mmap2 = 1, .build_id = 1, .build_id_record = 1 }),
	PERF_OPEN("`attr.build_id_record`", "without `attr.build_id`", EINVAL,
		  .attr = { .mmap2 = 1, .build_id_record = 1 }),
	PERF_OPEN("`attr.build_id_record`", "without `attr.mmap2`", EINVAL,
		  .attr = { .build_id = 1, .build_id_record = 1 }),
	PERF_OPEN("`attr.build_id_record`", "with `attr.mmap3` (which implies it)", EINVAL,
		  .attr = { .mmap3 = 1, .build_id_record = 1 }),
	PERF_OPEN("`attr.mmap3`", "with `attr.build_id`, without `attr.mmap2`", EINVAL,
		  .attr = { .mmap3 = 1, .build_id = 1 }),
	PERF_OPEN("`attr.mmap3`", "with `attr.mmap2` and `attr.build_id`", EINVAL,
		  .attr = { .mmap3 = 1, .mmap2 = 1, .build_id = 1 }),
	PERF_OPEN("`attr.mmap3`", "with `attr.mmap2`, on a CPU (pid -1, CPU 0)", EINVAL,
		  .attr = { .mmap3 = 1, .mmap2 = 1 }, .cpu_wide = true),
	PERF_OPEN("`attr.mmap3`", "as nobody, `perf_event_paranoid` 2 (valid)", 0,
		  .attr = { .mmap3 = 1 }, .who = NOBODY, .paranoid = "2"),
	PERF_OPEN("`attr.uevent`", "alone, on this task (valid)", 0,
		  .attr = { .uevent = 1 }),
	PERF_OPEN("`attr.uevent`", "as nobody, `perf_event_paranoid` 2 (valid)", 0,
		  .attr = { .uevent = 1 }, .who = NOBODY, .paranoid = "2"),
	PERF_OPEN("`attr.uevent`, `attr.mmap3`, `attr.namespaces`",
		  "all three, as root (valid)", 0,
		  .attr = { .uevent = 1, .mmap3 = 1, .namespaces = 1 }),
	PERF_OPEN("`attr.namespaces`", "as nobody, `perf_event_paranoid` 2", EACCES,
		  .attr = { .namespaces = 1 }, .who = NOBODY, .paranoid = "2"),
	PERF_OPEN("`attr.namespaces`", "as nobody, `perf_event_paranoid` -1", EACCES,
		  .attr = { .namespaces = 1 }, .who = NOBODY, .paranoid = "-1"),
	PERF_OPEN("`attr.namespaces`",
		  "as nobody, on a CPU (pid -1, CPU 0), `perf_event_paranoid` -1", EACCES,
		  .attr = { .namespaces = 1 }, .who = NOBODY, .paranoid = "-1",
		  .cpu_wide = true),
	PERF_OPEN("`attr.namespaces`",
		  "as root without `CAP_PERFMON` and `CAP_SYS_ADMIN`", EACCES,
		  .attr = { .namespaces = 1 }, .who = ROOT_NO_PERFMON, .paranoid = "2"),
	PERF_OPEN("`attr.namespaces`", "as nobody with `CAP_PERFMON` (valid)", 0,
		  .attr = { .namespaces = 1 }, .who = NOBODY_PERFMON, .paranoid = "2"),
	PERF_OPEN("`attr.__reserved_1`",
		  "its highest bit (bit 63 of the flags)", EINVAL,
		  .attr = { .__reserved_1 = 1ULL << 19 }, .bit = 63),
	PERF_OPEN("`attr.__reserved_1`",
		  "its lowest bit (bit 44 of the flags, just above `attr.namespace_ids`)",
		  EINVAL, .attr = { .__reserved_1 = 1 }, .bit = 44),
	PERF_OPEN("`attr.namespace_ids`", "without `attr.namespaces`", EINVAL,
		  .attr = { .namespace_ids = 1 }),
	PERF_OPEN("`attr.namespace_ids`", "with `attr.namespaces`, as nobody, "
		  "`perf_event_paranoid` 2", EACCES,
		  .attr = { .namespaces = 1, .namespace_ids = 1 }, .who = NOBODY,
		  .paranoid = "2"),
	PERF_OPEN("`attr.namespace_ids`", "with `attr.namespaces`, as root (valid)", 0,
		  .attr = { .namespaces = 1, .namespace_ids = 1 }),
	PERF_OPEN("`attr.size`",
		  "8 bytes past the kernel's struct, one of them nonzero, with `attr.mmap3`",
		  E2BIG, .attr = { .mmap3 = 1 }, .size_tail = true),

	/* prctl(PR_TASK_PERF_UEVENT, type, size, data, flags): each argument */
	UEVENT_ARG("`flags` (arg 5)", "1", EINVAL, .flags = 1),
	UEVENT_ARG("`flags` (arg 5)", "1 << 63", EINVAL, .flags = 1UL << 63),
	UEVENT_ARG("`flags` (arg 5)", "1, nobody listens", EINVAL, .flags = 1,
		   .listener = LISTEN_NONE),
	UEVENT_ARG("`type` (arg 2)", "2^32 (does not fit in 32 bits)", EINVAL,
		   .type = 1UL << 32),
	UEVENT_ARG("`type` (arg 2)", "`ULONG_MAX`", EINVAL, .type = ~0UL),
	UEVENT_ARG("`type` (arg 2)", "2^32 - 1 (valid: the largest)", 0,
		   .type = 0xffffffffUL),
	UEVENT_ARG("`size` (arg 3)", "0", EINVAL, .size = 0),
	UEVENT_ARG("`size` (arg 3)", "0, with `data` NULL", EINVAL, .size = 0,
		   .data = DATA_NULL),
	UEVENT_ARG("`size` (arg 3)", "0, nobody listens", EINVAL, .size = 0,
		   .listener = LISTEN_NONE),
	UEVENT_ARG("`size` (arg 3)", "4097 (`PERF_UEVENT_MAX_SIZE` + 1)", E2BIG,
		   .size = PERF_UEVENT_MAX_SIZE + 1),
	UEVENT_ARG("`size` (arg 3)", "4096 (valid: `PERF_UEVENT_MAX_SIZE`)", 0,
		   .size = PERF_UEVENT_MAX_SIZE),
	UEVENT_ARG("`size` (arg 3)", "2^32 + 2 (2 if cut to 32 bits)", E2BIG,
		   .size = (1UL << 32) + 2),
	UEVENT_ARG("`size` (arg 3)", "`ULONG_MAX`", E2BIG, .size = ~0UL),
	UEVENT_ARG("`size` (arg 3)", "4097, nobody listens", E2BIG,
		   .size = PERF_UEVENT_MAX_SIZE + 1, .listener = LISTEN_NONE),
	UEVENT_ARG("`data` (arg 4)", "NULL", EFAULT, .data = DATA_NULL),
	UEVENT_ARG("`data` (arg 4)", "NULL, only an `attr.uevent` event listens", EFAULT,
		   .data = DATA_NULL, .listener = LISTEN_EVENT),
	UEVENT_ARG("`data` (arg 4)", "NULL, only the `perf:uevent` trace event listens",
		   EFAULT, .data = DATA_NULL, .listener = LISTEN_TRACE),
	UEVENT_ARG("`data` (arg 4)", "NULL, nobody listens (the same errno: it never tells)",
		   EFAULT, .data = DATA_NULL, .listener = LISTEN_NONE),
	UEVENT_ARG("`data` (arg 4)", "a kernel address (0xffffffff81000000)", EFAULT,
		   .data = DATA_KERNEL),
	UEVENT_ARG("`data` (arg 4)",
		   "a kernel address, only the `perf:uevent` trace event listens", EFAULT,
		   .data = DATA_KERNEL, .listener = LISTEN_TRACE),
	UEVENT_ARG("`data` (arg 4)", "a kernel address, nobody listens", EFAULT,
		   .data = DATA_KERNEL, .listener = LISTEN_NONE),
	/* In user space but unreadable: EFAULT, whoever listens. */
	UEVENT_ARG("`data` (arg 4)", "address 8 (not mapped)", EFAULT, .data = DATA_LOW),
	UEVENT_ARG("`data` (arg 4)", "address 8, only the `perf:uevent` trace event listens",
		   EFAULT, .data = DATA_LOW, .listener = LISTEN_TRACE),
	UEVENT_ARG("`data` (arg 4)", "address 8, nobody listens", EFAULT, .data = DATA_LOW,
		   .listener = LISTEN_NONE),
	UEVENT_ARG("`data` (arg 4)", "5 bytes from 2 bytes before a page that is not mapped",
		   EFAULT, .data = DATA_EDGE),
	UEVENT_ARG("`data` (arg 4)", "5 bytes from 2 bytes before an unmapped page, nobody listens",
		   EFAULT, .data = DATA_EDGE, .listener = LISTEN_NONE),
	UEVENT_ARG("`data` (arg 4)", "a `PROT_NONE` page", EFAULT, .data = DATA_PROT_NONE),
	UEVENT_ARG("`data` (arg 4)", "a `PROT_NONE` page, nobody listens", EFAULT,
		   .data = DATA_PROT_NONE, .listener = LISTEN_NONE),

	/* The process tracer's files, written while it is the current tracer */
	TRACEFS("process/follow_pid", "`abc`", EINVAL, .good = "self", .bad = "abc\n"),
	TRACEFS("process/follow_pid", "`-1`", EINVAL, .good = "self", .bad = "-1\n"),
	TRACEFS("process/follow_pid", "`4194305` (`PID_MAX_LIMIT` + 1)", EINVAL,
		.good = "self", .bad = "4194305\n"),
	TRACEFS("process/follow_pid", "`99999999999999999999` (past 64 bits)", EINVAL,
		.good = "self", .bad = "99999999999999999999\n"),
	TRACEFS("process/follow_pid", "`1 2`", EINVAL, .good = "self", .bad = "1 2\n"),
	TRACEFS("process/follow_pid", "an empty line", EINVAL, .good = "self", .bad = "\n"),
	TRACEFS("process/follow_pid", "`0` 39 times, then `x` (a non-number of 40 bytes)",
		EINVAL, .good = "self", .bad = ZEROS40X "\n"),
	TRACEFS("process/follow_pid",
		"`4194304` (`PID_MAX_LIMIT`: in range, never a pid)", ESRCH,
		.good = "self", .bad = "4194304\n"),
	TRACEFS("process/follow_pid", "the pid of a child that was reaped", ESRCH,
		.good = "self", .how = WRITE_REAPED_PID),
	TRACEFS("process/follow_pid",
		"this process's pid, written from a new pid namespace, where it has none",
		ESRCH, .good = "self", .how = WRITE_FROM_PIDNS),
	TRACEFS("process/follow_pid", "a buffer that is not mapped", EFAULT,
		.good = "self", .how = WRITE_UNREADABLE),

	TRACEFS("process/lifecycle", "`2`", EINVAL, .good = "0", .bad = "2\n"),
	TRACEFS("process/lifecycle", "`-1`", EINVAL, .good = "0", .bad = "-1\n"),
	TRACEFS("process/lifecycle", "`yes`", EINVAL, .good = "0", .bad = "yes\n"),
	TRACEFS("process/lifecycle", "an empty line", EINVAL, .good = "0", .bad = "\n"),
	TRACEFS("process/lifecycle", "`0` 39 times, then `x` (a non-number of 40 bytes)",
		EINVAL, .good = "1", .bad = ZEROS40X "\n"),
	TRACEFS("process/lifecycle", "a buffer that is not mapped", EFAULT, .good = "0",
		.how = WRITE_UNREADABLE),

	TRACEFS("process/syscalls", "`2`", EINVAL, .good = "0", .bad = "2\n"),
	TRACEFS("process/syscalls", "`-1`", EINVAL, .good = "0", .bad = "-1\n"),
	TRACEFS("process/syscalls", "`yes`", EINVAL, .good = "0", .bad = "yes\n"),
	TRACEFS("process/syscalls", "an empty line", EINVAL, .good = "0", .bad = "\n"),
	TRACEFS("process/syscalls", "`0` 39 times, then `x` (a non-number of 40 bytes)",
		EINVAL, .good = "1", .bad = ZEROS40X "\n"),
	TRACEFS("process/syscalls", "a buffer that is not mapped", EFAULT, .good = "0",
		.how = WRITE_UNREADABLE),

	TRACEFS("process/signals", "`2`", EINVAL, .good = "0", .bad = "2\n"),
	TRACEFS("process/signals", "`-1`", EINVAL, .good = "0", .bad = "-1\n"),
	TRACEFS("process/signals", "`yes`", EINVAL, .good = "0", .bad = "yes\n"),
	TRACEFS("process/signals", "an empty line", EINVAL, .good = "0", .bad = "\n"),
	TRACEFS("process/signals", "`0` 39 times, then `x` (a non-number of 40 bytes)",
		EINVAL, .good = "1", .bad = ZEROS40X "\n"),
	TRACEFS("process/signals", "a buffer that is not mapped", EFAULT, .good = "0",
		.how = WRITE_UNREADABLE),

	TRACEFS("process/uid_filter", "`-2`", EINVAL, .good = "1000", .bad = "-2\n"),
	TRACEFS("process/uid_filter", "`4294967296` (2^32)", EINVAL,
		.good = "1000", .bad = "4294967296\n"),
	TRACEFS("process/uid_filter", "`4294967295` (`(uid_t)-1`, not a uid)", EINVAL,
		.good = "1000", .bad = "4294967295\n"),
	TRACEFS("process/uid_filter", "`4294967294` (valid: the largest uid)", 0,
		.good = "1000", .bad = "4294967294\n", .after = "4294967294"),
	TRACEFS("process/uid_filter", "`root`", EINVAL, .good = "1000", .bad = "root\n"),
	TRACEFS("process/uid_filter", "an empty line", EINVAL, .good = "1000",
		.bad = "\n"),
	TRACEFS("process/uid_filter", "`0` 70 times, then `x` (a non-number of 71 bytes)",
		EINVAL, .good = "1000", .bad = ZEROS70X "\n"),
	TRACEFS("process/uid_filter",
		"`0`, written from a new user namespace where no uid is mapped", EINVAL,
		.good = "1000", .bad = "0\n", .how = WRITE_FROM_USERNS),
	TRACEFS("process/uid_filter", "a buffer that is not mapped", EFAULT,
		.good = "1000", .how = WRITE_UNREADABLE),

	TRACEFS("process/comm_filter", "`" COMM16 "` (16 characters, no newline)",
		EINVAL, .good = "ls", .bad = COMM16),
	TRACEFS("process/comm_filter", "`" COMM16 "` and a newline", EINVAL,
		.good = "ls", .bad = COMM16 "\n"),
	TRACEFS("process/comm_filter", "`" COMM16 "ghijklmnop` (26 characters)",
		EINVAL, .good = "ls", .bad = COMM16 "ghijklmnop\n"),
	TRACEFS("process/comm_filter", "`ab`, a NUL, `cd`", EINVAL,
		.good = "ls", .bad = "ab\0cd\n", .len = 6),
	TRACEFS("process/comm_filter",
		"`0123456789abcde` (valid: 15 characters)", 0, .good = "ls",
		.bad = "0123456789abcde\n", .after = "0123456789abcde"),
	TRACEFS("process/comm_filter", "a buffer that is not mapped", EFAULT,
		.good = "ls", .how = WRITE_UNREADABLE),

	/* The bytes of data perf:uevent keeps (top level only). */
	TRACEFS("uevent_user_buf_size", "`abc`", EINVAL, .good = "16", .bad = "abc\n"),
	TRACEFS("uevent_user_buf_size", "`-1`", EINVAL, .good = "16", .bad = "-1\n"),
	TRACEFS("uevent_user_buf_size", "an empty line", EINVAL, .good = "16", .bad = "\n"),
	TRACEFS("uevent_user_buf_size", "`99999999999999999999` (past 64 bits)", ERANGE,
		.good = "16", .bad = "99999999999999999999\n"),
	TRACEFS("uevent_user_buf_size", "`0` (valid: no data kept)", 0, .good = "16",
		.bad = "0\n", .after = "0"),
	TRACEFS("uevent_user_buf_size", "`4294967296` (valid: taken as 1024, the max)", 0,
		.good = "16", .bad = "4294967296\n", .after = "1024"),
	TRACEFS("uevent_user_buf_size", "a buffer that is not mapped", EFAULT,
		.good = "16", .how = WRITE_UNREADABLE),
};

#define NR_CASES	ARRAY_SIZE(cases)

/* The tracefs files the cases write: saved at start, put back at exit. */
static const char *const knobs[] = {
	"process/follow_pid", "process/lifecycle", "process/syscalls",
	"process/signals", "process/uid_filter",
	"process/comm_filter", "uevent_user_buf_size",
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

static char saved_knobs[NR_KNOBS][64];
static char saved_tracer[64];
static char saved_paranoid[16];
static bool saved;
static long page_size;
static char buffer[2 * PERF_UEVENT_MAX_SIZE];

/*
 * What went wrong in a forked child that reports the errno of its call
 * as its exit status: codes from CHILD_FAIL up, which no errno reaches.
 */
enum child_step { STEP_PRIVS, STEP_BASELINE, STEP_UNSHARE, STEP_FORK };
#define CHILD_FAIL	200
static const char *const child_steps[] = {
	[STEP_PRIVS] = "cannot change user or capabilities",
	[STEP_BASELINE] = "the same event without the new bits fails too",
	[STEP_UNSHARE] = "unshare() fails",
	[STEP_FORK] = "fork() fails",
};

static const char *errno_name(int err)
{
	const char *name = err ? strerrorname_np(err) : "none (succeeds)";

	return name ? name : "an unknown errno";
}

static void knob_path(char *path, size_t size, const char *knob)
{
	snprintf(path, size, "%s/%s", TRACING, knob);
}

/*
 * A page followed by a page that is not mapped; NULL on failure.  Made
 * afresh for each case, so that no mapping made since fills the hole.
 */
static char *map_edge(void)
{
	char *area = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (area == MAP_FAILED)
		return NULL;
	memset(area, 'u', page_size);
	munmap(area + page_size, page_size);
	return area;
}

static void unmap_edge(char *area)
{
	if (area)
		munmap(area, page_size);
}

static int wait_child(pid_t pid, char *note, size_t len)
{
	int status, code;

	if (pid < 0) {
		snprintf(note, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (waitpid(pid, &status, 0) != pid) {
		snprintf(note, len, "waitpid: %s", strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status)) {
		snprintf(note, len, "the child was killed by signal %d",
			 WTERMSIG(status));
		return -1;
	}
	code = WEXITSTATUS(status);
	if (code >= CHILD_FAIL) {
		code -= CHILD_FAIL;
		snprintf(note, len, "in the child: %s",
			 code < (int)ARRAY_SIZE(child_steps) ?
			 child_steps[code] : "?");
		return -1;
	}
	return code;
}

/* perf_event_open() cases */

static int open_event(const struct perf_event_attr *attr, bool cpu_wide)
{
	int fd = syscall(__NR_perf_event_open, attr, cpu_wide ? -1 : 0,
			 cpu_wide ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int set_caps(uint64_t effective, uint64_t permitted)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = effective, .permitted = permitted },
		{ .effective = effective >> 32, .permitted = permitted >> 32 },
	};

	return syscall(__NR_capset, &hdr, data);
}

static int become(enum who who)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	uint64_t keep = who == NOBODY_PERFMON ? 1ULL << CAP_PERFMON : 0;
	uint64_t effective, permitted;

	if (who == ROOT_NO_PERFMON) {
		if (syscall(__NR_capget, &hdr, data))
			return -1;
		effective = data[0].effective | (uint64_t)data[1].effective << 32;
		permitted = data[0].permitted | (uint64_t)data[1].permitted << 32;
		effective &= ~(1ULL << CAP_PERFMON | 1ULL << CAP_SYS_ADMIN);
		return set_caps(effective, permitted);
	}
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) ||
	    setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID))
		return -1;
	return set_caps(keep, keep);
}

static int run_attr(const struct bad_case *c, char *note, size_t len)
{
	struct perf_event_attr attr = c->attr;
	int ret;

	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;

	if (c->bit) {
		/* The flags word follows read_format; the words name its bit. */
		uint64_t flags;

		memcpy(&flags, (const char *)&c->attr +
		       offsetof(struct perf_event_attr, read_format) +
		       sizeof(c->attr.read_format), sizeof(flags));
		if (flags != 1ULL << c->bit) {
			snprintf(note, len, "the flags word is %#llx, not bit %d",
				 (unsigned long long)flags, c->bit);
			return -1;
		}
	}

	if (c->size_tail) {
		/* Aligned as the struct, with 8 more bytes. */
		struct {
			struct perf_event_attr attr;
			uint64_t tail;
		} big = { .attr = attr, .tail = 1 };

		big.attr.size = sizeof(big);
		ret = open_event(&big.attr, c->cpu_wide);
		/* perf_event_open(2): E2BIG writes the size the kernel expects. */
		if (ret == E2BIG && big.attr.size != sizeof(attr))
			snprintf(note, len, "attr.size reads %u after E2BIG, not %zu",
				 big.attr.size, sizeof(attr));
		return ret;
	}

	if (c->paranoid) {
		ret = write_file(PARANOID, c->paranoid);
		if (ret) {
			snprintf(note, len, "cannot write %s: %s", PARANOID, strerror(-ret));
			return -1;
		}
	}
	if (c->who == ROOT) {
		ret = open_event(&attr, c->cpu_wide);
	} else {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			struct perf_event_attr base = attr;

			if (become(c->who))
				_exit(CHILD_FAIL + STEP_PRIVS);
			/*
			 * The same event without the new bits must open, or
			 * the errno would say nothing about them.
			 */
			base.namespaces = 0;
			base.mmap3 = 0;
			base.uevent = 0;
			base.namespace_ids = 0;
			if (open_event(&base, c->cpu_wide))
				_exit(CHILD_FAIL + STEP_BASELINE);
			_exit(open_event(&attr, c->cpu_wide));
		}
		ret = wait_child(pid, note, len);
	}
	if (c->paranoid)
		write_file(PARANOID, saved_paranoid);
	return ret;
}

/* prctl(PR_TASK_PERF_UEVENT) cases */

struct ring {
	int fd;
	struct perf_event_mmap_page *page;
	size_t len;
};

/* An attr.uevent event on this task, with a ring buffer that fits one uevent. */
static int ring_open(struct ring *r)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.uevent = 1,
	};

	r->len = 3 * page_size;
	r->fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->page = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->page == MAP_FAILED) {
		int err = errno;

		close(r->fd);
		r->fd = -1;
		return -err;
	}
	return 0;
}

static void ring_close(struct ring *r)
{
	if (r->fd < 0)
		return;
	munmap(r->page, r->len);
	close(r->fd);
	r->fd = -1;
}

/*
 * The ring holds exactly one PERF_RECORD_UEVENT with this type and size,
 * or (want_one false) nothing at all.
 */
static void ring_check(struct ring *r, bool want_one, unsigned long type,
		       unsigned long size, char *note, size_t len)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	struct {
		struct perf_event_header header;
		uint32_t type;
		uint32_t size;
	} *rec = (void *)((char *)r->page + page_size);

	if (!want_one) {
		if (head)
			snprintf(note, len, "%llu bytes of records in the ring, first of type %u",
				 (unsigned long long)head, rec->header.type);
		return;
	}
	if (head != rec->header.size || rec->header.type != PERF_RECORD_UEVENT ||
	    rec->type != type || rec->size != size)
		snprintf(note, len, "the ring has %llu bytes, not one uevent of type %lu and size %lu (first: type %u, size %u, data %u/%u)",
			 (unsigned long long)head, type, size, rec->header.type,
			 rec->header.size, rec->type, rec->size);
}

static int trace_listen(bool on)
{
	int fd;

	if (on) {
		/* Empty the instance's buffer: opening trace with O_TRUNC does. */
		fd = open(INSTANCE "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	return write_file(INSTANCE "/events/perf/uevent/enable", on ? "1" : "0");
}

/* How many perf:uevent lines the instance's trace has; -1 when unreadable. */
static int trace_lines(void)
{
	static char text[64 * 1024];

	if (read_file(INSTANCE "/trace", text, sizeof(text)))
		return -1;
	return count_text(text, " uevent: type=");
}

static int run_uevent(const struct bad_case *c, char *note, size_t len)
{
	bool event = c->listener == LISTEN_BOTH || c->listener == LISTEN_EVENT;
	bool trace = c->listener == LISTEN_BOTH || c->listener == LISTEN_TRACE;
	struct ring ring = { .fd = -1 };
	char *edge = NULL, *none = NULL;
	const void *data = NULL;
	int ret, lines;

	switch (c->data) {
	case DATA_BUF:
		data = buffer;
		break;
	case DATA_NULL:
		data = NULL;
		break;
	case DATA_LOW:
		data = (const void *)8;
		break;
	case DATA_KERNEL:
		data = (const void *)KERNEL_TEXT;
		break;
	case DATA_EDGE:
		edge = map_edge();
		data = edge ? edge + page_size - 2 : NULL;
		break;
	case DATA_PROT_NONE:
		none = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		data = none == MAP_FAILED ? NULL : none;
		break;
	}
	if ((c->data == DATA_EDGE && !edge) || none == MAP_FAILED) {
		snprintf(note, len, "cannot map the data: %s", strerror(errno));
		return -1;
	}

	ret = event ? ring_open(&ring) : 0;
	if (!ret && trace)
		ret = trace_listen(true);
	if (ret) {
		snprintf(note, len, "cannot listen: %s", strerror(-ret));
		ret = -1;
		goto out;
	}

	ret = syscall(__NR_prctl, PR_TASK_PERF_UEVENT, c->type, c->size,
		      (unsigned long)data, c->flags) ? errno : 0;

	/* Nothing written by a call that failed; one record by one that did not. */
	if (event)
		ring_check(&ring, !ret, c->type, c->size, note, len);
	if (trace && !note[0]) {
		lines = trace_lines();
		if (lines != !ret)
			snprintf(note, len, "%d perf:uevent lines in the trace, not %d",
				 lines, !ret);
	}
out:
	if (trace)
		trace_listen(false);
	ring_close(&ring);
	unmap_edge(edge);
	if (none && none != MAP_FAILED)
		munmap(none, page_size);
	return ret;
}

/* tracefs cases */

/* One write to fd, in a child when the case says so; errno or 0. */
static int knob_write(const struct bad_case *c, int fd, char *note, size_t len)
{
	size_t n = c->len ? c->len : c->bad ? strlen(c->bad) : 0;
	char value[32], *edge;
	int status;
	pid_t pid;
	ssize_t w;

	switch (c->how) {
	case WRITE_VALUE:
		break;
	case WRITE_UNREADABLE:
		edge = map_edge();
		if (!edge) {
			snprintf(note, len, "cannot map a page: %s", strerror(errno));
			return -1;
		}
		w = write(fd, edge + page_size, 4);
		unmap_edge(edge);
		return w < 0 ? errno : 0;
	case WRITE_REAPED_PID:
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (wait_child(pid, note, len))
			return -1;
		snprintf(value, sizeof(value), "%d\n", pid);
		return write(fd, value, strlen(value)) < 0 ? errno : 0;
	case WRITE_FROM_PIDNS:
		snprintf(value, sizeof(value), "%d\n", getpid());
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			if (unshare(CLONE_NEWPID))
				_exit(CHILD_FAIL + STEP_UNSHARE);
			/* The first child in the new namespace is its pid 1. */
			pid = fork();
			if (pid == 0)
				_exit(write(fd, value, strlen(value)) < 0 ? errno : 0);
			if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
				_exit(CHILD_FAIL + STEP_FORK);
			_exit(WEXITSTATUS(status));
		}
		return wait_child(pid, note, len);
	case WRITE_FROM_USERNS:
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			if (unshare(CLONE_NEWUSER))
				_exit(CHILD_FAIL + STEP_UNSHARE);
			_exit(write(fd, c->bad, n) < 0 ? errno : 0);
		}
		return wait_child(pid, note, len);
	}

	w = write(fd, c->bad, n);
	if (w < 0)
		return errno;
	if ((size_t)w != n)
		snprintf(note, len, "wrote %zd of %zu bytes", w, n);
	return 0;
}

static int run_knob(const struct bad_case *c, char *note, size_t len)
{
	char path[128], good[32], value[64] = "", tracer[64] = "";
	const char *want;
	int fd, ret;

	knob_path(path, sizeof(path), c->knob);
	if (!strcmp(c->good, "self"))
		snprintf(good, sizeof(good), "%d", getpid());
	else
		snprintf(good, sizeof(good), "%s", c->good);

	/* The value before the write, read back: what must stay. */
	ret = write_file(path, good);
	if (!ret)
		ret = read_file(path, value, sizeof(value));
	if (ret || strcmp(value, good)) {
		snprintf(note, len, "cannot set %s to %s: %s", c->knob, good,
			 ret ? strerror(-ret) : value);
		return -1;
	}

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(note, len, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	ret = knob_write(c, fd, note, len);
	close(fd);
	if (ret < 0)
		return ret;

	want = ret || !c->after ? good : c->after;
	if (!note[0] && (read_file(path, value, sizeof(value)) || strcmp(value, want)))
		snprintf(note, len, "%s reads \"%s\", not \"%s\"", c->knob, value, want);
	if (!note[0] && (read_file(TRACING "/current_tracer", tracer, sizeof(tracer)) ||
			 strcmp(tracer, "process")))
		snprintf(note, len, "current_tracer is \"%s\", not \"process\"", tracer);
	return ret;
}

/* State: saved before the cases, put back at exit */

static void restore(void)
{
	char path[128];
	size_t i;

	if (!saved)
		return;
	write_file(TRACING "/current_tracer", saved_tracer);
	for (i = 0; i < NR_KNOBS; i++) {
		knob_path(path, sizeof(path), knobs[i]);
		/* A followed process that has gone: 0 rather than a stale pid. */
		if (write_file(path, saved_knobs[i]) && i == 0)
			write_file(path, "0");
	}
	write_file(PARANOID, saved_paranoid);
	rmdir(INSTANCE);
}

static int save(void)
{
	char path[128], self[16];
	size_t i;
	int ret;

	ret = read_file(PARANOID, saved_paranoid, sizeof(saved_paranoid));
	if (!ret)
		ret = read_file(TRACING "/current_tracer", saved_tracer, sizeof(saved_tracer));
	for (i = 0; i < NR_KNOBS && !ret; i++) {
		knob_path(path, sizeof(path), knobs[i]);
		ret = read_file(path, saved_knobs[i], sizeof(saved_knobs[i]));
	}
	if (ret)
		return ret;
	saved = true;
	atexit(restore);

	/*
	 * Follow only this process before the tracer comes on: the default
	 * follows every task of the system.  The knobs are tested while the
	 * tracer is current, where they act on the probes.
	 */
	snprintf(self, sizeof(self), "%d", getpid());
	knob_path(path, sizeof(path), "process/follow_pid");
	ret = write_file(path, self);
	if (!ret)
		ret = write_file(TRACING "/current_tracer", "process");
	if (!ret && mkdir(INSTANCE, 0755) && errno != EEXIST)
		ret = -errno;
	return ret;
}

/* A TAP description: the table's words without markdown's backquotes. */
static const char *plain(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++)
		if (*s != '`')
			buf[n++] = *s;
	buf[n] = '\0';
	return buf;
}

static void print_table(void)
{
	size_t i;

	printf("| Entry point | Malformed input | errno |\n");
	printf("| --- | --- | --- |\n");
	/* An entry point is named on the first of its rows, which follow it. */
	for (i = 0; i < NR_CASES; i++)
		printf("| %s | %s | %s |\n",
		       i && !strcmp(cases[i].entry, cases[i - 1].entry) ?
		       "" : cases[i].entry, cases[i].input,
		       errno_name(cases[i].err));
}

int main(int argc, char *argv[])
{
	char entry[128], input[160], note[256];
	size_t i;
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--table")) {
		print_table();
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--table]\n", argv[0]);
		return 2;
	}

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	page_size = sysconf(_SC_PAGESIZE);
	memset(buffer, 'u', sizeof(buffer));
	ret = save();
	if (ret)
		ksft_exit_fail_msg("cannot save or set the tracing state: %s\n",
				   strerror(-ret));
	ksft_set_plan(NR_CASES);

	for (i = 0; i < NR_CASES; i++) {
		const struct bad_case *c = &cases[i];

		note[0] = '\0';
		switch (c->kind) {
		case ATTR:
			ret = run_attr(c, note, sizeof(note));
			break;
		case UEVENT:
			ret = run_uevent(c, note, sizeof(note));
			break;
		case KNOB:
			ret = run_knob(c, note, sizeof(note));
			break;
		}
		plain(c->entry, entry, sizeof(entry));
		plain(c->input, input, sizeof(input));
		if (ret < 0)
			ksft_test_result_fail("%s, %s: expected %s, not run: %s\n", entry,
					      input, errno_name(c->err), note);
		else if (ret != c->err || note[0])
			ksft_test_result_fail("%s, %s: expected %s, got %s%s%s\n", entry,
					      input, errno_name(c->err), errno_name(ret),
					      note[0] ? ", but " : "", note);
		else
			ksft_test_result_pass("%s, %s: expected %s, got %s\n", entry, input,
					      errno_name(c->err), errno_name(ret));
	}
	ksft_finished();
}

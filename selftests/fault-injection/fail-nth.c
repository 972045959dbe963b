// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth: every error path of the series' calls, by fault injection.
 *
 * For each path (a call of the series with its listener set up), the
 * call is made with /proc/self/task/TID/fail-nth at 1, 2, 3, ...: the
 * kernel fails the Nth slab or page allocation, or user copy, of that
 * call (CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC,
 * FAULT_INJECTION_USERCOPY), until a call ends before its Nth such point
 * (fail-nth reads back nonzero).  Each call must succeed or fail with an
 * errno the path's documentation gives, and what the call should leave
 * behind must be there: every message sent is in the ring as a record or
 * counted as a dropped uevent, every mapping and unshare made has its
 * record.  After all paths, kmemleak must find nothing, and the run's
 * grading fails on any splat.  The figure printed: the points injected,
 * per path.
 *
 * Run as root on a kernel with fault injection (the debug flavour);
 * skipped elsewhere.  It sets the fault attributes' filters in debugfs
 * (GFP_KERNEL allocations and order 0 pages are left alone by default)
 * and makes the trace instance "fail-nth"; both are put back at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include <linux/perf_event.h>
#include <linux/prctl.h>

#include "kselftest.h"
#include "read-file.h"
#include "write-file.h"

#define DEBUGFS		"/sys/kernel/debug"
#define INSTANCE	"/sys/kernel/tracing/instances/fail-nth"
#define RING_PAGES	64
/* No call of the series has this many fault points: a loop that gets here is one. */
#define MAX_NTH		5000

static long page_size;
static int fail_fd = -1;

/* One end of the listener a path needs: a perf event and its ring. */
struct ring {
	int fd;
	struct perf_event_mmap_page *page;
};

/* What one path counts while it runs. */
struct tally {
	int ok, injected;
	int errs[8], nerrs;	/* errnos seen, each once */
	char bad[160];		/* the first thing that went wrong */
};

/* A path: its name, the errnos its documentation allows, and its call. */
struct path {
	const char *name;
	const char *figure;	/* the name in the figures: letters and spaces */
	const int allowed[4];	/* besides success; 0 ends the list */
	int (*setup)(void);
	int (*call)(void);	/* one system call: 0 or -errno */
	void (*after)(int ret, struct tally *t);	/* with fail-nth back at 0 */
	void (*check)(struct tally *t);
	void (*teardown)(void);
};

/* ATTR made a dummy software event on this task, its other bits kept. */
static void dummy_event(struct perf_event_attr *attr)
{
	attr->type = PERF_TYPE_SOFTWARE;
	attr->size = sizeof(*attr);
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static int ring_open(struct ring *r, struct perf_event_attr *attr)
{
	dummy_event(attr);
	r->fd = syscall(__NR_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->page = mmap(NULL, (RING_PAGES + 1) * page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, r->fd, 0);
	if (r->page == MAP_FAILED) {
		int err = -errno;

		close(r->fd);
		r->fd = -1;
		return err;
	}
	return 0;
}

static void ring_close(struct ring *r)
{
	if (r->fd < 0)
		return;
	munmap(r->page, (RING_PAGES + 1) * page_size);
	close(r->fd);
	r->fd = -1;
}

/*
 * Count the ring's records of TYPE, and (lost) the uevents that LOST
 * records with PERF_RECORD_MISC_LOST_UEVENT count; -1 if the ring
 * wrapped or LOST records count other records.
 */
static int ring_count(struct ring *r, uint32_t type, uint64_t *lost)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	const char *data = (const char *)r->page + page_size;
	uint64_t off = 0;
	int n = 0;

	*lost = 0;
	if (head >= (uint64_t)RING_PAGES * page_size)
		return -1;
	while (off < head) {
		const struct perf_event_header *h = (const void *)(data + off);

		if (h->size < sizeof(*h))
			return -1;
		if (h->type == type)
			n++;
		if (h->type == PERF_RECORD_LOST) {
			const uint64_t *u = (const void *)(h + 1);

			if (!(h->misc & PERF_RECORD_MISC_LOST_UEVENT))
				return -1;
			*lost += u[1];
		}
		off += h->size;
	}
	return n;
}

static void note(struct tally *t, const char *fmt, ...)
{
	va_list ap;

	if (t->bad[0])
		return;
	va_start(ap, fmt);
	vsnprintf(t->bad, sizeof(t->bad), fmt, ap);
	va_end(ap);
}

/* fail-nth: set it, and whether the call met its Nth point. */
static int set_fail_nth(int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", nth);

	return pwrite(fail_fd, buf, len, 0) == len ? 0 : -errno;
}

/*
 * Whether the point set was met: fail-nth reads 0 then.  The read's own
 * copy to user is a point too: if the call left the count at 1, that
 * copy fails, which also says the call did not meet it.
 */
static bool fail_nth_met(void)
{
	char buf[16];
	ssize_t n = pread(fail_fd, buf, sizeof(buf) - 1, 0);
	bool met;

	if (n <= 0) {
		met = false;
	} else {
		buf[n] = '\0';
		met = strtol(buf, NULL, 10) == 0;
	}
	/* Back to nothing pending (its own copy may be the point: fine). */
	pwrite(fail_fd, "0", 1, 0);
	return met;
}

/* The paths */

static struct ring ring = { .fd = -1 };
static char message[1024];
static size_t message_size;
static int sent;	/* messages sent while the ring listened */

/* A failed copy is EFAULT, and sends nothing. */
static int uevent_call(void)
{
	if (prctl(PR_TASK_PERF_UEVENT, 0, message_size, message, 0))
		return -errno;
	sent++;
	return 0;
}

static int uevent_perf_setup(size_t size)
{
	struct perf_event_attr attr = { .uevent = 1 };

	memset(message, 'm', sizeof(message));
	message_size = size;
	sent = 0;
	return ring_open(&ring, &attr);
}

static int uevent_small_setup(void) { return uevent_perf_setup(17); }
static int uevent_large_setup(void) { return uevent_perf_setup(sizeof(message)); }

/* Every message is a record, or counted as dropped (one more flushes the count). */
static void uevent_perf_check(struct tally *t)
{
	uint64_t lost;
	int records;

	if (uevent_call())
		note(t, "the last message, without injection: %s", strerror(errno));
	records = ring_count(&ring, PERF_RECORD_UEVENT, &lost);
	if (records < 0)
		note(t, "the ring wrapped or lost other records");
	else if (records + lost != (uint64_t)sent)
		note(t, "%d messages sent, %d records and %llu counted dropped",
		     sent, records, (unsigned long long)lost);
	else
		ksft_print_msg("%s: %d records, %llu counted dropped\n", "uevent",
			       records, (unsigned long long)lost);
}

static void ring_teardown(void)
{
	ring_close(&ring);
}

static int uevent_trace_setup(void)
{
	message_size = sizeof(message);
	memset(message, 't', sizeof(message));
	if (mkdir(INSTANCE, 0755) && errno != EEXIST)
		return -errno;
	return write_file(INSTANCE "/events/perf/uevent/enable", "1");
}

static void instance_teardown(void)
{
	write_file(INSTANCE "/events/perf/uevent/enable", "0");
	write_file(INSTANCE "/current_tracer", "nop");
	rmdir(INSTANCE);
}

static struct perf_event_attr open_attr = {
	.disabled = 1,
	.namespaces = 1,
	.namespace_ids = 1,
	.uevent = 1,
	.mmap3 = 1,
};

static int opened_fd = -1;

static int open_setup(void)
{
	dummy_event(&open_attr);
	return 0;
}

static int open_call(void)
{
	opened_fd = syscall(__NR_perf_event_open, &open_attr, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
	return opened_fd < 0 ? -errno : 0;
}

static void open_after(int ret, struct tally *t)
{
	if (!ret)
		close(opened_fd);
}

/*
 * A file to map cold: an ELF file nobody maps (the page cache keeps the
 * pages of a mapped file, this program's own included), which
 * drop_caches takes out of the cache (posix_fadvise() does not, on the
 * guest's 9p root under an overlay).
 */
#define COLD_FILE	"/usr/bin/true"
static int map_fd = -1;
static void *mapped;
static int mappings;

static int make_cold(void)
{
	return write_file("/proc/sys/vm/drop_caches", "1");
}

static int mmap3_setup(void)
{
	struct perf_event_attr attr = { .mmap = 1, .mmap3 = 1 };
	unsigned char resident = 1;
	void *p;
	int err;

	mappings = 0;
	map_fd = open(COLD_FILE, O_RDONLY | O_CLOEXEC);
	if (map_fd < 0)
		return -errno;
	/* Cold it must be, or the build-id read is not deferred. */
	err = make_cold();
	p = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE, map_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (err) {
		munmap(p, page_size);
		return err;
	}
	mincore(p, page_size, &resident);
	munmap(p, page_size);
	if (resident & 1) {
		ksft_print_msg("%s stays in the page cache after drop_caches\n", COLD_FILE);
		return -EBUSY;
	}
	return ring_open(&ring, &attr);
}

static int mmap3_call(void)
{
	mapped = mmap(NULL, page_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, map_fd, 0);
	return mapped == MAP_FAILED ? -errno : 0;
}

static void mmap3_after(int ret, struct tally *t)
{
	int err;

	if (!ret) {
		mappings++;
		munmap(mapped, page_size);
	}
	/* The file's pages out of the cache: the next build-id read is deferred. */
	err = make_cold();
	if (err)
		note(t, "drop_caches: %s", strerror(-err));
}

/* Each call that succeeded (MADE of them) has its record of TYPE in the ring. */
static void check_records(struct tally *t, uint32_t type, const char *name, int made)
{
	uint64_t lost;
	int records = ring_count(&ring, type, &lost);

	if (records < 0)
		note(t, "the ring wrapped, or lost records other than uevents");
	else if (records != made)
		note(t, "%d calls succeeded, %d %s records", made, records, name);
	else
		ksft_print_msg("%s: %d records\n", name, records);
}

static void mmap3_check(struct tally *t)
{
	check_records(t, PERF_RECORD_MMAP3, "MMAP3", mappings);
}

static void mmap3_teardown(void)
{
	ring_close(&ring);
	close(map_fd);
}

static int unshares;

static int unshare_setup(void)
{
	struct perf_event_attr attr = { .namespaces = 1, .namespace_ids = 1 };

	unshares = 0;
	return ring_open(&ring, &attr);
}

static int unshare_call(void)
{
	return unshare(CLONE_NEWUTS) ? -errno : 0;
}

static void unshare_after(int ret, struct tally *t)
{
	unshares += !ret;
}

static void unshare_check(struct tally *t)
{
	check_records(t, PERF_RECORD_NAMESPACES, "NAMESPACES", unshares);
}

static char pid_text[16];

static int tracer_setup(void)
{
	int err;

	if (mkdir(INSTANCE, 0755) && errno != EEXIST)
		return -errno;
	err = write_file(INSTANCE "/current_tracer", "process");
	if (!err) {
		snprintf(pid_text, sizeof(pid_text), "%d", getpid());
		err = write_file(INSTANCE "/process/follow_pid", pid_text);
	}
	return err;
}

static pid_t child;

static int fork_call(void)
{
	child = fork();
	if (child == 0)
		_exit(0);
	return child < 0 ? -errno : 0;
}

static void fork_after(int ret, struct tally *t)
{
	int status = 0;

	if (!ret && (waitpid(child, &status, 0) != child || status))
		note(t, "child %d: status %#x", child, status);
}

/*
 * A knob written with two values in turn (after the setup wrote the
 * second): a write that succeeded reads back, one that failed left the
 * value before, as process.rst says.
 */
static const char *knob;
static char knob_values[2][16];
static int knob_turn;
static int knob_fd = -1;
static pid_t sleeper = -1;

static int knob_write(void)
{
	size_t len = strlen(knob_values[knob_turn]);

	return pwrite(knob_fd, knob_values[knob_turn], len, 0) == (ssize_t)len ? 0 : -errno;
}

static void knob_after(int ret, struct tally *t)
{
	const char *want = knob_values[ret ? !knob_turn : knob_turn];
	char now[32];

	if (read_file(knob, now, sizeof(now)))
		note(t, "%s cannot be read back", knob);
	else if (strcmp(now, want))
		note(t, "%s reads '%s' after a write that %s, not '%s'", knob, now,
		     ret ? "failed" : "succeeded", want);
	if (!ret)
		knob_turn = !knob_turn;
}

static int knob_setup(const char *path, const char *a, const char *b)
{
	int err = tracer_setup();

	if (err)
		return err;
	knob = path;
	snprintf(knob_values[0], sizeof(knob_values[0]), "%s", a);
	snprintf(knob_values[1], sizeof(knob_values[1]), "%s", b);
	knob_turn = 0;
	err = write_file(knob, knob_values[1]);
	if (err)
		return err;
	knob_fd = open(knob, O_WRONLY | O_CLOEXEC);
	return knob_fd < 0 ? -errno : 0;
}

/* follow_pid: this process, and a child that sleeps. */
static int follow_setup(void)
{
	char a[16], b[16];

	sleeper = fork();
	if (sleeper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	if (sleeper < 0)
		return -errno;
	snprintf(a, sizeof(a), "%d", sleeper);
	snprintf(b, sizeof(b), "%d", getpid());
	return knob_setup(INSTANCE "/process/follow_pid", a, b);
}

static int uid_setup(void)
{
	return knob_setup(INSTANCE "/process/uid_filter", "0", "-1");
}

static int comm_setup(void)
{
	return knob_setup(INSTANCE "/process/comm_filter", "a", "b");
}

static int syscalls_setup(void)
{
	return knob_setup(INSTANCE "/process/syscalls", "0", "1");
}

static void knob_teardown(void)
{
	close(knob_fd);
	knob_fd = -1;
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
		sleeper = -1;
	}
	instance_teardown();
}

static const struct path paths[] = {
	{ "prctl(PR_TASK_PERF_UEVENT), 17 bytes, to a perf event", "uevent small", { EFAULT },
	  uevent_small_setup, uevent_call, NULL, uevent_perf_check, ring_teardown },
	{ "prctl(PR_TASK_PERF_UEVENT), 1024 bytes, to a perf event", "uevent large", { EFAULT },
	  uevent_large_setup, uevent_call, NULL, uevent_perf_check, ring_teardown },
	{ "prctl(PR_TASK_PERF_UEVENT), 1024 bytes, to perf:uevent", "uevent trace", { EFAULT },
	  uevent_trace_setup, uevent_call, NULL, NULL, instance_teardown },
	{ "perf_event_open(namespaces, namespace_ids, uevent, mmap3)", "perf open", { ENOMEM, EFAULT },
	  open_setup, open_call, open_after, NULL, NULL },
	{ "mmap() of a cold file, to an MMAP3 event", "mmap", { ENOMEM },
	  mmap3_setup, mmap3_call, mmap3_after, mmap3_check, mmap3_teardown },
	{ "unshare(CLONE_NEWUTS), to a namespaces event with ids", "unshare", { ENOMEM },
	  unshare_setup, unshare_call, unshare_after, unshare_check, ring_teardown },
	{ "fork() of a task the process tracer follows", "fork", { ENOMEM },
	  tracer_setup, fork_call, fork_after, NULL, instance_teardown },
	{ "write(process/follow_pid)", "follow pid", { ENOMEM, EFAULT },
	  follow_setup, knob_write, knob_after, NULL, knob_teardown },
	{ "write(process/uid_filter)", "uid filter", { ENOMEM, EFAULT },
	  uid_setup, knob_write, knob_after, NULL, knob_teardown },
	{ "write(process/comm_filter)", "comm filter", { ENOMEM, EFAULT },
	  comm_setup, knob_write, knob_after, NULL, knob_teardown },
	{ "write(process/syscalls)", "syscalls", { ENOMEM, EFAULT },
	  syscalls_setup, knob_write, knob_after, NULL, knob_teardown },
};

static bool allowed(const struct path *p, int err)
{
	for (int i = 0; i < 4 && p->allowed[i]; i++)
		if (p->allowed[i] == err)
			return true;
	return false;
}

static void run_path(const struct path *p, char *figures, size_t size)
{
	struct tally t = { 0 };
	char errs[64] = "";
	bool met = true;
	int nth, err;

	err = p->setup ? p->setup() : 0;
	if (err) {
		ksft_test_result_fail("%s: setup: %s\n", p->name, strerror(-err));
		if (p->teardown)
			p->teardown();
		return;
	}
	for (nth = 1; met && nth <= MAX_NTH && !t.bad[0]; nth++) {
		int ret;

		if (set_fail_nth(nth)) {
			note(&t, "fail-nth: %s", strerror(errno));
			break;
		}
		ret = p->call();
		met = fail_nth_met();
		t.injected += met;
		if (p->after)
			p->after(ret, &t);
		if (!ret) {
			t.ok++;
		} else if (!allowed(p, -ret)) {
			note(&t, "fail-nth %d: %s, not a documented errno", nth, strerror(-ret));
		} else {
			int i;

			for (i = 0; i < t.nerrs && t.errs[i] != -ret; i++)
				;
			if (i == t.nerrs && t.nerrs < 8)
				t.errs[t.nerrs++] = -ret;
		}
		if (!met && ret)
			note(&t, "the call failed (%s) with no point injected", strerror(-ret));
	}
	if (met && !t.bad[0])
		note(&t, "still failing at fail-nth %d", MAX_NTH);
	/* A path no failure reached tested nothing (a filter left on?). */
	if (!t.injected && !t.bad[0])
		note(&t, "no failure was injected");
	if (p->check && !t.bad[0])
		p->check(&t);
	if (p->teardown)
		p->teardown();
	for (int i = 0; i < t.nerrs; i++)
		snprintf(errs + strlen(errs), sizeof(errs) - strlen(errs), "%s%s",
			 i ? " " : ", errnos ", strerrorname_np(t.errs[i]));
	snprintf(figures + strlen(figures), size - strlen(figures), "%s%s %d",
		 figures[0] ? ", " : "", p->figure, t.injected);
	if (t.bad[0])
		ksft_test_result_fail("%s: %s\n", p->name, t.bad);
	else
		ksft_test_result_pass("%s: %d points injected, %d calls succeeded%s\n",
				      p->name, t.injected, t.ok, errs);
}

/* The debugfs filters this test opens, and their values before. */
static const char *const knobs[][2] = {
	{ DEBUGFS "/failslab/ignore-gfp-wait", "N" },
	{ DEBUGFS "/failslab/cache-filter", "N" },
	{ DEBUGFS "/failslab/verbose", "0" },
	{ DEBUGFS "/fail_page_alloc/ignore-gfp-wait", "N" },
	{ DEBUGFS "/fail_page_alloc/ignore-gfp-highmem", "N" },
	{ DEBUGFS "/fail_page_alloc/min-order", "0" },
	{ DEBUGFS "/fail_page_alloc/verbose", "0" },
	{ DEBUGFS "/fail_usercopy/verbose", "0" },
};

#define NR_KNOBS ARRAY_SIZE(knobs)
static char saved[NR_KNOBS][32];

static void restore(void)
{
	for (size_t i = 0; i < NR_KNOBS; i++)
		if (saved[i][0])
			write_file(knobs[i][0], saved[i]);
}

/*
 * kmemleak's report after two scans (the second reports what the first
 * found), of what it found since kmemleak_start(): it reports no object
 * younger than 5 s, so the scans wait that long after the last path.
 */
static void kmemleak_start(void)
{
	write_file(DEBUGFS "/kmemleak", "scan");
	write_file(DEBUGFS "/kmemleak", "clear");
}

static int kmemleak_objects(void)
{
	static char text[64 * 1024];
	int n;

	sleep(6);
	if (write_file(DEBUGFS "/kmemleak", "scan") || write_file(DEBUGFS "/kmemleak", "scan") ||
	    read_file(DEBUGFS "/kmemleak", text, sizeof(text)))
		return -1;
	n = count_text(text, "unreferenced object");
	/* The report's first lines, as TAP diagnostics. */
	if (n) {
		char *line = strtok(text, "\n");

		for (int i = 0; line && i < 40; i++, line = strtok(NULL, "\n"))
			ksft_print_msg("%s\n", line);
	}
	return n;
}

static void cleanup(void)
{
	restore();
	if (sleeper > 0)
		kill(sleeper, SIGKILL);
	instance_teardown();
}

static void on_term(int sig)
{
	cleanup();
	_exit(KSFT_FAIL);
}

int main(void)
{
	char path[64], figures[1024] = "";
	bool leaks_checked;
	int leaks;

	page_size = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (getuid())
		ksft_exit_skip("not root\n");
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	fail_fd = open(path, O_RDWR | O_CLOEXEC);
	if (fail_fd < 0)
		ksft_exit_skip("no %s: a kernel without CONFIG_FAULT_INJECTION\n", path);
	if (access(DEBUGFS "/failslab", F_OK) || access(DEBUGFS "/fail_page_alloc", F_OK) ||
	    access(DEBUGFS "/fail_usercopy", F_OK))
		ksft_exit_skip("no failslab, fail_page_alloc or fail_usercopy in debugfs\n");

	for (size_t i = 0; i < NR_KNOBS; i++) {
		if (read_file(knobs[i][0], saved[i], sizeof(saved[i])) ||
		    write_file(knobs[i][0], knobs[i][1])) {
			restore();
			ksft_exit_fail_msg("%s: cannot set it\n", knobs[i][0]);
		}
	}
	/* Killed by the runner's timeout: the filters and the instance put back. */
	signal(SIGTERM, on_term);
	atexit(cleanup);
	leaks_checked = !access(DEBUGFS "/kmemleak", F_OK);
	ksft_set_plan(ARRAY_SIZE(paths) + leaks_checked);
	if (leaks_checked)
		kmemleak_start();
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		run_path(&paths[i], figures, sizeof(figures));
	cleanup();
	ksft_print_msg("figures: fault injection, points per path: %s\n", figures);
	if (leaks_checked) {
		leaks = kmemleak_objects();
		ksft_test_result(leaks == 0, "kmemleak: %d unreferenced objects after the injections\n",
				 leaks);
	}
	ksft_finished();
}

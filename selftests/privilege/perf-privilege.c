// SPDX-License-Identifier: GPL-2.0
/*
 * perf-privilege: as nobody, under each perf_event_paranoid level, no
 * record may reveal another user's uevent data, mappings or namespaces
 * that the existing rules would hide.
 *
 * "The existing rules" are what an event with attr.mmap2 (with and
 * without attr.build_id) shows at the same scope: the series' new bits
 * (attr.mmap3, attr.uevent) add no permission check to opening, so they
 * must open exactly where such an event opens, with its errno, and see a
 * task only where it does.  attr.namespaces needs CAP_PERFMON at every
 * level, and the perf:uevent tracepoint with PERF_SAMPLE_RAW is the
 * tracepoint rule's (perf_trace_event_perm(): paranoid -1 or CAP_PERFMON).
 * Another user's message is raw data too: a CPU-wide uevent event of
 * nobody takes root's message at level -1 only.
 *
 * Each fixture variant is a paranoid level (3 only where the sysctl takes
 * it).  A root victim, when told, emits a uevent with a secret, maps an
 * ELF file (executable) and a data file from a root-only folder whose
 * name is a secret too, maps a host ELF whose page cache was just dropped
 * (so that its MMAP3 record is the one written on return to user space),
 * and unshares namespaces.  Before that, an observer that became nobody
 * opens one dummy event per bit, with sample_id_all, on one scope:
 *
 *  task_bound:  the victim's pid;
 *  cpu_wide:    pid -1 on every online CPU (the victim runs on CPU 0);
 *  setuid_exec: its own child, one event per CPU, inherited and enabled
 *               on exec, as perf record -- CMD opens them; the child
 *               execs a setuid-root copy of this program, the victim;
 *  cpu_wide_userns: as cpu_wide, from a user namespace of its own, where
 *               it is root (a container's root): the rules are those of
 *               nobody, whose CAP_PERFMON counts in the initial one only.
 *
 * and reads its rings once the victim is done.  Root opens the same
 * events (CPU-wide for setuid_exec, where the exec drops the task's
 * events) as a control: they must see every action, or the run proves
 * nothing.  Each test prints what the observer and the control got as
 * TAP diagnostics, then checks it against the rules above.
 *
 * flood, the other way round: nobody floods root's CPU-wide uevent event
 * on CPU 0 with 4 KiB messages; they must take at most half of its
 * buffer, and root's own records after them must all arrive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/perf_event.h>
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
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "write-file.h"


#define NOBODY		65534
#define MAX_CPUS	64
/* nobody's rings: six kinds per CPU fit perf_event_mlock_kb's allowance */
#define OBS_PAGES	8
#define CTL_PAGES	32
#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define UEVENT_TP_ID	"/sys/kernel/tracing/events/perf/uevent/id"
#define DROP_CACHES	"/proc/sys/vm/drop_caches"
#define VICTIM_ARG	"--setuid-victim"

enum kind { MMAP2, MMAP2_BID, MMAP3, UEVENT, NAMESPACES, TRACEPOINT, NR_KINDS };

static const char *const kind_name[NR_KINDS] = {
	"mmap2", "mmap2+build_id", "mmap3", "uevent", "namespaces", "tracepoint",
};

enum scope { TASK_BOUND, CPU_WIDE, SETUID_EXEC, CPU_WIDE_USERNS };

static const char *const scope_name[] = {
	"task-bound", "cpu-wide", "setuid-exec", "cpu-wide-userns",
};

/* What the victim does; a bit set in its report is a call that failed. */
#define ACT_UEVENT	0x01
#define ACT_ELF		0x02
#define ACT_DATA	0x04
#define ACT_COLD	0x08
#define ACT_UNSHARE	0x10
#define ACT_NOT_ROOT	0xff	/* the setuid copy did not run as root */

/* What one event (all its CPUs) got of the victim. */
struct seen {
	int err;		/* perf_event_open(): 0 or errno */
	int ring_err;		/* mmap() of a ring: 0 or errno */
	bool mapping;		/* a mapping record of a file in the secret folder */
	bool cold;		/* ... of the cold host ELF */
	bool cold_build_id;	/* ... an MMAP3 one with a build-id */
	bool secret;		/* the uevent's bytes, in any record */
	bool token;		/* the secret folder's name, in any record */
	bool namespaces;	/* a NAMESPACES record of the victim */
	bool victim;		/* any record that names the victim's pid */
	uint64_t victim_types;	/* ... their types, as 1 << type */
	unsigned long lost;	/* PERF_RECORD_LOST: the rest cannot be trusted */
};

/* Written by the observer (nobody), read by the test when it has exited. */
struct shared {
	struct seen seen[NR_KINDS];
	pid_t victim;
	unsigned char victim_report;	/* setuid_exec: the ACT_ bits */
	char err[160];
};

struct ring {
	int fd;
	void *base;
	size_t len;
};

struct events {
	struct ring ring[NR_KINDS][MAX_CPUS];
	int nr[NR_KINDS];
};

FIXTURE(privilege) {
	int saved;		/* perf_event_paranoid before setup */
	bool set;		/* ... which setup changed */
	int tp_id;		/* perf:uevent, -1 when there is none */
	int ncpus;
	char dir[64];		/* 0755: the setuid copy, the secret folder */
	char token[40];		/* the secret folder's name */
	char secret_dir[128];	/* 0700, root's */
	char elf[192], data[192], suid[128];
	char cold[PATH_MAX];	/* "" when there is no host ELF to use */
	char secret[64];	/* the uevent's data */
};

FIXTURE_VARIANT(privilege) {
	int level;
};

FIXTURE_VARIANT_ADD(privilege, paranoid_minus1) { .level = -1 };
FIXTURE_VARIANT_ADD(privilege, paranoid_0) { .level = 0 };
FIXTURE_VARIANT_ADD(privilege, paranoid_1) { .level = 1 };
FIXTURE_VARIANT_ADD(privilege, paranoid_2) { .level = 2 };
FIXTURE_VARIANT_ADD(privilege, paranoid_3) { .level = 3 };

static const char *errname(int err)
{
	return err ? strerrorname_np(err) ?: "?" : "open";
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int read_int(const char *path, int *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY), out, ret = -1;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, n) != n)
				break;
		/* After the last write, which may clear S_ISUID. */
		ret = n == 0 && !fchmod(out, mode) ? 0 : -1;
		close(out);
	}
	close(in);
	return ret;
}

static void random_hex(char *buf, size_t len)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)getpid() * 2654435761u ^ (uint64_t)time(NULL);
	snprintf(buf, len, "%016llx", (unsigned long long)r);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	/* The CPU-wide scope watches CPU 0 first; keep the victim there. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static struct perf_event_attr kind_attr(enum kind k, int tp_id, bool on_exec)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.sample_id_all = 1,
		/*
		 * Side-band records ignore it, and paranoid 2 refuses an event
		 * without it: the side-band bits are tested, not that rule.
		 */
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	switch (k) {
	case MMAP2:
	case MMAP2_BID:
		attr.mmap = 1;
		attr.mmap_data = 1;
		attr.mmap2 = 1;
		attr.build_id = k == MMAP2_BID;
		break;
	case MMAP3:
		attr.mmap = 1;
		attr.mmap_data = 1;
		attr.mmap3 = 1;
		break;
	case UEVENT:
		attr.uevent = 1;
		break;
	case NAMESPACES:
		attr.namespaces = 1;
		break;
	case TRACEPOINT:
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = tp_id;
		attr.sample_period = 1;
		attr.sample_type |= PERF_SAMPLE_RAW;
		/* It fires in the kernel: exclude_kernel would drop every hit. */
		attr.exclude_kernel = 0;
		break;
	default:
		break;
	}
	if (on_exec) {
		/* As perf record -- CMD opens them. */
		attr.inherit = 1;
		attr.disabled = 1;
		attr.enable_on_exec = 1;
	}
	return attr;
}

/*
 * Open kind @k on @pid, or CPU-wide on every online CPU, or (setuid_exec)
 * on @pid once per CPU, as perf record does: an inherited event with
 * cpu -1 has no ring to map.  Then map the rings.  s->err is 0 when it
 * opened (on some CPU), else the errno of the first CPU: an offline CPU
 * answers ENODEV, after the permission checks.
 */
static void open_kind(struct events *ev, struct seen *s, enum kind k,
		      enum scope scope, pid_t pid, int tp_id, int ncpus,
		      int pages)
{
	struct perf_event_attr attr = kind_attr(k, tp_id, scope == SETUID_EXEC);
	long page = sysconf(_SC_PAGESIZE);
	int cpu, n = scope == TASK_BOUND ? 1 : ncpus;

	s->err = -1;
	for (cpu = 0; cpu < n; cpu++) {
		int fd = perf_open(&attr, scope == CPU_WIDE ? -1 : pid,
				   scope == TASK_BOUND ? -1 : cpu);
		struct ring *r;

		if (fd < 0) {
			if (s->err == -1 && !(cpu && errno == ENODEV))
				s->err = errno;
			continue;
		}
		s->err = 0;
		r = &ev->ring[k][ev->nr[k]++];
		r->fd = fd;
		r->len = (pages + 1) * page;
		r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
		if (r->base == MAP_FAILED) {
			s->ring_err = errno;
			r->base = NULL;
		}
	}
}

static void close_events(struct events *ev)
{
	int k, i;

	for (k = 0; k < NR_KINDS; k++) {
		for (i = 0; i < ev->nr[k]; i++) {
			if (ev->ring[k][i].base)
				munmap(ev->ring[k][i].base, ev->ring[k][i].len);
			close(ev->ring[k][i].fd);
		}
		ev->nr[k] = 0;
	}
}

/* What a record must be matched against. */
struct target {
	pid_t pid;
	const char *secret, *token, *cold;
};

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Mapping records are matched by pid and file name; anything else by the
 * secrets' bytes, anywhere, and by the pid of its sample_id (the last 24
 * bytes: pid/tid, time, cpu), so that a record type this test does not
 * know is still caught.
 */
static void scan_record(const unsigned char *rec, size_t size,
			const struct target *t, struct seen *s)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t pid = size >= 16 ? u32_at(rec + 8) : 0;
	uint32_t id_pid = size >= 32 ? u32_at(rec + size - 24) : 0;
	size_t name = 0;

	switch (h->type) {
	case PERF_RECORD_MMAP:
		name = 40;
		break;
	case PERF_RECORD_MMAP2:
		name = 72;
		break;
	case PERF_RECORD_MMAP3:
		name = 96;
		break;
	case PERF_RECORD_NAMESPACES:
		if (pid == (uint32_t)t->pid)
			s->namespaces = true;
		break;
	case PERF_RECORD_LOST:
		if (size >= 24) {
			uint64_t lost;

			memcpy(&lost, rec + 16, sizeof(lost));
			s->lost += lost;
		}
		return;
	case PERF_RECORD_SAMPLE:
		id_pid = pid;	/* PERF_SAMPLE_TID comes first */
		break;
	}
	if (name && pid == (uint32_t)t->pid && size > name + 24) {
		const char *file = (const char *)rec + name;
		size_t len = strnlen(file, size - name - 24);

		if (memmem(file, len, t->token, strlen(t->token)))
			s->mapping = true;
		if (t->cold[0] && len == strlen(t->cold) &&
		    !memcmp(file, t->cold, len)) {
			s->cold = true;
			if (h->type == PERF_RECORD_MMAP3 && rec[72])
				s->cold_build_id = true;
		}
	}
	if (id_pid == (uint32_t)t->pid) {
		s->victim = true;
		s->victim_types |= 1ULL << (h->type & 63);
	}
	if (memmem(rec, size, t->secret, strlen(t->secret)))
		s->secret = true;
	if (memmem(rec, size, t->token, strlen(t->token)))
		s->token = true;
}

static void ring_copy(void *to, const unsigned char *data, uint64_t size,
		      uint64_t from, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((unsigned char *)to)[i] = data[(from + i) % size];
}

/* Call fn on each record of r's ring in order, consuming them. */
static void ring_each(struct ring *r,
		      void (*fn)(const unsigned char *rec, size_t size, void *arg),
		      void *arg)
{
	static uint64_t rec[65536 / sizeof(uint64_t)];
	struct perf_event_mmap_page *pc = r->base;
	const unsigned char *data;
	uint64_t head, tail;

	if (!pc)
		return;
	data = (const unsigned char *)r->base + pc->data_offset;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		ring_copy(&h, data, pc->data_size, tail, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		ring_copy(rec, data, pc->data_size, tail, h.size);
		fn((const unsigned char *)rec, h.size, arg);
		tail += h.size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

struct scan {
	const struct target *t;
	struct seen *s;
};

static void scan_one(const unsigned char *rec, size_t size, void *arg)
{
	struct scan *sc = arg;

	scan_record(rec, size, sc->t, sc->s);
}

static void scan_ring(struct ring *r, const struct target *t, struct seen *s)
{
	struct scan sc = { t, s };

	ring_each(r, scan_one, &sc);
}

static void scan_events(struct events *ev, const struct target *t,
			struct seen *seen)
{
	int k, i;

	for (k = 0; k < NR_KINDS; k++)
		for (i = 0; i < ev->nr[k]; i++)
			scan_ring(&ev->ring[k][i], t, &seen[k]);
}

static int map_file(const char *path, int prot)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return -1;
	/* Left mapped: unmapping writes no record anyway. */
	p = mmap(NULL, sysconf(_SC_PAGESIZE), prot, MAP_PRIVATE, fd, 0);
	close(fd);
	return p == MAP_FAILED ? -1 : 0;
}

/* The victim's secrets, each one call; returns the ACT_ bits that failed. */
static unsigned char act(const char *secret, const char *elf,
			 const char *data, const char *cold)
{
	unsigned char bad = 0;

	if (prctl(PR_TASK_PERF_UEVENT, PERF_UEVENT_TYPE_TEXT, strlen(secret),
		  secret, 0))
		bad |= ACT_UEVENT;
	if (map_file(elf, PROT_READ | PROT_EXEC))
		bad |= ACT_ELF;
	if (map_file(data, PROT_READ))
		bad |= ACT_DATA;
	if (cold[0] && map_file(cold, PROT_READ | PROT_EXEC))
		bad |= ACT_COLD;
	if (unshare(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS))
		bad |= ACT_UNSHARE;
	return bad;
}

/*
 * The setuid-root copy of this program, which the observer's child execs:
 * VICTIM_ARG SECRET ELF DATA COLD FD.  It reports on FD what failed, or
 * ACT_NOT_ROOT when the exec did not make it root (a nosuid /tmp).  It
 * lives for one test, in a folder only root can write.
 */
static int setuid_victim(int argc, char **argv)
{
	unsigned char report = ACT_NOT_ROOT;
	int fd;

	if (argc != 7)
		return 2;
	fd = atoi(argv[6]);
	if (!geteuid())
		report = act(argv[2], argv[3], argv[4], argv[5]);
	return write(fd, &report, 1) == 1 ? 0 : 1;
}

/*
 * A child keeps only its own pipe ends (and stdio): one that dies must
 * read as end of file to the test, not be kept open by its sibling.
 */
static void close_others(int a, int b)
{
	int fd, max = sysconf(_SC_OPEN_MAX);

	for (fd = 3; fd < max && fd < 1024; fd++)
		if (fd != a && fd != b)
			close(fd);
}

static void __attribute__((noreturn))
root_victim(const FIXTURE_DATA(privilege) *self, int go, int done)
{
	unsigned char report;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close_others(go, done);
	pin_cpu0();
	if (read(go, &report, 1) != 1)
		_exit(1);
	report = act(self->secret, self->elf, self->data, self->cold);
	if (write(done, &report, 1) != 1)
		_exit(1);
	/* Alive until the rings are read: an exit would be one more record. */
	pause();
	_exit(0);
}

/* NULL when the caller is nobody with no capability left. */
static const char *become_nobody(void)
{
	unsigned long long eff = ~0ULL, prm = ~0ULL;
	char line[128];
	FILE *f;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return "cannot become nobody";
	if (!geteuid() || !getuid() || !getegid())
		return "still root after setuid()";
	f = fopen("/proc/self/status", "r");
	if (!f)
		return "cannot read /proc/self/status";
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "CapEff: %llx", &eff);
		sscanf(line, "CapPrm: %llx", &prm);
	}
	fclose(f);
	/* No CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYS_PTRACE or any other. */
	if (eff || prm)
		return "capabilities left after setuid()";
	/*
	 * setuid() made us undumpable, which would keep us off our own child
	 * (ptrace_may_access()); a user's processes normally are dumpable.
	 */
	if (prctl(PR_SET_DUMPABLE, 1))
		return "cannot become dumpable";
	return NULL;
}

/*
 * The observer: becomes nobody, opens every kind on the scope, says so on
 * @ready, waits for @cmd, then (setuid_exec: starts its child and waits
 * for it) reads what arrived into @sh.
 */
static void __attribute__((noreturn))
observer(const FIXTURE_DATA(privilege) *self, enum scope scope,
	 struct shared *sh, int ready, int cmd)
{
	static struct events ev;
	int go[2] = { -1, -1 }, st[2] = { -1, -1 }, k;
	struct target t;
	const char *err;
	pid_t child = -1;
	char c;

	close_others(ready, cmd);
	err = become_nobody();
	if (!err && scope == CPU_WIDE_USERNS && unshare(CLONE_NEWUSER))
		err = "unshare(CLONE_NEWUSER)";
	if (err) {
		snprintf(sh->err, sizeof(sh->err), "%s: %s", err, strerror(errno));
		_exit(1);
	}
	if (scope == CPU_WIDE_USERNS)
		scope = CPU_WIDE;
	/* After setuid(), which clears it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (scope == SETUID_EXEC) {
		if (pipe2(go, O_CLOEXEC) || pipe(st)) {
			snprintf(sh->err, sizeof(sh->err), "pipe: %m");
			_exit(1);
		}
		child = fork();
		if (child < 0) {
			snprintf(sh->err, sizeof(sh->err), "fork: %m");
			_exit(1);
		}
		if (!child) {
			char fd[16];

			close(st[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pin_cpu0();
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			snprintf(fd, sizeof(fd), "%d", st[1]);
			execl(self->suid, self->suid, VICTIM_ARG, self->secret,
			      self->elf, self->data, self->cold, fd, (char *)NULL);
			_exit(127);
		}
		close(st[1]);
		sh->victim = child;
	}
	for (k = 0; k < NR_KINDS; k++) {
		if (k == TRACEPOINT && self->tp_id < 0)
			continue;
		open_kind(&ev, &sh->seen[k], k, scope, sh->victim, self->tp_id,
			  self->ncpus, OBS_PAGES);
	}
	c = 'R';
	if (write(ready, &c, 1) != 1 || read(cmd, &c, 1) != 1)
		_exit(1);
	if (scope == SETUID_EXEC) {
		sh->victim_report = ACT_NOT_ROOT;
		if (write(go[1], &c, 1) != 1 || waitpid(child, NULL, 0) != child ||
		    read(st[0], &sh->victim_report, 1) != 1)
			snprintf(sh->err, sizeof(sh->err),
				 "the setuid victim did not report");
	}
	t = (struct target){ sh->victim, self->secret, self->token, self->cold };
	scan_events(&ev, &t, sh->seen);
	_exit(0);
}

static const char *record_name(int type)
{
	static char num[16];

	switch (type) {
	case PERF_RECORD_COMM:
		return "COMM";
	case PERF_RECORD_EXIT:
		return "EXIT";
	case PERF_RECORD_FORK:
		return "FORK";
	case PERF_RECORD_SAMPLE:
		return "SAMPLE";
	case PERF_RECORD_MMAP:
		return "MMAP";
	case PERF_RECORD_MMAP2:
		return "MMAP2";
	case PERF_RECORD_NAMESPACES:
		return "NAMESPACES";
	case PERF_RECORD_MMAP3:
		return "MMAP3";
	case PERF_RECORD_UEVENT:
		return "UEVENT";
	}
	snprintf(num, sizeof(num), "type-%d", type);
	return num;
}

/* Append to @buf (@n used of @len), never past its end. */
static size_t __attribute__((format(printf, 4, 5)))
add(char *buf, size_t len, size_t n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (n >= len - 1)
		return n;
	va_start(ap, fmt);
	ret = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return ret < 0 ? n : n + ret < len - 1 ? n + ret : len - 1;
}

static void describe(char *buf, size_t len, const struct seen *s, bool na)
{
	size_t n;
	int i;

	if (na) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (s->err) {
		snprintf(buf, len, "%s", errname(s->err));
		return;
	}
	n = add(buf, len, 0, "open");
	if (s->mapping || s->cold)
		n = add(buf, len, n, ", saw victim mapping%s%s",
			s->mapping && s->cold ? "s" :
			s->mapping ? "" : " (cold one only)",
			s->cold_build_id ? " (cold with build-id)" : "");
	if (s->secret)
		n = add(buf, len, n, ", saw secret");
	if (s->token && !s->mapping)
		n = add(buf, len, n, ", saw secret folder name");
	if (s->namespaces)
		n = add(buf, len, n, ", saw victim namespaces");
	if (!s->mapping && !s->cold && !s->secret && !s->namespaces) {
		n = add(buf, len, n, s->victim ? ", saw other victim records:" :
			", saw nothing of the victim");
		for (i = 0; s->victim && i < 64; i++)
			if (s->victim_types & (1ULL << i))
				n = add(buf, len, n, " %s", record_name(i));
	}
	if (s->lost)
		n = add(buf, len, n, ", lost %lu", s->lost);
	if (s->ring_err)
		add(buf, len, n, ", ring mmap %s", errname(s->ring_err));
}

static void print_matrix(int level, enum scope scope, const char *who,
			 const struct seen *seen, bool tp)
{
	char line[2048], one[256];
	size_t n;
	int k;

	n = add(line, sizeof(line), 0, "paranoid %d %s%s:", level,
		scope_name[scope], who);
	for (k = 0; k < NR_KINDS; k++) {
		describe(one, sizeof(one), &seen[k], k == TRACEPOINT && !tp);
		n = add(line, sizeof(line), n, "%s %s %s", k ? ";" : "",
			kind_name[k], one);
	}
	ksft_print_msg("%s\n", line);
	/* The test runs in a child that ends with _exit(): flush now. */
	fflush(stdout);
}

/*
 * The existing rules for nobody's dummy event, from perf_event_open():
 * perf_paranoid_any() (level 3), perf_check_permission() (ptrace access:
 * none to root's task, full to its own child until a setuid exec) and
 * find_get_context()'s perf_allow_cpu() (CPU-wide above level 0).
 */
static int existing_errno(int level, enum scope scope)
{
	if (level > 2)
		return EACCES;
	switch (scope) {
	case TASK_BOUND:
		return EACCES;
	case CPU_WIDE:
		return level > 0 ? EACCES : 0;
	default:
		return 0;
	}
}

static void check(struct __test_metadata *_metadata, int level,
		  enum scope scope, const struct seen *obs,
		  const struct seen *ctl, bool tp, bool cold)
{
	const struct seen *base = &obs[MMAP2];
	int k;

	if (scope == CPU_WIDE_USERNS)	/* nobody's rules, as it is */
		scope = CPU_WIDE;

	/* The control: each action of the victim was there to be seen. */
	EXPECT_TRUE(ctl[MMAP2].mapping && ctl[MMAP2_BID].mapping &&
		    ctl[MMAP3].mapping)
		TH_LOG("root's events saw no mapping of the victim");
	if (cold) {
		EXPECT_TRUE(ctl[MMAP2].cold && ctl[MMAP3].cold)
			TH_LOG("root's events saw no cold mapping of the victim");
	}
	EXPECT_TRUE(ctl[UEVENT].secret)
		TH_LOG("root's uevent event saw no secret");
	EXPECT_TRUE(ctl[NAMESPACES].namespaces)
		TH_LOG("root's namespaces event saw no record of the victim");
	if (tp) {
		EXPECT_TRUE(ctl[TRACEPOINT].secret)
			TH_LOG("root's tracepoint event saw no secret");
	}

	for (k = 0; k < NR_KINDS; k++) {
		if (k == TRACEPOINT && !tp)
			continue;
		EXPECT_EQ(0UL, obs[k].lost)
			TH_LOG("%s: records lost, a leak could hide", kind_name[k]);
		EXPECT_EQ(0, obs[k].ring_err)
			TH_LOG("%s: ring mmap failed", kind_name[k]);
	}

	/* The existing rules, as the kernel has them. */
	EXPECT_EQ(existing_errno(level, scope), base->err)
		TH_LOG("mmap2 %s, the existing rules say %s", errname(base->err),
		       errname(existing_errno(level, scope)));
	EXPECT_EQ(base->err, obs[MMAP2_BID].err)
		TH_LOG("mmap2+build_id %s, mmap2 %s",
		       errname(obs[MMAP2_BID].err), errname(base->err));
	if (scope == CPU_WIDE && !base->err) {
		EXPECT_TRUE(base->mapping)
			TH_LOG("CPU-wide mmap2 missed the victim's mapping");
	}
	if (scope == SETUID_EXEC) {
		/* perf_event_exit_task() at the exec: nothing after it. */
		EXPECT_FALSE(base->mapping || obs[MMAP2_BID].mapping)
			TH_LOG("mmap2 saw a mapping after the setuid exec");
	}
	EXPECT_EQ(EACCES, obs[NAMESPACES].err)
		TH_LOG("namespaces %s for nobody", errname(obs[NAMESPACES].err));
	/* perf_trace_event_perm(): raw data at -1 only, never of root's task */
	if (tp) {
		EXPECT_EQ(level == -1 && scope != TASK_BOUND,
			  !obs[TRACEPOINT].err)
			TH_LOG("tracepoint with PERF_SAMPLE_RAW %s",
			       errname(obs[TRACEPOINT].err));
	}

	/* The new bits open exactly where mmap2 does, with its errno... */
	EXPECT_EQ(base->err, obs[MMAP3].err)
		TH_LOG("mmap3 %s where mmap2 %s", errname(obs[MMAP3].err),
		       errname(base->err));
	EXPECT_EQ(base->err, obs[UEVENT].err)
		TH_LOG("uevent %s where mmap2 %s", errname(obs[UEVENT].err),
		       errname(base->err));

	/* ...and show nothing of the victim that mmap2 does not. */
	EXPECT_FALSE(obs[MMAP3].mapping &&
		     !(base->mapping && obs[MMAP2_BID].mapping))
		TH_LOG("LEAK: mmap3 saw a mapping that mmap2 did not");
	EXPECT_FALSE(obs[MMAP3].cold && !(base->cold && obs[MMAP2_BID].cold))
		TH_LOG("LEAK: mmap3 saw the cold mapping that mmap2 did not");
	/*
	 * Another user's message is raw data: a CPU-wide uevent event of
	 * nobody takes it at level -1 only, as the tracepoint's does; at 0
	 * it takes nobody's own messages, and root's are not.
	 */
	if (scope == CPU_WIDE && level == -1 && !obs[UEVENT].err) {
		EXPECT_TRUE(obs[UEVENT].secret)
			TH_LOG("level -1: the CPU-wide uevent event missed root's message");
	}
	for (k = 0; k < NR_KINDS; k++) {
		EXPECT_FALSE(obs[k].secret &&
			     !((k == UEVENT || k == TRACEPOINT) &&
			       scope == CPU_WIDE && level == -1 && base->mapping))
			TH_LOG("LEAK: %s saw the uevent secret", kind_name[k]);
		EXPECT_FALSE(obs[k].token && !base->mapping)
			TH_LOG("LEAK: %s saw the secret folder's name",
			       kind_name[k]);
		EXPECT_FALSE(obs[k].namespaces)
			TH_LOG("LEAK: %s saw the victim's namespaces",
			       kind_name[k]);
		EXPECT_FALSE(obs[k].victim && !base->victim)
			TH_LOG("LEAK: %s saw records of the victim, mmap2 none",
			       kind_name[k]);
	}
}

static void run_scope(struct __test_metadata *_metadata,
		      FIXTURE_DATA(privilege) *self, int level,
		      enum scope scope)
{
	static struct events ctl_ev;
	struct seen ctl[NR_KINDS] = {};
	int go[2], done[2], ready[2], cmd[2], k, status;
	unsigned char report = 0;
	struct shared *sh;
	pid_t victim = -1, obs;
	struct target t;
	char c;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(done, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(cmd, O_CLOEXEC));
	fflush(stdout);
	fflush(stderr);

	if (scope != SETUID_EXEC) {
		victim = fork();
		ASSERT_LE(0, victim);
		if (!victim)
			root_victim(self, go[0], done[1]);
		sh->victim = victim;
	}
	obs = fork();
	ASSERT_LE(0, obs);
	if (!obs)
		observer(self, scope, sh, ready[1], cmd[0]);
	/* So that a child that died reads as end of file. */
	close(ready[1]);
	close(done[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1))
		TH_LOG("the observer failed: %s", sh->err);

	/* Root's events, after the observer's: nothing hides the victim. */
	for (k = 0; k < NR_KINDS; k++) {
		if (k == TRACEPOINT && self->tp_id < 0)
			continue;
		open_kind(&ctl_ev, &ctl[k], k,
			  scope == TASK_BOUND ? TASK_BOUND : CPU_WIDE,
			  sh->victim, self->tp_id, self->ncpus, CTL_PAGES);
		ASSERT_EQ(0, ctl[k].err)
			TH_LOG("root cannot open %s: %s", kind_name[k],
			       strerror(ctl[k].err));
	}
	/* The cold ELF's MMAP3 record then waits for the return to user space. */
	EXPECT_EQ(0, write_file(DROP_CACHES, "1"));

	if (scope == SETUID_EXEC) {
		ASSERT_EQ(1, write(cmd[1], "r", 1));
	} else {
		ASSERT_EQ(1, write(go[1], "g", 1));
		ASSERT_EQ(1, read(done[0], &report, 1));
		ASSERT_EQ(1, write(cmd[1], "r", 1));
	}
	ASSERT_EQ(obs, waitpid(obs, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the observer failed: %s", sh->err);
	if (scope == SETUID_EXEC)
		report = sh->victim_report;

	t = (struct target){ sh->victim, self->secret, self->token, self->cold };
	scan_events(&ctl_ev, &t, ctl);
	close_events(&ctl_ev);
	if (victim > 0) {
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
	}

	print_matrix(level, scope, "", sh->seen, self->tp_id >= 0);
	print_matrix(level, scope, ", root's control", ctl, self->tp_id >= 0);
	if (report == ACT_NOT_ROOT)
		SKIP(goto out, "the setuid copy did not run as root");
	ASSERT_EQ(0, report)
		TH_LOG("the victim's calls failed: %#x (uevent 1, elf 2, data 4, cold 8, unshare 16)",
		       report);
	check(_metadata, level, scope, sh->seen, ctl, self->tp_id >= 0,
	      self->cold[0]);
out:
	munmap(sh, sizeof(*sh));
}

static void remove_files(FIXTURE_DATA(privilege) *self)
{
	if (!self->dir[0])
		return;
	unlink(self->elf);
	unlink(self->data);
	unlink(self->suid);
	rmdir(self->secret_dir);
	rmdir(self->dir);
	self->dir[0] = 0;
}

static int make_files(FIXTURE_DATA(privilege) *self)
{
	static const char *const colds[] = { "/usr/bin/true", "/bin/true" };
	char hex[32];
	unsigned int i;
	int fd;

	snprintf(self->dir, sizeof(self->dir), "/tmp/sideband-privilege.XXXXXX");
	if (!mkdtemp(self->dir)) {
		self->dir[0] = 0;
		return -1;
	}
	random_hex(hex, sizeof(hex));
	snprintf(self->token, sizeof(self->token), "secret-%s", hex);
	random_hex(hex, sizeof(hex));
	snprintf(self->secret, sizeof(self->secret), "uevent secret %s", hex);
	snprintf(self->secret_dir, sizeof(self->secret_dir), "%s/%s",
		 self->dir, self->token);
	snprintf(self->elf, sizeof(self->elf), "%s/victim-elf", self->secret_dir);
	snprintf(self->data, sizeof(self->data), "%s/victim-data",
		 self->secret_dir);
	snprintf(self->suid, sizeof(self->suid), "%s/perf-privilege-setuid",
		 self->dir);
	self->cold[0] = 0;
	for (i = 0; i < sizeof(colds) / sizeof(colds[0]); i++)
		if (realpath(colds[i], self->cold))
			break;
	if (i == sizeof(colds) / sizeof(colds[0]))
		self->cold[0] = 0;

	/* nobody may run the setuid copy but not look into the secret folder. */
	if (chmod(self->dir, 0755) || mkdir(self->secret_dir, 0700) ||
	    copy_file("/proc/self/exe", self->elf, 0700) ||
	    copy_file("/proc/self/exe", self->suid, 04755))
		return -1;
	fd = open(self->data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, "data\n", 5) != 5) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* 0 when the kernel takes attr.uevent and attr.mmap3, else the errno. */
static int series_errno(void)
{
	static const enum kind kinds[] = { UEVENT, MMAP3 };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct perf_event_attr attr = kind_attr(kinds[i], -1, false);
		int fd = perf_open(&attr, 0, -1);

		if (fd < 0)
			return errno;
		close(fd);
	}
	return 0;
}

FIXTURE_SETUP(privilege)
{
	char level[16];
	int now, err;

	self->set = false;
	self->dir[0] = 0;
	if (geteuid())
		SKIP(return, "needs root: it is the victim and sets perf_event_paranoid");
	/* A kernel without the series refuses the new bits as reserved. */
	err = series_errno();
	if (err == EINVAL)
		SKIP(return, "no attr.uevent or attr.mmap3: a kernel without the series");
	ASSERT_EQ(0, err) TH_LOG("root cannot open the new bits: %s", strerror(err));
	if (read_int(UEVENT_TP_ID, &self->tp_id)) {
		self->tp_id = -1;
		ksft_print_msg("no %s: tracepoint not checked\n", UEVENT_TP_ID);
		fflush(stdout);
	}
	self->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (self->ncpus > MAX_CPUS)
		self->ncpus = MAX_CPUS;
	ASSERT_EQ(0, read_int(PARANOID, &self->saved));

	if (make_files(self)) {
		err = errno;
		remove_files(self);
		ASSERT_EQ(0, err) TH_LOG("cannot make the victim's files: %s",
					 strerror(err));
	}
	/* Last: from here on teardown restores it. */
	snprintf(level, sizeof(level), "%d", variant->level);
	if (write_file(PARANOID, level) || read_int(PARANOID, &now) ||
	    now != variant->level) {
		snprintf(level, sizeof(level), "%d", self->saved);
		write_file(PARANOID, level);
		remove_files(self);
		SKIP(return, "perf_event_paranoid does not take %d",
		     variant->level);
	}
	self->set = true;
}

/* In the parent: it restores the sysctl even when the test crashed. */
FIXTURE_TEARDOWN_PARENT(privilege)
{
	char level[16];

	if (self->set) {
		snprintf(level, sizeof(level), "%d", self->saved);
		EXPECT_EQ(0, write_file(PARANOID, level));
		self->set = false;
	}
	remove_files(self);
}

TEST_F_TIMEOUT(privilege, task_bound, 60)
{
	run_scope(_metadata, self, variant->level, TASK_BOUND);
}

TEST_F_TIMEOUT(privilege, cpu_wide, 60)
{
	run_scope(_metadata, self, variant->level, CPU_WIDE);
}

TEST_F_TIMEOUT(privilege, setuid_exec, 60)
{
	run_scope(_metadata, self, variant->level, SETUID_EXEC);
}

TEST_F_TIMEOUT(privilege, cpu_wide_userns, 60)
{
	run_scope(_metadata, self, variant->level, CPU_WIDE_USERNS);
}

/*
 * The other way round: nobody writing into root's events.  At every
 * level, 4 KiB messages that nobody sends as fast as it can on CPU 0 take
 * at most half of the buffer of root's CPU-wide uevent event there (which
 * nobody reads meanwhile), every message that did not fit is counted by
 * PERF_RECORD_LOST, and the COMM records the event gets afterwards all
 * arrive.
 */
#define FLOOD_MESSAGES	64	/* 256 KiB, against a 128 KiB buffer */
#define FLOOD_COMMS	100

struct flood {
	long uevents, dropped, lost, comms;
	size_t uevent_bytes;
};

/* One record of root's ring: the flood's, a loss, or root's own COMM. */
static void flood_record(const unsigned char *rec, size_t size, void *arg)
{
	const struct perf_event_header *h = (const void *)rec;
	struct flood *f = arg;
	uint64_t lost;

	if (h->type == PERF_RECORD_UEVENT && u32_at(rec + 8) == 1) {
		f->uevents++;
		f->uevent_bytes += size;
	} else if (h->type == PERF_RECORD_LOST) {
		memcpy(&lost, rec + 16, sizeof(lost));
		if (h->misc & PERF_RECORD_MISC_LOST_UEVENT)
			f->dropped += lost;
		else
			f->lost += lost;
	} else if (h->type == PERF_RECORD_COMM &&
		   u32_at(rec + 12) == (uint32_t)gettid() &&
		   !strncmp((const char *)rec + 16, "flood-", 6)) {
		f->comms++;
	}
}

TEST_F_TIMEOUT(privilege, flood, 60)
{
	struct perf_event_attr attr = kind_attr(UEVENT, -1, false);
	static char big[PERF_UEVENT_MAX_SIZE];
	struct flood f = { 0 };
	struct ring r = { 0 };
	const char *err;
	size_t size;
	int status, i;
	char name[16];
	pid_t child;

	pin_cpu0();
	attr.comm = 1;
	r.fd = perf_open(&attr, -1, 0);
	ASSERT_LE(0, r.fd) TH_LOG("root's CPU-wide event: %s", strerror(errno));
	r.len = (CTL_PAGES + 1) * sysconf(_SC_PAGESIZE);
	r.base = mmap(NULL, r.len, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
	ASSERT_NE(MAP_FAILED, r.base);

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		err = become_nobody();
		if (err) {
			fprintf(stderr, "# %s\n", err);
			_exit(2);
		}
		for (i = 0; i < FLOOD_MESSAGES; i++)
			if (prctl(PR_TASK_PERF_UEVENT, 1, sizeof(big), big, 0))
				_exit(1);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	for (i = 0; i < FLOOD_COMMS; i++) {
		snprintf(name, sizeof(name), "flood-%d", i);
		ASSERT_EQ(0, prctl(PR_SET_NAME, name));
	}

	ring_each(&r, flood_record, &f);
	size = ((struct perf_event_mmap_page *)r.base)->data_size;
	ksft_print_msg("paranoid %d, nobody floods root's cpu-wide event: %ld messages (%zu of %zu bytes), %ld dropped, %ld records lost, %ld of %d COMM records\n",
		       variant->level, f.uevents, f.uevent_bytes, size, f.dropped,
		       f.lost, f.comms, FLOOD_COMMS);
	EXPECT_LT(0, f.uevents);
	EXPECT_GE(size / 2, f.uevent_bytes);
	EXPECT_EQ(FLOOD_MESSAGES, f.uevents + f.dropped);
	/* Dropped messages are counted apart: no record of root's was lost. */
	EXPECT_EQ(0, f.lost);
	EXPECT_EQ(FLOOD_COMMS, f.comms);
	munmap(r.base, r.len);
	close(r.fd);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], VICTIM_ARG))
		return setuid_victim(argc, argv);
	/* The whole program skips on a kernel without the series. */
	if (!geteuid() && series_errno() == EINVAL) {
		ksft_print_header();
		ksft_exit_skip("no attr.uevent or attr.mmap3: a kernel without the series\n");
	}
	return test_harness_run(argc, argv);
}

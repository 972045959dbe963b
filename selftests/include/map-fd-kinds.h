/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fdk_probe(KIND): mmap one kind of file descriptor while MMAP3 events
 * watch, in a child that must come back; for the programs of selftests/
 * that map things (fuzz, stress).
 *
 * With an attr.mmap3 + attr.mmap_data event, a mapping whose build-id is
 * not in the page cache has the kernel read the mapped file on the return
 * to user space (build_id_parse_file() -> __kernel_read()).  That read is
 * harmless on a regular file; on a socket it takes the data (TCP) or
 * blocks for good (an AF_PACKET ring that receives nothing), and on a
 * file with ->read but no ->read_iter (a perf event) it logs "kernel read
 * not supported for file".  So each kind of fd is mapped PROT_READ, then
 * PROT_READ|PROT_EXEC, in a child that watches itself with such an event
 * (and every CPU, when it may), and the parent counts per kind:
 *
 *   ok       mmap() gave a mapping
 *   refused  mmap() failed (ENODEV, EPERM, EACCES, EINVAL: expected for
 *            some kinds; the last errno of each prot is shown, "-" for none)
 *   hung     the child stopped making progress while the system went on
 *            (see fdk_wait()): it is killed and the kind is not probed
 *            again; or it died of a signal
 *   lost     the message written to a socket or pipe before mmap() was not
 *            there to read after it, or a file mapping differed from read()
 *   warned   the kernel logged "not supported for file" for the child
 *   skipped  the fd could not be made (no CONFIG_PACKET, no CONFIG_INET):
 *            said once, and the kind is not probed again
 *
 * fdk_print() prints them as a "# figures:" line; fdk_failed() is true
 * after a hang, a loss or a warning.  The child only makes system calls
 * (and snprintf), so multithreaded programs may call fdk_probe().
 */
#ifndef SIDEBAND_MAP_FD_KINDS_H
#define SIDEBAND_MAP_FD_KINDS_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/perf_event.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * A child is hung when it has made no progress (see fdk_progress()) over
 * FDK_STALL_POLLS polls of FDK_POLL_US each: at least 10 s, and longer
 * when the parent itself runs slowly, so that a guest that gets little of
 * the host's CPU is not judged by the wall clock.  A read that blocks for
 * good makes no progress at all; a slow setup under KASAN or TCG does.
 */
#define FDK_POLL_US	1000
#ifndef FDK_STALL_POLLS
#define FDK_STALL_POLLS	10000
#endif
/* The child kills itself after this long, should the parent be gone. */
#define FDK_ORPHAN_S	600
#define FDK_MSG		"sideband: this must be read back"

enum {
	FDK_PACKET, FDK_UNIX, FDK_TCP, FDK_PIPE, FDK_ZERO_PRIVATE,
	FDK_ZERO_SHARED, FDK_NULL, FDK_URANDOM, FDK_KMSG, FDK_PTMX, FDK_PERF,
	FDK_MEMFD_SHARED, FDK_MEMFD_PRIVATE, FDK_TMPFS, FDK_9P, FDK_EXE,
	FDK_KINDS
};

static const char *const fdk_names[FDK_KINDS] = {
	"packet-ring", "unix", "tcp", "proc-pipe", "zero-private",
	"zero-shared", "null", "urandom", "kmsg", "ptmx", "perf",
	"memfd-shared", "memfd-private", "tmpfs", "9p", "exe",
};

static const char *const fdk_prot[2] = { "PROT_READ", "PROT_READ|PROT_EXEC" };

static struct fdk_count {
	unsigned long ok, refused, hung, lost, warned, skipped;
	int refused_errno[2], skipped_errno;
} fdk_counts[FDK_KINDS];

/* What the child tells the parent, in memory they share. */
struct fdk_report {
	int event_errno;	/* the MMAP3 event on the child did not open */
	int made_errno;		/* the fd could not be made: skipped */
	int attempt;		/* 0: PROT_READ, 1: PROT_READ|PROT_EXEC */
	int map_errno[2];	/* -1: not tried, 0: mapped, else mmap's errno */
	int lost[2], warned[2];
};

/* A file descriptor to map, and how. */
struct fdk_fd {
	int fd, flags;		/* mmap()'s fd and MAP_SHARED/MAP_PRIVATE */
	size_t len;
	int rd;			/* FDK_MSG comes back from here (-1: none) */
	int same;		/* the mapping must show what pread() reads */
	int fds[4], nr;		/* to close */
};

static int fdk_keep(struct fdk_fd *f, int fd)
{
	if (fd >= 0)
		f->fds[f->nr++] = fd;
	return fd;
}

/*
 * A network namespace of the child's own with lo up, for the socket
 * kinds: packet sockets need CAP_NET_RAW, which a user who is not root
 * has in a user namespace of its own, and 127.0.0.1 needs lo.  Failing
 * that, the current one.
 */
static void fdk_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s;

	if (unshare(CLONE_NEWNET))
		unshare(CLONE_NEWUSER | CLONE_NEWNET);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (s >= 0 && !ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	if (s >= 0)
		close(s);
}

static int fdk_tcp(struct fdk_fd *f)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l = fdk_keep(f, socket(AF_INET, SOCK_STREAM, 0));
	int c = fdk_keep(f, socket(AF_INET, SOCK_STREAM, 0));
	struct pollfd p;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || c < 0 || bind(l, (void *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (void *)&a, &len) || connect(c, (void *)&a, sizeof(a)))
		return -errno;
	f->fd = f->rd = fdk_keep(f, accept(l, NULL, NULL));
	if (f->fd < 0)
		return -errno;
	if (write(c, FDK_MSG, sizeof(FDK_MSG)) != sizeof(FDK_MSG))
		return -EIO;
	/* Queued on the mapped socket before mmap(), where a read would take it. */
	p = (struct pollfd){ .fd = f->fd, .events = POLLIN };
	poll(&p, 1, 1000);
	return 0;
}

static int fdk_packet(struct fdk_fd *f)
{
	int v = TPACKET_V2;
	struct tpacket_req req = {
		.tp_block_size = getpagesize(), .tp_block_nr = 2,
		.tp_frame_size = 2048,
	};

	/* Protocol 0: no packet ever arrives, so a read never returns. */
	f->fd = fdk_keep(f, socket(AF_PACKET, SOCK_RAW, 0));
	req.tp_frame_nr = req.tp_block_size * req.tp_block_nr / req.tp_frame_size;
	f->len = req.tp_block_size * req.tp_block_nr;
	if (f->fd < 0 ||
	    setsockopt(f->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(f->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		return -errno;
	return 0;
}

static int fdk_perf(struct fdk_fd *f, int attempt)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};

	f->fd = fdk_keep(f, syscall(__NR_perf_event_open, &attr, 0, -1, -1,
				    PERF_FLAG_FD_CLOEXEC));
	f->len = (1 + (1 << attempt)) * getpagesize();	/* 1 + 2^n pages */
	return f->fd < 0 ? -errno : 0;
}

/* A file of FDK_MSG: memfd (tmpfs: 0) or unlinked under /tmp (1). */
static int fdk_file(struct fdk_fd *f, int tmpfs)
{
	char name[] = "/tmp/fdk.XXXXXX";

	f->fd = fdk_keep(f, tmpfs ? mkstemp(name) : memfd_create("fdk", MFD_CLOEXEC));
	if (f->fd < 0)
		return -errno;
	if (tmpfs)
		unlink(name);
	f->same = 1;
	return write(f->fd, FDK_MSG, sizeof(FDK_MSG)) == sizeof(FDK_MSG) ? 0 : -EIO;
}

static int fdk_open(struct fdk_fd *f, const char *path, int flags)
{
	f->fd = fdk_keep(f, open(path, flags | O_CLOEXEC));
	return f->fd < 0 ? -errno : 0;
}

/* Makes the fd of @kind into @f; 0 or -errno. */
static int fdk_make(int kind, int attempt, struct fdk_fd *f)
{
	char path[64];
	int sv[2], err;

	*f = (struct fdk_fd){ .fd = -1, .rd = -1, .flags = MAP_SHARED,
			      .len = getpagesize() };
	switch (kind) {
	case FDK_PACKET:
		return fdk_packet(f);
	case FDK_UNIX:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			return -errno;
		f->fd = f->rd = fdk_keep(f, sv[0]);
		fdk_keep(f, sv[1]);
		return write(sv[1], FDK_MSG, sizeof(FDK_MSG)) == sizeof(FDK_MSG) ? 0 : -EIO;
	case FDK_TCP:
		return fdk_tcp(f);
	case FDK_PIPE:
		/* A file of its own on the pipe, as a program given a path has. */
		if (pipe(sv))
			return -errno;
		f->rd = fdk_keep(f, sv[0]);
		fdk_keep(f, sv[1]);
		if (write(sv[1], FDK_MSG, sizeof(FDK_MSG)) != sizeof(FDK_MSG))
			return -EIO;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", sv[0]);
		return fdk_open(f, path, O_RDONLY);
	case FDK_ZERO_PRIVATE:
	case FDK_ZERO_SHARED:
		/* Private: an anonymous mapping that keeps /dev/zero as its file. */
		f->flags = kind == FDK_ZERO_PRIVATE ? MAP_PRIVATE : MAP_SHARED;
		f->same = 1;
		return fdk_open(f, "/dev/zero", O_RDONLY);
	case FDK_NULL:
		return fdk_open(f, "/dev/null", O_RDONLY);
	case FDK_URANDOM:
		return fdk_open(f, "/dev/urandom", O_RDONLY);
	case FDK_KMSG:	/* O_NONBLOCK: never wait, should anything read it */
		return fdk_open(f, "/dev/kmsg", O_RDONLY | O_NONBLOCK);
	case FDK_PTMX:
		return fdk_open(f, "/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK);
	case FDK_PERF:
		return fdk_perf(f, attempt);
	case FDK_MEMFD_SHARED:
	case FDK_MEMFD_PRIVATE:
		f->flags = kind == FDK_MEMFD_SHARED ? MAP_SHARED : MAP_PRIVATE;
		return fdk_file(f, 0);
	case FDK_TMPFS:
		return fdk_file(f, 1);
	case FDK_9P:
		/* The guest's root: 9p under an overlay.  Out of the page cache,
		 * so that the build-id is read after mmap(). */
		f->flags = MAP_PRIVATE;
		f->same = 1;
		err = fdk_open(f, "/usr/bin/true", O_RDONLY);
		if (!err)
			posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
		return err;
	default:	/* FDK_EXE: in the page cache, since it runs */
		f->flags = MAP_PRIVATE;
		f->same = 1;
		return fdk_open(f, "/proc/self/exe", O_RDONLY);
	}
}

/* The message is still there to read, or the mapping shows the file. */
static int fdk_intact(struct fdk_fd *f, const void *map)
{
	char buf[64];
	ssize_t n;

	if (f->rd >= 0) {
		/* Non-blocking only now: a read at mmap() time had to block. */
		fcntl(f->rd, F_SETFL, O_NONBLOCK);
		n = read(f->rd, buf, sizeof(buf));
		return n == sizeof(FDK_MSG) && !memcmp(buf, FDK_MSG, n);
	}
	if (f->same && map != MAP_FAILED) {
		n = pread(f->fd, buf, sizeof(buf), 0);
		return n > 0 && !memcmp(map, buf, n);
	}
	return 1;
}

/* Did the kernel log "not supported for file" for this task since @kmsg
 * was put at the end of the log? */
static int fdk_warned(int kmsg)
{
	char rec[1024], pid[32];
	int found = 0;
	ssize_t n;

	snprintf(pid, sizeof(pid), "(pid: %d ", getpid());
	while (kmsg >= 0 && ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 ||
			     (n < 0 && errno == EPIPE))) {
		rec[n > 0 ? n : 0] = 0;
		if (strstr(rec, "not supported for file") && strstr(rec, pid))
			found = 1;
	}
	return found;
}

/*
 * The child: MMAP3 + mmap_data events on itself (with a ring, so that the
 * records are written too) and on every CPU (root only), then each
 * mapping.
 */
static void fdk_child(int kind, volatile struct fdk_report *rep)
{
	static const int prot[2] = { PROT_READ, PROT_READ | PROT_EXEC };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY, .disabled = 1,
		.sample_type = PERF_SAMPLE_TID, .sample_id_all = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
		.mmap3 = 1, .mmap_data = 1,
	};
	long cpu, cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int a, fd, kmsg;

	if (kind == FDK_PACKET || kind == FDK_TCP)
		fdk_netns();
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	rep->event_errno = fd < 0 ? errno : 0;
	/* Mapped while disabled: this mapping is no probe. */
	if (fd >= 0 && mmap(NULL, 2 * getpagesize(), PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0) != MAP_FAILED)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	attr.disabled = 0;
	for (cpu = 0; cpu < cpus; cpu++)
		syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	for (a = 0; a < 2; a++) {
		struct fdk_fd f;
		int i, err = fdk_make(kind, a, &f);
		void *map;

		if (err) {
			rep->made_errno = -err;
			return;
		}
		if (kmsg >= 0)
			lseek(kmsg, 0, SEEK_END);
		rep->attempt = a;
		map = mmap(NULL, f.len, prot[a], f.flags, f.fd, 0);
		rep->map_errno[a] = map == MAP_FAILED ? errno : 0;
		rep->lost[a] = !fdk_intact(&f, map);
		rep->warned[a] = fdk_warned(kmsg);
		if (map != MAP_FAILED)
			munmap(map, f.len);
		for (i = 0; i < f.nr; i++)
			close(f.fds[i]);
	}
}

static const char *fdk_errname(int err)
{
	const char *name = err ? strerrorname_np(err) : "-";

	return name ? name : "?";
}

/*
 * What the child has done so far: its CPU time (utime + stime, in clock
 * ticks) and its context switches (each sleep that ends, each preemption)
 * summed into one number, or -1 once it is gone.  A task that computes, or
 * waits for I/O that completes, moves it; one blocked for good does not.
 */
static long long fdk_progress(pid_t pid)
{
	unsigned long long utime, stime, sum = 0, n;
	char path[64], line[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* The fields after comm, which may hold spaces: from the last ')'. */
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &utime, &stime) != 2)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %llu", &n) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %llu", &n) == 1)
			sum += n;
	fclose(f);
	return utime + stime + sum;
}

/*
 * Waits for @pid: true when it is back (*status set), false when it hung.
 * Polled, not alarm(): the caller may be one thread of many.  Progress is
 * the child's own (fdk_progress()) or a new step in @rep; the stall is
 * counted in polls of this thread, which run only when the system does.
 */
static int fdk_wait(pid_t pid, volatile struct fdk_report *rep, int *status)
{
	long long last = -2, now;
	int attempt = -2, stall = 0;

	while (waitpid(pid, status, WNOHANG) != pid) {
		now = fdk_progress(pid);
		if (now != last || rep->attempt != attempt)
			stall = 0;
		else if (++stall >= FDK_STALL_POLLS)
			return 0;
		last = now;
		attempt = rep->attempt;
		usleep(FDK_POLL_US);
	}
	return 1;
}

/* Probes @kind in a child, counts what happened. */
static void fdk_probe(int kind)
{
	static volatile struct fdk_report *rep;
	static int event_said;
	struct fdk_count *c = &fdk_counts[kind];
	int a, i, status;
	pid_t pid;

	if (c->hung || c->skipped)	/* once is enough: nothing piles up */
		return;
	if (!rep) {
		void *p = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return;
		rep = p;
	}
	*rep = (struct fdk_report){ .attempt = -1, .map_errno = { -1, -1 } };
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		alarm(FDK_ORPHAN_S);
		fdk_child(kind, rep);
		_exit(0);
	}
	if (!fdk_wait(pid, rep, &status)) {
		c->hung++;
		if (rep->attempt < 0)
			printf("# fd kind %s: no progress over %d polls, before any mmap(): killed\n",
			       fdk_names[kind], FDK_STALL_POLLS);
		else
			printf("# fd kind %s: no progress over %d polls in mmap(%s): killed\n",
			       fdk_names[kind], FDK_STALL_POLLS, fdk_prot[rep->attempt]);
		kill(pid, SIGKILL);
		for (i = 0; i < 5000 && waitpid(pid, NULL, WNOHANG) != pid; i++)
			usleep(1000);
		if (i == 5000)
			printf("# fd kind %s: child %d survives SIGKILL\n",
			       fdk_names[kind], pid);
	} else if (!WIFEXITED(status)) {
		c->hung++;
		printf("# fd kind %s: child died of signal %d\n", fdk_names[kind],
		       WTERMSIG(status));
	}
	if (rep->event_errno && !event_said++)
		printf("# no MMAP3 event on the probing task: %s\n",
		       strerror(rep->event_errno));
	if (rep->made_errno) {
		c->skipped++;
		c->skipped_errno = rep->made_errno;
		printf("# fd kind %s: cannot make it as uid %d (%s), skipped\n",
		       fdk_names[kind], getuid(), strerror(rep->made_errno));
	}
	for (a = 0; a < 2; a++) {
		if (rep->map_errno[a] == 0)
			c->ok++;
		if (rep->map_errno[a] > 0) {
			c->refused++;
			c->refused_errno[a] = rep->map_errno[a];
		}
		/* Said the first time: the stress test probes many times. */
		if (rep->map_errno[a] >= 0 && rep->lost[a] && !c->lost++)
			printf("# fd kind %s: data lost after mmap(%s)\n",
			       fdk_names[kind], fdk_prot[a]);
		if (rep->warned[a] && !c->warned++)
			printf("# fd kind %s: the kernel logged \"not supported for file\" "
			       "after mmap(%s)\n", fdk_names[kind], fdk_prot[a]);
	}
}

static int fdk_failed(void)
{
	int k;

	for (k = 0; k < FDK_KINDS; k++)
		if (fdk_counts[k].hung || fdk_counts[k].lost || fdk_counts[k].warned)
			return 1;
	return 0;
}

static void fdk_print(void)
{
	int k;

	printf("# figures: fd kinds mapped under MMAP3 "
	       "(ok/refused/hung/lost/warned; errnos of PROT_READ, +PROT_EXEC):");
	for (k = 0; k < FDK_KINDS; k++) {
		const struct fdk_count *c = &fdk_counts[k];

		printf("%s %s ", k ? "," : "", fdk_names[k]);
		if (c->skipped && !c->ok && !c->refused && !c->hung) {
			printf("skipped (%s)", fdk_errname(c->skipped_errno));
			continue;
		}
		printf("%lu/%lu", c->ok, c->refused);
		if (c->refused)
			printf(" (%s, %s)", fdk_errname(c->refused_errno[0]),
			       fdk_errname(c->refused_errno[1]));
		printf("/%lu/%lu/%lu", c->hung, c->lost, c->warned);
	}
	printf("\n");
}

#endif /* SIDEBAND_MAP_FD_KINDS_H */

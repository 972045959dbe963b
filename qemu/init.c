// SPDX-License-Identifier: GPL-2.0
/*
 * init: PID 1 of vm-run's guest, a static program in the initramfs.
 *
 * It builds the root the command runs in: the host's root file system
 * (for a guest of another architecture, a Debian root of that
 * architecture, with the host folders vm-run names read only at their
 * host paths), read only over 9p, under a tmpfs overlay (writes stay in
 * the guest), with fresh proc, sys, dev, tmp and run, the tracing file
 * systems, vm-run's state share on /run/vm-run, the --rw host folders at
 * their host paths and the flavour's modules on /lib/modules.  It credits the
 * bytes vm-run took from the host's /dev/urandom to the guest's CRNG,
 * then runs the command vm-run wrote to the share (argv, directory and
 * environment as NUL-separated files: no shell in between), stores its
 * exit status and the kernel log there, and powers off.  One static program, because
 * every program loaded from the 9p root costs tens of ms under TCG, and
 * a shell script forks for each step.
 *
 * The command's output goes to the virtio console (vm-run's output), raw;
 * its input is vm-run's (a virtio port, "vmrun.stdin") or /dev/null.  In
 * shell mode the console is the command's terminal instead: a new
 * session, job control, the host terminal's size.  The serial console
 * keeps the kernel log and the lines "vm-run: ..." that mark the stages.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/random.h>
#include <net/if.h>

/* The serial port of the kernel log (guest_cmdline in scripts/lib.sh). */
#ifdef __aarch64__
#define SERIAL	"/dev/ttyAMA0"
#else
#define SERIAL	"/dev/ttyS0"
#endif
#define ROOT	"/newroot"
#define STATE	"/run/vm-run"
#define P9	"trans=virtio,version=9p2000.L,msize=512000"

static int con = -1;	/* the serial console */

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (con >= 0 && write(con, buf, n) < 0)
		return;
}

static void __attribute__((noreturn)) power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void __attribute__((noreturn)) fail(const char *what)
{
	say("vm-run: init: %s: %s", what, strerror(errno));
	power_off();
}

static void must_mount(const char *src, const char *dst, const char *type,
		       unsigned long flags, const char *data)
{
	if (mount(src, dst, type, flags, data))
		fail(dst);
}

/* Mounts a command can do without (cgroup2 on a kernel without it). */
static void try_mount(const char *src, const char *dst, const char *type,
		      const char *data)
{
	mount(src, dst, type, 0, data);
}

/* The contents of a file of the state share, NUL-terminated; NULL if none. */
static char *slurp(const char *path, size_t *len)
{
	size_t size = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + size, cap - size - 1)) > 0) {
		size += n;
		if (size + 1 == cap) {
			char *more = realloc(buf, cap *= 2);

			if (!more)
				break;
			buf = more;
		}
	}
	close(fd);
	buf[size] = 0;
	if (len)
		*len = size;
	return buf;
}

/* Split NUL-separated strings into a NULL-terminated vector. */
static char **split(char *buf, size_t len)
{
	size_t i, n = 0, k = 0;
	char **v;

	for (i = 0; i < len; i++)
		n += !buf[i];
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < len && k < n; i += strlen(buf + i) + 1)
		v[k++] = buf + i;
	return v;
}

/* The kernel command line's value of KEY ("vmrun_modules=..."), or NULL. */
static char *cmdline_value(const char *key)
{
	static char *line;
	size_t klen = strlen(key);
	char *p;

	if (!line)
		line = slurp(ROOT "/proc/cmdline", NULL);
	for (p = line; p && *p; ) {
		char *end = p + strcspn(p, " \n");

		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t vlen = end - p - klen - 1;
			char *v = malloc(vlen + 1);

			if (v) {
				memcpy(v, p + klen + 1, vlen);
				v[vlen] = 0;
			}
			return v;
		}
		p = end + strspn(end, " \n");
	}
	return NULL;
}

static void mkdirs(const char *path)
{
	char buf[4096];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

/*
 * A kernel that has 9p and overlayfs as modules (a distribution's, the
 * "debian" flavour) comes with them in a second archive that vm-run
 * appends to the initramfs: /modules/order names them in load order,
 * dependencies first (scripts/build-kernel).  Nothing to do for the
 * kernels built here, which have them built in.
 */
static void load_modules(void)
{
	char path[256], *order, *name, *save;
	int fd;

	order = slurp("/modules/order", NULL);
	if (!order)
		return;
	for (name = strtok_r(order, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		snprintf(path, sizeof(path), "/modules/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST))
			fail(path);
		close(fd);
	}
	free(order);
}

/*
 * The guest's TCG CPU has no RDRAND and nothing else seeds the CRNG early,
 * so the first read of /dev/urandom runs the kernel's jitter loop
 * (try_to_generate_entropy()), whose on-stack timer races with the timer
 * softirq: KCSAN reports it under a new title for each frame it meets.
 * vm-run writes 64 bytes of the host's /dev/urandom to the share; they
 * are credited in full, as a seed file would be by a distribution's init,
 * and the CRNG is ready before the command starts.
 */
static void seed_crng(void)
{
	struct {
		struct rand_pool_info info;
		unsigned char bytes[64];
	} seed;
	size_t len;
	char *bytes = slurp(STATE "/seed", &len);
	int fd;

	if (!bytes || len != sizeof(seed.bytes)) {
		errno = bytes ? EINVAL : errno;
		fail(STATE "/seed");
	}
	memcpy(seed.bytes, bytes, len);
	free(bytes);
	seed.info.entropy_count = len * 8;
	seed.info.buf_size = len;
	fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, RNDADDENTROPY, &seed))
		fail("RNDADDENTROPY");
	close(fd);
}

/*
 * The host folders listed in the state share's file NAME ("ro" or "rw"),
 * one host path a line, shared with tags NAME0, NAME1, ..., mounted at
 * their host paths.
 */
static void mount_shares(const char *name, unsigned long flags, const char *data)
{
	char path[4096], tag[16], *list, *line;
	int i = 0;

	snprintf(path, sizeof(path), ROOT STATE "/%s", name);
	list = slurp(path, NULL);
	for (line = list ? strtok(list, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		snprintf(path, sizeof(path), ROOT "%s", line);
		snprintf(tag, sizeof(tag), "%s%d", name, i++);
		mkdirs(path);
		must_mount(tag, path, "9p", flags, data);
	}
	free(list);
}

static void build_root(void)
{
	char path[4096], *mods;

	/* cache=loose: the host root does not change during a run. */
	must_mount("hostroot", "/lower", "9p", MS_RDONLY, "cache=loose," P9);
	must_mount("upper", "/upper", "tmpfs", 0, "mode=0755");
	mkdir("/upper/data", 0755);
	mkdir("/upper/work", 0755);
	must_mount("root", ROOT, "overlay", 0,
		   "lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work");

	must_mount("/dev", ROOT "/dev", NULL, MS_MOVE, NULL);
	must_mount("proc", ROOT "/proc", "proc", 0, NULL);
	must_mount("sys", ROOT "/sys", "sysfs", 0, NULL);
	mkdir(ROOT "/dev/pts", 0755);
	mkdir(ROOT "/dev/shm", 0755);
	try_mount("devpts", ROOT "/dev/pts", "devpts", "mode=0620,ptmxmode=0666");
	try_mount("shm", ROOT "/dev/shm", "tmpfs", "mode=1777");
	symlink("/proc/self/fd", ROOT "/dev/fd");
	symlink("/proc/self/fd/0", ROOT "/dev/stdin");
	symlink("/proc/self/fd/1", ROOT "/dev/stdout");
	symlink("/proc/self/fd/2", ROOT "/dev/stderr");
	must_mount("tmp", ROOT "/tmp", "tmpfs", 0, "mode=1777");
	must_mount("run", ROOT "/run", "tmpfs", 0, "mode=0755");
	try_mount("tracefs", ROOT "/sys/kernel/tracing", "tracefs", NULL);
	try_mount("debugfs", ROOT "/sys/kernel/debug", "debugfs", NULL);
	try_mount("cgroup2", ROOT "/sys/fs/cgroup", "cgroup2", NULL);

	mkdir(ROOT STATE, 0755);
	must_mount("vmrun", ROOT STATE, "9p", 0, P9);
	/* The host folders of a foreign guest, then the --rw folders. */
	mount_shares("ro", MS_RDONLY, "cache=loose," P9);
	mount_shares("rw", 0, P9);
	mods = cmdline_value("vmrun_modules");
	if (mods && *mods) {
		snprintf(path, sizeof(path), ROOT "%s", mods);
		mkdirs(ROOT "/lib/modules");
		must_mount(path, ROOT "/lib/modules", NULL, MS_BIND, NULL);
	}
}

static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

/*
 * The virtio port vm-run feeds its stdin into ("vmrun.stdin"), once the
 * driver has named it (asynchronously: retry for 5 s); -1 if it does not
 * appear.  One byte written to it tells vm-run's feeder that this guest
 * reads now: a KVM boot that vm-run abandons for TCG never sends it, so
 * the feeder keeps the data for the next one.  A read returns 0 once
 * vm-run's stdin has ended.
 */
static int open_stdin_port(void)
{
	char path[300], *name;
	struct dirent *d;
	int fd = -1, try;
	DIR *dir;

	for (try = 0; try < 500 && fd < 0; try++) {
		if (try)
			usleep(10000);
		dir = opendir("/sys/class/virtio-ports");
		while (dir && fd < 0 && (d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path),
				 "/sys/class/virtio-ports/%s/name", d->d_name);
			name = slurp(path, NULL);
			if (name && !strncmp(name, "vmrun.stdin", 11)) {
				snprintf(path, sizeof(path), "/dev/%s", d->d_name);
				fd = open(path, O_RDWR | O_NOCTTY);
			}
			free(name);
		}
		if (dir)
			closedir(dir);
	}
	if (fd >= 0 && write(fd, "r", 1) != 1) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The child: the command, on the console, in its folder, with its environment. */
static void __attribute__((noreturn)) run_command(int shell)
{
	size_t alen = 0, elen = 0;
	char *args = slurp(STATE "/argv", &alen);
	char *envs = slurp(STATE "/env", &elen);
	char *cwd = slurp(STATE "/cwd", NULL);
	char **argv = args ? split(args, alen) : NULL;
	char **envp = envs ? split(envs, elen) : NULL;
	struct termios t;
	int out, in;

	if (!argv || !argv[0] || !envp)
		_exit(125);
	setsid();
	/* The console is a controlling terminal for the shell alone. */
	out = open("/dev/hvc0", O_RDWR | (shell ? 0 : O_NOCTTY));
	if (out < 0)
		_exit(125);
	if (shell) {
		struct winsize ws = { 0 };
		char *size = slurp(STATE "/winsize", NULL);

		/* The console is the shell's terminal: job control, ^C. */
		ioctl(out, TIOCSCTTY, 0);
		if (size && sscanf(size, "%hu %hu", &ws.ws_row, &ws.ws_col) == 2)
			ioctl(out, TIOCSWINSZ, &ws);
		in = out;
	} else {
		/* Byte for byte: no \r added to the command's output. */
		if (!tcgetattr(out, &t)) {
			cfmakeraw(&t);
			tcsetattr(out, TCSANOW, &t);
		}
		if (access(STATE "/stdin", F_OK))
			in = open("/dev/null", O_RDONLY);
		else
			in = open_stdin_port();
		if (in < 0) {
			dprintf(out, "vm-run: no stdin port in the guest\n");
			_exit(125);
		}
	}
	dup2(in, 0);
	dup2(out, 1);
	dup2(out, 2);
	if (in > 2)
		close(in);
	if (out > 2)
		close(out);
	if (cwd && chdir(cwd)) {
		dprintf(2, "vm-run: cannot cd to %s: %s\n", cwd, strerror(errno));
		_exit(125);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	environ = envp;
	execvp(argv[0], argv);
	dprintf(2, "vm-run: %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static void write_file(const char *path, const char *s, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return;
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			break;
		s += n;
		len -= n;
	}
	close(fd);
}

/* The kernel log, as dmesg prints it (no "<level>" prefixes), to the share. */
static void save_dmesg(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf, *out, *p;
	int n, o = 0;

	if (size <= 0)
		size = 1 << 20;
	buf = malloc(size);
	out = malloc(size);
	if (!buf || !out)
		return;
	n = klogctl(3, buf, size);		/* SYSLOG_ACTION_READ_ALL */
	for (p = buf; n > 0 && p < buf + n; ) {
		char *nl = memchr(p, '\n', buf + n - p);
		char *end = nl ? nl + 1 : buf + n;

		if (*p == '<') {
			char *gt = memchr(p, '>', end - p);

			if (gt)
				p = gt + 1;
		}
		memcpy(out + o, p, end - p);
		o += end - p;
		p = end;
	}
	write_file(STATE "/dmesg", out, o);
}

/*
 * A debug kernel with kmemleak (scanning off, see kernel-config/
 * debug.config) is asked for leaks now; they reach the serial console,
 * where run-suite reads splats.  Twice: kmemleak reports an object only
 * when a scan finds it unreferenced and unchanged since the scan before.
 */
static void kmemleak_scan(void)
{
	const char *path = "/sys/kernel/debug/kmemleak";
	char *leaks;
	int fd, i;

	for (i = 0; i < 2; i++) {
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return;
		if (write(fd, "scan", 4) < 0)
			i = 2;
		close(fd);
	}
	leaks = slurp(path, NULL);
	if (leaks && con >= 0 && write(con, leaks, strlen(leaks)) < 0)
		return;
	say("vm-run: kmemleak scanned");
}

int main(void)
{
	int shell, status = 0, rc;
	char buf[16];
	pid_t pid, w;

	mount("dev", "/dev", "devtmpfs", 0, NULL);
	con = open(SERIAL, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	say("vm-run: init");
	load_modules();
	build_root();
	sethostname("vm", 2);
	loopback_up();

	/* switch_root: the overlay becomes /, the initramfs stays behind. */
	if (chdir(ROOT) || mount(ROOT, "/", NULL, MS_MOVE, NULL) || chroot(".") ||
	    chdir("/"))
		fail("switch to the new root");
	seed_crng();

	shell = access(STATE "/shell", F_OK) == 0;
	say("vm-run: exec");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0)
		run_command(shell);
	/* PID 1 reaps every orphan until the command itself ends. */
	while ((w = wait(&status)) != pid)
		if (w < 0 && errno == ECHILD)
			break;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	snprintf(buf, sizeof(buf), "%d\n", rc);
	write_file(STATE "/rc", buf, strlen(buf));
	say("vm-run: exit %d", rc);
	kmemleak_scan();
	save_dmesg();
	power_off();
}

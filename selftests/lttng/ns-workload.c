// SPDX-License-Identifier: GPL-2.0
/*
 * ns-workload: tasks in nested pid namespaces and in one namespace of
 * every other type, for the lttng-namespaces test.
 *
 *   O   the workload, in the caller's namespaces (level 0)
 *   T1  O's child after unshare(CLONE_NEWPID): init of a level-1 pid ns
 *   T2  T1's child the same way: init of a level-2 pid ns
 *   T3  T2's child after unshare(CLONE_NEWPID | CLONE_NEWTIME): init of a
 *       level-3 pid ns and in a new time ns; it then unshares a user, net,
 *       uts, ipc, mount and cgroup namespace of its own
 *   I   O's child after setns() into T2's pid namespace: injected into it
 *       at level 2, while its parent stays at level 0
 *
 * Every task prints one "task" line: its global tid (the first of NSpid,
 * read from /proc, which is the caller's), its tid in each pid namespace
 * from level 0 down (NSpid) and, for each /proc/self/ns/NAME, its name as
 * ns-name.h gives it: "dev:ino" as stat(2) gives them, and "/id" where the
 * kernel has namespace ids.  Every parent prints a "fork" line: the child,
 * and its own pid_for_children right after the fork.  Once every task has
 * printed, O runs CMD (the test asks LTTng for a statedump there), then
 * lets every task exit: I first, since T2 is the init of I's pid namespace
 * and its exit would SIGKILL I.
 *
 * usage: ns-workload CMD [ARG...]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns-name.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* The namespace links of /proc/self/ns, in the order of a task line. */
static const char *const ns_names[] = {
	"pid", "pid_for_children", "time", "time_for_children", "user",
	"net", "uts", "ipc", "mnt", "cgroup",
};

static int ready[2];	/* each task writes a byte once it has printed */
static int go[2];	/* closed by O: T1, T2 and T3 may exit */
static int go_i[2];	/* closed by O before go: I may exit */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* out: one line to stdout in one write(), so lines of tasks never mix. */
static void out(const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) || write(1, line, n) != n)
		die("write");
}

/* ns_id: the name of /proc/self/ns/NAME (ns-name.h). */
static void ns_id(const char *name, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	if (ns_name(path, buf, size))
		die(path);
}

/* nspid: the NSpid line of /proc/self/status, "a,b,c" (level 0 first). */
static void nspid(char *buf, size_t size)
{
	char line[256], *p;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		die("/proc/self/status");
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		for (p = strtok(line + 6, " \t\n"); p; p = strtok(NULL, " \t\n"))
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
				 buf[0] ? "," : "", p);
	}
	fclose(f);
	if (!buf[0])
		die("NSpid");
}

/* report: this task's "task" line, then a byte on the ready pipe. */
static void report(const char *name, const char *parent)
{
	char line[1536], id[64], pids[128];
	size_t i;

	prctl(PR_SET_NAME, name);
	nspid(pids, sizeof(pids));
	snprintf(line, sizeof(line), "task name=%s parent=%s tid=%.*s nspid=%s",
		 name, parent, (int)strcspn(pids, ","), pids, pids);
	for (i = 0; i < ARRAY_SIZE(ns_names); i++) {
		ns_id(ns_names[i], id, sizeof(id));
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " %s=%s", ns_names[i], id);
	}
	out("%s\n", line);
	if (write(ready[1], "", 1) != 1)
		die("ready");
}

/* wait_on: block until O closes PIPE; every task closes both write ends
 * that it inherited, so that O's close is the last.
 */
static void wait_on(int *pipe)
{
	char c;

	close(go[1]);
	close(go_i[1]);
	while (read(pipe[0], &c, 1) > 0)
		;
}

static void wait_go(void)
{
	wait_on(go);
}

/* spawn: fork a task that runs FN; the parent prints the "fork" line. */
static pid_t spawn(const char *parent, const char *child, void (*fn)(void))
{
	char pfc[64];
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fn();
		exit(0);
	}
	ns_id("pid_for_children", pfc, sizeof(pfc));
	out("fork parent=%s child=%s pid_for_children=%s\n", parent, child, pfc);
	return pid;
}

/* reap: wait for PID; unless it exited with status 0, say how it ended and
 * fail.
 */
static void reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return;
	fprintf(stderr, "ns-workload: task %d %s %d\n", (int)pid,
		WIFSIGNALED(status) ? "killed by signal" : "exited with status",
		WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	exit(1);
}

static void t3(void)
{
	report("T3", "T2");
	wait_go();
}

/* The namespaces T3 unshares for itself once it runs (pid and time come
 * from T2, for children only).
 */
static void t3_unshare(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC |
		    CLONE_NEWNS | CLONE_NEWCGROUP))
		die("unshare T3");
	t3();
}

static void t2(void)
{
	pid_t pid;

	report("T2", "T1");
	if (unshare(CLONE_NEWPID | CLONE_NEWTIME))
		die("unshare T2");
	pid = spawn("T2", "T3", t3_unshare);
	wait_go();
	reap(pid);
}

static void t1(void)
{
	pid_t pid;

	report("T1", "O");
	if (unshare(CLONE_NEWPID))
		die("unshare T1");
	pid = spawn("T1", "T2", t2);
	wait_go();
	reap(pid);
}

static void injected(void)
{
	report("I", "O");
	wait_on(go_i);
}

/* find_tid: the global tid of the task named NAME (its comm), or 0. */
static pid_t find_tid(const char *name)
{
	char path[300], comm[32];
	struct dirent *d;
	pid_t pid = 0;
	DIR *proc;
	FILE *f;

	proc = opendir("/proc");
	if (!proc)
		die("/proc");
	while (!pid && (d = readdir(proc))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strcmp(strtok(comm, "\n"), name))
			pid = atoi(d->d_name);
		fclose(f);
	}
	closedir(proc);
	return pid;
}

int main(int argc, char **argv)
{
	char path[64], c;
	pid_t p1, pi, cmd;
	int own, fd, n;

	if (argc < 2) {
		fprintf(stderr, "usage: ns-workload CMD [ARG...]\n");
		return 1;
	}
	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC) ||
	    pipe2(go_i, O_CLOEXEC))
		die("pipe");
	report("O", "-");
	own = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		die("/proc/self/ns/pid");

	/* T1, T2 and T3: three nested pid namespaces. */
	if (unshare(CLONE_NEWPID))
		die("unshare O");
	p1 = spawn("O", "T1", t1);
	if (setns(own, CLONE_NEWPID))
		die("setns back");
	for (n = 0; n < 4; n++)
		if (read(ready[0], &c, 1) != 1)
			die("ready");

	/* I: injected into T2's pid namespace from level 0. */
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", find_tid("T2"));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWPID))
		die("setns T2");
	pi = spawn("O", "I", injected);
	if (setns(own, CLONE_NEWPID))
		die("setns back");
	if (read(ready[0], &c, 1) != 1)
		die("ready");

	/* Every task is up and has printed: CMD, in O's own namespaces. */
	cmd = fork();
	if (cmd < 0)
		die("fork");
	if (cmd == 0) {
		execvp(argv[1], argv + 1);
		die(argv[1]);
	}
	reap(cmd);
	close(go_i[1]);
	reap(pi);
	close(go[1]);
	reap(p1);
	return 0;
}

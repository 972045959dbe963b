// SPDX-License-Identifier: GPL-2.0
/*
 * fdk-watchdog: the hang detector of include/map-fd-kinds.h tells a child
 * that is slow from one that is stuck.  The stress and fuzz programs map
 * each kind of fd in a child and call it hung when it stops making
 * progress; a fixed deadline failed them on a slower machine, where setup
 * under KASAN and TCG takes longer than the deadline though nothing hangs.
 *
 * With the stall window shortened to 300 polls: a child blocked in a read
 * for good is found hung, and children that compute, or sleep and wake
 * over and over, for three windows are waited for.  Each poll reads two
 * /proc files; under KASAN and TCG on a loaded host a poll took tens of
 * milliseconds, so 1000 of them outlasted the harness's 30 s timeout.
 */
#define _GNU_SOURCE
#define FDK_STALL_POLLS	300	/* 0.3 s at least: the defaults' 1/33 */
/* Only the watchdog of the header is used here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "map-fd-kinds.h"

#include "kselftest_harness.h"

static volatile struct fdk_report *report(void)
{
	void *p = mmap(NULL, sizeof(struct fdk_report), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How long one stall window takes here: FDK_STALL_POLLS sleeps. */
static double window(void)
{
	double t = now();
	int i;

	for (i = 0; i < FDK_STALL_POLLS; i++)
		usleep(FDK_POLL_US);
	return now() - t;
}

TEST(blocked_child_is_hung)
{
	volatile struct fdk_report *rep = report();
	int fds[2], status;
	char c;
	pid_t pid;

	ASSERT_NE(NULL, rep);
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(fds[1]);
		rep->attempt = 0;
		_exit(read(fds[0], &c, 1) == 1 ? 1 : 2);	/* never returns */
	}
	EXPECT_EQ(0, fdk_wait(pid, rep, &status));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Children that take three stall windows and exit, each in its way. */
FIXTURE(slow_child) {
};

FIXTURE_VARIANT(slow_child) {
	bool sleeps;
};

FIXTURE_VARIANT_ADD(slow_child, computing) {
	.sleeps = false,
};

/*
 * As a task whose reads complete slowly: no CPU time to speak of, and a
 * wake-up far more often than a window ends.
 */
FIXTURE_VARIANT_ADD(slow_child, sleeping_and_waking) {
	.sleeps = true,
};

FIXTURE_SETUP(slow_child)
{
}

FIXTURE_TEARDOWN(slow_child)
{
}

TEST_F(slow_child, is_waited_for)
{
	volatile struct fdk_report *rep = report();
	double end = now() + 3 * window();
	volatile unsigned long n = 0;
	int status;
	pid_t pid;

	ASSERT_NE(NULL, rep);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		while (now() < end) {
			if (variant->sleeps)
				usleep(10000);
			else
				n++;
		}
		_exit(0);
	}
	ASSERT_EQ(1, fdk_wait(pid, rep, &status));
	EXPECT_TRUE(WIFEXITED(status));
}

TEST_HARNESS_MAIN

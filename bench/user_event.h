/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user_events event "NAME __rel_loc char[] msg", for the benchmarks
 * that compare the paths of a message into a trace stream (bench/uevent.c,
 * bench/peers/msgloop.c): the index the kernel gave it, the enable word
 * it keeps up to date, and the message as one writev() of the
 * user_events_data file sends it; and the tracefs writes both make.
 */
#ifndef BENCH_USER_EVENT_H
#define BENCH_USER_EVENT_H

#include <fcntl.h>
#include <linux/user_events.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

/* Write s to the file at path (tracefs): 0, or -1. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

struct bench_user_event {
	uint32_t write_index;
	uint32_t enabled;
	uint32_t rel_loc;	/* size << 16 | offset after this field */
	struct iovec iov[3];
};

/*
 * Register NAME on fd (user_events_data) for the message msg of size
 * bytes, its NUL included (user_events wants its strings with it), and
 * enable it in ftrace: 0, or -1.
 */
static inline int bench_user_event_on(struct bench_user_event *ue, int fd,
				      const char *name, const char *msg,
				      uint32_t size)
{
	char args[128], enable[192];
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_size = sizeof(ue->enabled),
		.enable_addr = (uintptr_t)&ue->enabled,
		.name_args = (uintptr_t)args,
	};

	snprintf(args, sizeof(args), "%s __rel_loc char[] msg", name);
	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0)
		return -1;
	ue->write_index = reg.write_index;
	ue->rel_loc = size << 16;
	ue->iov[0] = (struct iovec){ &ue->write_index, 4 };
	ue->iov[1] = (struct iovec){ &ue->rel_loc, 4 };
	ue->iov[2] = (struct iovec){ (void *)msg, size };
	snprintf(enable, sizeof(enable),
		 "/sys/kernel/tracing/events/user_events/%s/enable", name);
	if (write_file(enable, "1"))
		return -1;
	return ue->enabled ? 0 : -1;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ns-name.h: how the lttng tests name a namespace.  "DEV:INO", st_dev and
 * st_ino of /proc/PID/ns/NAME as stat(2) gives them, then "/ID" where the
 * kernel has namespace ids (6.18 and later): what ioctl(NS_GET_ID) gives,
 * the ns_id that the LTTng events and perf's PERF_RECORD_NAMESPACES carry
 * beside the inode.  pidns-cpu prints namespaces the same way.
 */
#ifndef NS_NAME_H
#define NS_NAME_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* linux/nsfs.h of 6.18 and later; bookworm's headers are older */
#ifndef NS_GET_ID
#define NS_GET_ID _IOR(0xb7, 13, unsigned long long)
#endif

/* ns_name: PATH's name into BUF; 0, or -1 with errno set. */
static inline int ns_name(const char *path, char *buf, size_t size)
{
	unsigned long long id;
	struct stat st;
	int fd, n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	n = snprintf(buf, size, "%llu:%llu", (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino);
	if (n >= 0 && (size_t)n < size) {
		if (!ioctl(fd, NS_GET_ID, &id))
			n += snprintf(buf + n, size - n, "/%llu", id);
		else if (errno != ENOTTY)	/* ENOTTY: a kernel without ids */
			n = -1;
	}
	close(fd);
	if (n >= 0 && (size_t)n >= size)
		errno = ERANGE;
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

#endif /* NS_NAME_H */

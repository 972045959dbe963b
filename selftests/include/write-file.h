/* SPDX-License-Identifier: GPL-2.0 */
/*
 * write_file(): what "echo VALUE > PATH" does, for the programs of
 * selftests/ that set sysctls and tracefs knobs.  One write(2) of VALUE
 * and a newline; 0, or -errno of the open(2) or write(2) that failed
 * (-EIO for a short write).
 */
#ifndef SIDEBAND_WRITE_FILE_H
#define SIDEBAND_WRITE_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static inline int write_file(const char *path, const char *value)
{
	char buf[128];
	int fd, len, ret = 0;
	ssize_t n;

	len = snprintf(buf, sizeof(buf), "%s\n", value);
	if (len < 0 || len >= (int)sizeof(buf))
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n != len)
		ret = n < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

#endif /* SIDEBAND_WRITE_FILE_H */

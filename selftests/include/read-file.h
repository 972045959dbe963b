/* SPDX-License-Identifier: GPL-2.0 */
/*
 * read_file(): what "cat PATH" prints, as a string, for the programs of
 * selftests/ that read sysctls, tracefs files and kmemleak: up to SIZE - 1
 * bytes, without the last newline; 0, or -errno of the open(2) or read(2)
 * that failed.  count_text(): how many times NEEDLE is in TEXT.
 */
#ifndef SIDEBAND_READ_FILE_H
#define SIDEBAND_READ_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static inline int read_file(const char *path, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	buf[got] = '\0';
	if (got && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return 0;
}

static inline int count_text(const char *text, const char *needle)
{
	int n = 0;

	while ((text = strstr(text, needle))) {
		n++;
		text++;
	}
	return n;
}

#endif /* SIDEBAND_READ_FILE_H */

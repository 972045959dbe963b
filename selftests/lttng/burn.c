// SPDX-License-Identifier: GPL-2.0
/*
 * burn: spin until this process has used MS milliseconds of CPU time, for
 * the pidns-cpu test.  Prints its pid namespace first, named as ns-name.h
 * names /proc/self/ns/pid, then the CPU time used.
 *
 * usage: burn MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ns-name.h"

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	volatile unsigned long spin = 0;	/* work the compiler keeps */
	char pidns[64];
	double ms;

	ms = argc == 2 ? atof(argv[1]) : 0;
	if (ms <= 0) {
		fprintf(stderr, "usage: burn MS\n");
		return 1;
	}
	if (ns_name("/proc/self/ns/pid", pidns, sizeof(pidns))) {
		perror("/proc/self/ns/pid");
		return 1;
	}
	printf("pidns %s\n", pidns);
	fflush(stdout);
	while (cpu_ms() < ms)
		for (int i = 0; i < 10000; i++)
			spin++;
	printf("cpu %.3f ms\n", cpu_ms());
	return 0;
}

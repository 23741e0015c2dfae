/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest's C test programs (pmu_open, pmu_edge) share: KTAP test
 * lines and the basics of perf_event_open(). Everything is static inline,
 * so a program includes it whole and uses what it needs.
 */
#ifndef PMU_TEST_H
#define PMU_TEST_H

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static int test_no, failures;

/* One KTAP test line; a failure is counted for the exit status. */
static inline void ktap(int ok, const char *name)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++test_no, name);
	fflush(stdout);
	failures += !ok;
}

/* The number in the file named by fmt and arg; -1 if there is none. */
static inline long read_long(const char *fmt, const char *arg)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), fmt, arg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The perf type of a PMU; -1 if it is not registered. */
static inline int pmu_type(const char *pmu)
{
	return (int)read_long("/sys/bus/event_source/devices/%s/type", pmu);
}

static inline int perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, 0);
}

/* A sampling event of type and config, every 1,000,000 (enabled). */
static inline void attr_init(struct perf_event_attr *a, int type, unsigned long long config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->sample_period = 1000000;
}

/* A software event (config: PERF_COUNT_SW_*), counting. */
static inline void attr_sw(struct perf_event_attr *a, unsigned long long config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = config;
}

#endif

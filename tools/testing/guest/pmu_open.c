// SPDX-License-Identifier: GPL-2.0
/*
 * pmu_open: perf_event_open() requests against a PMU, checked for the exact
 * errno, printed as KTAP test lines. Built static for the guest.
 *
 *   pmu_open errno-table <pmu> [kvm]
 *                                  the vpa_dtl refusal table (kvm: as in a
 *                                  KVM guest, where only dtl_all opens)
 *   pmu_open uncore-table <l3c> <other>
 *                                  the X-Gene uncore contract: counting only,
 *                                  CPU-wide, config/config1 checks, groups
 *                                  (<other>: a second PMU of the device)
 *   pmu_open hold <pmu> <config> <cpu> <seconds>
 *                                  open one sampling event and keep it open
 *   pmu_open hold-count <pmu> <config> <cpu> <seconds>
 *                                  the same with a counting event
 *   pmu_open toggle <pmu> <config> <cpu> <n>
 *                                  PERF_EVENT_IOC_DISABLE/ENABLE n times
 *   pmu_open aux <pmu> <config> <cpu> rw|ro
 *                                  map a 4-page AUX area writable (normal
 *                                  mode) or read-only (snapshot mode);
 *                                  exits 0 if the mapping succeeded
 *   pmu_open read-loop <pmu> <config> <cpu> <n>
 *                                  open a counting event, pin this process
 *                                  to <cpu> and read() it n times; prints
 *                                  "reads=<n> ns_per_read=<t>" (monotonic
 *                                  clock), the cost of a read syscall with
 *                                  the driver's pmu->read inside it
 *   pmu_open cputime <cpu> <command> [args...]
 *                                  run the command pinned to <cpu> and print
 *                                  "cpu_us=<t> status=<s>": its user plus
 *                                  system time and its descendants' (from
 *                                  wait4's rusage, which sums the scheduler's
 *                                  run time rather than sampling ticks)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmu_test.h"

/* As attr_init, disabled. */
static void base_attr(struct perf_event_attr *a, int type, unsigned long long config)
{
	attr_init(a, type, config);
	a->disabled = 1;
}

static int open_event(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return perf_open(a, pid, cpu, -1);
}

/* Opens and expects `want` (0: success). Returns the fd or -1. */
static int expect(struct perf_event_attr *a, pid_t pid, int cpu, int want, const char *name)
{
	char line[200];
	int fd = open_event(a, pid, cpu);
	int got = fd < 0 ? errno : 0;

	snprintf(line, sizeof(line), "%s (want %s, got %s)", name,
		 want ? strerrorname_np(want) : "success",
		 got ? strerrorname_np(got) : "success");
	for (char *p = line; *p; p++)
		if (*p == '#')
			*p = '_';
	ktap(got == want, line);
	if (fd >= 0 && want) {
		close(fd);
		return -1;
	}
	return fd;
}

static int errno_table(const char *pmu, int kvm)
{
	/* Under KVM, which logs no kinds, only dtl_all (0x7) opens. */
	unsigned long long one = kvm ? 0x7 : 0x1;
	struct perf_event_attr a;
	int type = pmu_type(pmu);
	int fd, fd2;

	ktap(type > 0, "PMU type readable from sysfs");
	if (type <= 0)
		return 1;

	base_attr(&a, type, one);
	fd = expect(&a, -1, 0, 0, kvm ? "dtl_all sampling on cpu 0 opens" : "dtl_cede sampling on cpu 0 opens");
	fd2 = expect(&a, -1, 0, EBUSY, "second event on the same CPU");
	if (fd >= 0)
		close(fd);
	fd = expect(&a, -1, 0, 0, "reopens after close");
	if (fd >= 0)
		close(fd);

	for (unsigned long long c = 0; c <= 8; c++) {
		char name[64];
		int kind = c == 1 || c == 2 || c == 4;
		int err = c == 7 || (kind && !kvm) ? 0 : kind ? EOPNOTSUPP : EINVAL;

		base_attr(&a, type, c);
		snprintf(name, sizeof(name), "config 0x%llx", c);
		fd = expect(&a, -1, 0, err, name);
		if (fd >= 0)
			close(fd);
	}
	base_attr(&a, type, 0x101);
	expect(&a, -1, 0, EINVAL, "config 0x101 (bits above 0-7)");

	base_attr(&a, type, one);
	a.sample_period = 0;
	expect(&a, -1, 0, EOPNOTSUPP, "counting event");

	base_attr(&a, type, one);
	a.sample_type = PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	expect(&a, -1, 0, EOPNOTSUPP, "branch stack");

	base_attr(&a, type, one);
	expect(&a, 0, -1, EINVAL, "per-task event, any CPU");

	base_attr(&a, type, one);
	expect(&a, 0, 0, EINVAL, "per-task event on cpu 0");

	base_attr(&a, type, one);
	a.exclude_user = 1;
	expect(&a, -1, 0, EINVAL, "exclude_user");

	base_attr(&a, type, one);
	a.freq = 1;
	a.sample_freq = 100;
	fd = expect(&a, -1, 0, 0, "frequency mode (100 Hz)");
	if (fd >= 0)
		close(fd);

	/* Without privilege: perf core refuses CPU-wide events at paranoid 2;
	 * at -1 the request reaches the driver, which refuses it too. */
	for (int paranoid = 2; paranoid >= -1; paranoid -= 3) {
		pid_t child;
		int status;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");

		if (f) {
			fprintf(f, "%d\n", paranoid);
			fclose(f);
		}
		child = fork();
		if (child == 0) {
			if (setgid(65534) || setuid(65534))
				_exit(2);
			base_attr(&a, type, one);
			fd = open_event(&a, -1, 0);
			_exit(fd < 0 && errno == EACCES ? 0 : 1);
		}
		waitpid(child, &status, 0);
		ktap(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		     paranoid == 2 ? "unprivileged, paranoid 2: EACCES" :
				     "unprivileged, paranoid -1: EACCES from the driver");
	}
	if (fd2 >= 0)
		close(fd2);
	return failures != 0;
}

static void count_attr(struct perf_event_attr *a, int type, unsigned long long config,
		       unsigned long long config1)
{
	base_attr(a, type, config);
	a->sample_period = 0;
	a->config1 = config1;
}

/* Opens a group member (leader fd) and expects `want`. */
static int expect_member(struct perf_event_attr *a, int leader, int cpu, int want,
			 const char *name)
{
	int fd = syscall(SYS_perf_event_open, a, -1, cpu, leader, 0);
	int got = fd < 0 ? errno : 0;
	char line[200];

	snprintf(line, sizeof(line), "%s (want %s, got %s)", name,
		 want ? strerrorname_np(want) : "success",
		 got ? strerrorname_np(got) : "success");
	ktap(got == want, line);
	return fd;
}

static int uncore_table(const char *pmu, const char *other_pmu)
{
	struct perf_event_attr a;
	int type = pmu_type(pmu), other = pmu_type(other_pmu);
	int fd, lead, fds[8], n = 0, counters = 0;
	unsigned long long v = 0;

	ktap(type > 0 && other > 0, "PMU types readable from sysfs");
	if (type <= 0 || other <= 0)
		return 1;

	count_attr(&a, type, 0x3, 0);
	fd = expect(&a, -1, 0, 0, "counting event on cpu 0 opens");
	if (fd >= 0) {
		ktap(read(fd, &v, sizeof(v)) == sizeof(v), "counting event reads");
		close(fd);
	}
	count_attr(&a, type, 0x3, 0);
	a.sample_period = 1000;
	expect(&a, -1, 0, EOPNOTSUPP, "sampling event");
	count_attr(&a, type, 0x3, 0);
	expect(&a, 0, -1, EINVAL, "per-task event, any CPU");
	count_attr(&a, type, 0x3, 0);
	expect(&a, 0, 0, EINVAL, "per-task event on cpu 0");
	count_attr(&a, type, 0x3, 0);
	a.exclude_kernel = 1;
	expect(&a, -1, 0, EINVAL, "exclude_kernel");
	count_attr(&a, type, 0x103, 0);
	expect(&a, -1, 0, EINVAL, "config bits above the event field");
	count_attr(&a, type, 0x3, 0x400);
	expect(&a, -1, 0, EINVAL, "config1 bit outside the agent field");
	count_attr(&a, type, 0x3, 0xfffffffffffffffeULL);
	fd = expect(&a, -1, 0, 0, "config1 all-but-agent-0 idiom");
	if (fd >= 0)
		close(fd);

	/* Groups: as many members as counters, then one too many. */
	count_attr(&a, type, 0x3, 0);
	lead = expect(&a, -1, 0, 0, "group leader");
	if (lead < 0)
		return 1;
	fds[n++] = lead;
	counters = 1;
	for (;;) {
		count_attr(&a, type, 0x2, 0);
		fd = syscall(SYS_perf_event_open, &a, -1, 0, lead, 0);
		if (fd < 0)
			break;
		fds[n++] = fd;
		counters++;
		if (n == 8)
			break;
	}
	{
		char line[120];

		snprintf(line, sizeof(line),
			 "group stops at the counter count (%d events; refusal %s)", counters,
			 n < 8 ? strerrorname_np(errno) : "none");
		ktap(n < 8 && errno == EINVAL && (counters == 1 || counters == 4), line);
	}
	while (n > 1)
		close(fds[--n]);
	count_attr(&a, type, 0x3, 0x1);
	fd = expect_member(&a, lead, 0, EINVAL, "member with another agent mask");
	if (fd >= 0)
		close(fd);
	count_attr(&a, other, 0x1, 0);
	fd = expect_member(&a, lead, 0, EINVAL, "member on another hardware PMU");
	if (fd >= 0)
		close(fd);
	attr_sw(&a, PERF_COUNT_SW_CPU_CLOCK);
	fd = expect_member(&a, lead, 0, 0, "software member");
	if (fd >= 0)
		close(fd);
	close(lead);
	return failures != 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	int fd;

	if (argc >= 3 && !strcmp(argv[1], "errno-table"))
		return errno_table(argv[2], argc >= 4 && !strcmp(argv[3], "kvm"));
	if (argc >= 4 && !strcmp(argv[1], "uncore-table"))
		return uncore_table(argv[2], argv[3]);
	if (argc >= 6 && !strcmp(argv[1], "aux")) {
		long page = sysconf(_SC_PAGESIZE);
		struct perf_event_mmap_page *up;
		void *aux;

		base_attr(&a, pmu_type(argv[2]), strtoull(argv[3], NULL, 0));
		fd = open_event(&a, -1, atoi(argv[4]));
		if (fd < 0) {
			perror("perf_event_open");
			return 2;
		}
		up = mmap(NULL, 9 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (up == MAP_FAILED) {
			perror("mmap ring");
			return 2;
		}
		up->aux_offset = 9 * page;
		up->aux_size = 4 * page;
		aux = mmap(NULL, 4 * page, strcmp(argv[5], "ro") ? PROT_READ | PROT_WRITE : PROT_READ,
			   MAP_SHARED, fd, 9 * page);
		if (aux == MAP_FAILED) {
			printf("AUX mmap (%s) failed: %s\n", argv[5], strerror(errno));
			return 1;
		}
		printf("AUX mmap (%s) succeeded\n", argv[5]);
		return 0;
	}
	if (argc >= 6 && (!strcmp(argv[1], "hold") || !strcmp(argv[1], "hold-count") ||
			  !strcmp(argv[1], "toggle"))) {
		base_attr(&a, pmu_type(argv[2]), strtoull(argv[3], NULL, 0));
		a.disabled = 0;
		if (!strcmp(argv[1], "hold-count"))
			a.sample_period = 0;
		fd = open_event(&a, -1, atoi(argv[4]));
		if (fd < 0) {
			perror("perf_event_open");
			return 1;
		}
		if (strcmp(argv[1], "toggle")) {
			printf("holding\n");
			fflush(stdout);
			sleep(atoi(argv[5]));
			return 0;
		}
		for (int i = 0; i < atoi(argv[5]); i++) {
			if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) ||
			    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
				perror("ioctl");
				return 1;
			}
			usleep(2000);
		}
		close(fd);
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "read-loop")) {
		long n = atol(argv[5]);
		struct timespec t0, t1;
		unsigned long long v;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[4]), &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("sched_setaffinity");
			return 1;
		}
		base_attr(&a, pmu_type(argv[2]), strtoull(argv[3], NULL, 0));
		a.disabled = 0;
		a.sample_period = 0;
		fd = open_event(&a, -1, atoi(argv[4]));
		if (fd < 0) {
			perror("perf_event_open");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < n; i++) {
			if (read(fd, &v, sizeof(v)) != sizeof(v)) {
				perror("read");
				return 1;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("reads=%ld ns_per_read=%lld\n", n,
		       ((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec) / (n ? n : 1));
		close(fd);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "cputime")) {
		struct rusage ru;
		cpu_set_t set;
		int status;
		pid_t pid;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			if (sched_setaffinity(0, sizeof(set), &set)) {
				perror("sched_setaffinity");
				_exit(127);
			}
			execvp(argv[3], argv + 3);
			perror("execvp");
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) != pid) {
			perror("wait4");
			return 1;
		}
		printf("cpu_us=%lld status=%d\n",
		       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL + ru.ru_utime.tv_usec +
			       ru.ru_stime.tv_usec,
		       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top of pmu_open.c\n");
	return 2;
}

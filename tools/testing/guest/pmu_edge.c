// SPDX-License-Identifier: GPL-2.0
/*
 * pmu_edge: legal but unusual perf_event_open sequences against a PMU, each
 * printed as KTAP test lines. Built static for the guest.
 *
 *   pmu_edge aux-orphan <pmu> <module> <config> <cpu>
 *       An AUX area that outlives its event: event A maps its ring and AUX
 *       area; a software event B redirects its output into A's ring
 *       (PERF_EVENT_IOC_SET_OUTPUT) and maps the same ring and AUX area;
 *       A is unmapped and closed. Removing <module> must then fail (the
 *       AUX area still needs the module's free_aux), and succeed once B's
 *       mappings are gone.
 *   pmu_edge aux-foreign <pmu> <config> <other> <cpu>
 *       Two AUX PMUs sharing one ring: event A of <pmu> maps its ring and
 *       AUX area; a software event S redirects into A's ring, and event B of
 *       the AUX PMU <other> (rpmu_aux_test: each 1 ms it opens an AUX
 *       transaction, and counts the ones it is refused) redirects into S.
 *       Perf checks SET_OUTPUT between AUX PMUs only pairwise, so B's
 *       transactions get A's AUX area and A's private data. They must be
 *       refused (B counts them) and nothing written: taken as B's own data,
 *       A's would be read as another type.
 *   pmu_edge sw-sibling <pmu> <module> <config> <period> <cpu>
 *       A software event in a group led by an event of <pmu> lives in the
 *       PMU's context; the leader is closed first. Removing <module> must
 *       fail while the software event is open (perf still schedules it
 *       through the PMU: Linux 7.3.4 without patches/0003 lets the module go
 *       and then uses its freed struct pmu), and succeed once it is closed.
 *   pmu_edge unbind-sibling <pmu> <config> <period> <cpu> <driver> <device>
 *       As sw-sibling, but once the leader is closed, <device> is unbound
 *       from the platform <driver> through sysfs, then the software event is
 *       disabled, enabled, read and closed. Linux 7.3.4's
 *       perf_pmu_unregister() detaches only the PMU's own events: if the
 *       unbind goes through, the software event still points at the freed
 *       PMU (KASAN: slab-use-after-free in __perf_event_disable). A driver
 *       that cannot be unbound (suppress_bind_attrs) has no unbind file:
 *       the write must fail and the PMU stay. Then the same with the leader
 *       still open.
 *   pmu_edge ghost-leader <cpu>
 *       Perf core, no PMU of ours involved: a software event on <cpu>;
 *       <cpu> goes offline (perf removes the event from its context) and
 *       online again; a second event asks to join the first one's group.
 *       With patches/0004 the open fails with ENODEV. Linux 7.3.4 without
 *       it checks only that the leader is not EXIT or DEAD and lets it
 *       join; then the leader is closed (its group detach is skipped, as it
 *       was detached at offline), the sibling keeps a pointer to the freed
 *       leader, and its own close uses it (KASAN: slab-use-after-free).
 *   pmu_edge refuse-loop <pmu> <n>
 *       n refused perf_event_open calls of several kinds; the kernel log
 *       (counted by /dev/kmsg sequence numbers) must gain fewer than 10
 *       records.
 *   pmu_edge period <pmu> <config> <cpu>
 *       PERF_EVENT_IOC_PERIOD on a running event takes effect: at a 100 ms
 *       period the DTL overruns (stats/lost_overrun grows), after the
 *       ioctl to 1 ms it does not. Needs dtl_sim writing 3 entries/ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu_test.h"

/* The sequence number of the newest kernel log record. */
static long long kmsg_last_seq(void)
{
	char buf[8192];
	long long last = -1, seq;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -1;
	for (;;) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overwritten while reading: skip ahead */
		if (n <= 0)
			break;
		buf[n] = 0;
		if (sscanf(buf, "%*d,%lld,", &seq) == 1)
			last = seq;
	}
	close(fd);
	return last;
}

/* Brackets a step that provokes a known upstream kernel report (see KNOWN in
 * tools/testing/report.py). */
static void kmsg_mark(const char *what)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, what, strlen(what)) < 0)
			perror("kmsg");
		close(fd);
	}
}

static int try_rmmod(const char *module)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rmmod %s 2>/dev/null", module);
	return system(cmd) == 0;
}

/*
 * Opens event A of <pmu> on <cpu> (disabled if asked) and maps its 9-page
 * ring and 4-page AUX area, printing a test line for each step; fills *up
 * and *aa. Returns A's descriptor, or -1 if a step failed.
 */
static int open_with_aux(const char *pmu, unsigned long long config, int cpu, int disabled,
			 struct perf_event_mmap_page **up, void **aa)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t ring = 9 * page, auxsz = 4 * page;
	struct perf_event_attr a;
	void *ra;
	int fa;

	attr_init(&a, pmu_type(pmu), config);
	a.disabled = disabled;
	fa = perf_open(&a, -1, cpu, -1);
	ktap(fa >= 0, "event A opens");
	if (fa < 0)
		return -1;
	ra = mmap(NULL, ring, PROT_READ | PROT_WRITE, MAP_SHARED, fa, 0);
	ktap(ra != MAP_FAILED, "A: ring mapped");
	if (ra == MAP_FAILED)
		return -1;
	*up = ra;
	(*up)->aux_offset = ring;
	(*up)->aux_size = auxsz;
	*aa = mmap(NULL, auxsz, PROT_READ | PROT_WRITE, MAP_SHARED, fa, ring);
	ktap(*aa != MAP_FAILED, "A: AUX area mapped");
	return *aa == MAP_FAILED ? -1 : fa;
}

static int aux_orphan(const char *pmu, const char *module, unsigned long long config, int cpu)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t ring = 9 * page, auxsz = 4 * page;
	struct perf_event_attr b;
	struct perf_event_mmap_page *up;
	void *ra, *aa, *rb, *ab;
	int fa, fb;

	fa = open_with_aux(pmu, config, cpu, 0, &up, &aa);
	if (fa < 0)
		return 1;
	ra = up;

	attr_sw(&b, PERF_COUNT_SW_DUMMY);
	fb = perf_open(&b, -1, cpu, -1);
	ktap(fb >= 0 && ioctl(fb, PERF_EVENT_IOC_SET_OUTPUT, fa) == 0,
	     "software event B redirects its output into A's ring");
	/* An alias of the ring itself is refused (-EBUSY since Linux 6.x);
	 * one of the AUX area is accepted, with a kernel warning in 7.3.4. */
	rb = mmap(NULL, ring, PROT_READ | PROT_WRITE, MAP_SHARED, fb, 0);
	ktap(rb == MAP_FAILED && errno == EBUSY, "B: alias of A's ring refused (EBUSY)");
	kmsg_mark("rpmu: known upstream report begin: perf_mmap_aux alias\n");
	ab = mmap(NULL, auxsz, PROT_READ | PROT_WRITE, MAP_SHARED, fb, ring);
	kmsg_mark("rpmu: known upstream report end\n");
	ktap(ab != MAP_FAILED, "B maps A's AUX area");
	if (ab == MAP_FAILED)
		return 1;

	munmap(aa, auxsz);
	munmap(ra, ring);
	close(fa);
	ktap(!try_rmmod(module), "rmmod refused while the AUX area outlives its event");

	munmap(ab, auxsz);
	close(fb);
	/* The final __fput that drops the module reference runs on return to
	 * user space, which system() has done by the time rmmod runs. */
	ktap(try_rmmod(module), "rmmod succeeds once the AUX area is freed");
	return failures != 0;
}

static int aux_foreign(const char *pmu, unsigned long long config, const char *other, int cpu)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t ring = 9 * page, auxsz = 4 * page;
	struct perf_event_attr b, sw;
	struct perf_event_mmap_page *up;
	unsigned long long refused = 0, head0, head1;
	char line[160];
	void *aa;
	int fa, fs, fb;

	fa = open_with_aux(pmu, config, cpu, 1, &up, &aa);
	if (fa < 0)
		return 1;

	attr_sw(&sw, PERF_COUNT_SW_DUMMY);
	fs = perf_open(&sw, -1, cpu, -1);
	ktap(fs >= 0 && ioctl(fs, PERF_EVENT_IOC_SET_OUTPUT, fa) == 0,
	     "software event S redirects into A's ring");
	attr_init(&b, pmu_type(other), 0x77);
	b.sample_period = 0;
	b.disabled = 1;
	fb = perf_open(&b, -1, cpu, -1);
	ktap(fb >= 0, "event B of the second AUX PMU opens");
	if (fb < 0)
		return 1;
	ktap(ioctl(fb, PERF_EVENT_IOC_SET_OUTPUT, fs) == 0,
	     "B redirects into S (perf checks AUX PMUs only pairwise)");
	head0 = __atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE);
	ioctl(fb, PERF_EVENT_IOC_ENABLE, 0);
	usleep(100000);
	ioctl(fb, PERF_EVENT_IOC_DISABLE, 0);
	head1 = __atomic_load_n(&up->aux_head, __ATOMIC_ACQUIRE);
	if (read(fb, &refused, sizeof(refused)) != sizeof(refused))
		refused = 0;
	snprintf(line, sizeof(line), "B's transactions on A's AUX area refused (%llu in 100 ms)", refused);
	ktap(refused > 0, line);
	snprintf(line, sizeof(line), "nothing written into A's AUX area (aux_head %llu -> %llu)", head0, head1);
	ktap(head1 == head0, line);
	close(fb);
	close(fs);
	munmap(aa, auxsz);
	munmap(up, ring);
	close(fa);
	return failures != 0;
}

/*
 * Opens a leader of <pmu> on <cpu> and a cpu-clock event into its group,
 * printing a test line for each; fills *fa and *fb. Returns 0, or -1 if one
 * failed.
 */
static int open_sw_group(const char *pmu, unsigned long long config, unsigned long long period,
			 int cpu, int *fa, int *fb)
{
	struct perf_event_attr a, b;

	attr_init(&a, pmu_type(pmu), config);
	a.sample_period = period;
	*fa = perf_open(&a, -1, cpu, -1);
	ktap(*fa >= 0, "leader opens on the PMU");
	if (*fa < 0)
		return -1;
	attr_sw(&b, PERF_COUNT_SW_CPU_CLOCK);
	*fb = perf_open(&b, -1, cpu, *fa);
	ktap(*fb >= 0, "software event joins the leader's group");
	if (*fb < 0)
		return -1;
	usleep(50000);
	return 0;
}

static int sw_sibling(const char *pmu, const char *module, unsigned long long config,
		      unsigned long long period, int cpu)
{
	unsigned long long v[1];
	int fa, fb;

	if (open_sw_group(pmu, config, period, cpu, &fa, &fb))
		return 1;
	close(fa);
	ktap(!try_rmmod(module), "rmmod refused while the software sibling is open");
	/* Schedule it out and in again through the PMU's context. */
	ioctl(fb, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fb, PERF_EVENT_IOC_ENABLE, 0);
	usleep(50000);
	ktap(read(fb, v, sizeof(v)) == sizeof(v), "the software sibling still reads");
	close(fb);
	ktap(try_rmmod(module), "rmmod succeeds once it is closed");
	return failures != 0;
}

/* Writes <device> to /sys/bus/platform/drivers/<driver>/<op>; 0 or errno. */
static int bind_op(const char *driver, const char *device, const char *op)
{
	char path[256];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/bus/platform/drivers/%s/%s", driver, op);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, device, strlen(device)) < 0)
		err = errno;
	close(fd);
	return err;
}

static int unbind_sibling(const char *pmu, unsigned long long config, unsigned long long period,
			  int cpu, const char *driver, const char *device)
{
	unsigned long long v[1];
	char line[200];
	int fa, fb, err, type = pmu_type(pmu), round;

	for (round = 0; round < 2; round++) {
		const char *when = round ? "leader open" : "leader closed";

		if (open_sw_group(pmu, config, period, cpu, &fa, &fb))
			return 1;
		if (!round)
			close(fa);
		err = bind_op(driver, device, "unbind");
		snprintf(line, sizeof(line), "unbind %s (%s) refused: %s", device, when,
			 err ? strerror(err) : "it went through");
		ktap(err != 0 && pmu_type(pmu) == type, line);
		ioctl(fb, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fb, PERF_EVENT_IOC_ENABLE, 0);
		usleep(50000);
		snprintf(line, sizeof(line), "the software sibling still reads (%s)", when);
		ktap(read(fb, v, sizeof(v)) == sizeof(v), line);
		close(fb);
		if (round)
			close(fa);
		if (!err)
			bind_op(driver, device, "bind");
	}
	return failures != 0;
}

static int set_online(int cpu, int on)
{
	char path[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f)
		return 0;
	ok = fprintf(f, "%d\n", on) > 0;
	return fclose(f) == 0 && ok;
}

static int ghost_leader(int cpu)
{
	struct perf_event_attr a;
	unsigned long long v[1];
	int fl, fs;

	attr_sw(&a, PERF_COUNT_SW_CPU_CLOCK);
	fl = perf_open(&a, -1, cpu, -1);
	ktap(fl >= 0, "software leader opens");
	ktap(set_online(cpu, 0) && set_online(cpu, 1), "its CPU goes offline and online");
	fs = perf_open(&a, -1, cpu, fl);
	ktap(fs < 0 && errno == ENODEV, "a sibling cannot join a leader that hotplug removed (ENODEV)");
	if (fs < 0)
		return failures != 0;
	close(fl);
	usleep(200000);
	read(fs, v, sizeof(v));
	close(fs);
	ktap(1, "sibling closed after its leader (the kernel log tells the rest)");
	return failures != 0;
}

static int refuse_loop(const char *pmu, long n)
{
	int type = pmu_type(pmu), held, fd;
	long long s0, s1;
	struct perf_event_attr a;
	long refused = 0;
	char line[160];

	/* Hold one event on CPU 0 so that a second one is refused (EBUSY). */
	attr_init(&a, type, 0x1);
	held = perf_open(&a, -1, 0, -1);
	s0 = kmsg_last_seq();
	for (long i = 0; i < n; i++) {
		switch (i % 5) {
		case 0: attr_init(&a, type, 0x3); break;			/* EINVAL */
		case 1: attr_init(&a, type, 0x1); a.sample_period = 0; break; /* EOPNOTSUPP */
		case 2: attr_init(&a, type, 0x1); a.sample_type = PERF_SAMPLE_BRANCH_STACK; break;
		case 3: attr_init(&a, type, 0x1); a.exclude_kernel = 1; break; /* core: EINVAL */
		default: attr_init(&a, type, 0x1); break;			/* EBUSY */
		}
		fd = perf_open(&a, -1, 0, -1);
		if (fd >= 0)
			close(fd);
		else
			refused++;
	}
	s1 = kmsg_last_seq();
	if (held >= 0)
		close(held);
	snprintf(line, sizeof(line), "%ld of %ld opens refused; kernel log records added: %lld (< 10)",
		 refused, n, s1 - s0);
	ktap(held >= 0 && refused == n && s0 >= 0 && s1 - s0 < 10, line);
	return failures != 0;
}

static long overruns(const char *pmu)
{
	return read_long("/sys/bus/event_source/devices/%s/stats/lost_overrun", pmu);
}

static int period(const char *pmu, unsigned long long config, int cpu)
{
	struct perf_event_attr a;
	unsigned long long p = 1000000;
	long o0, o1, o2, o3;
	char line[160];
	int fd;

	attr_init(&a, pmu_type(pmu), config);
	a.sample_period = 100000000; /* 100 ms: ~300 entries a poll, > 85 */
	fd = perf_open(&a, -1, cpu, -1);
	ktap(fd >= 0, "event opens at a 100 ms period");
	if (fd < 0)
		return 1;
	o0 = overruns(pmu);
	usleep(600000);
	o1 = overruns(pmu);
	snprintf(line, sizeof(line), "100 ms period overruns the ring (lost %ld)", o1 - o0);
	ktap(o1 > o0, line);
	ktap(ioctl(fd, PERF_EVENT_IOC_PERIOD, &p) == 0, "PERF_EVENT_IOC_PERIOD to 1 ms accepted");
	usleep(200000);
	o2 = overruns(pmu);
	usleep(600000);
	o3 = overruns(pmu);
	snprintf(line, sizeof(line), "after the ioctl the 1 ms period keeps up (lost %ld)", o3 - o2);
	ktap(o3 == o2, line);
	close(fd);
	return failures != 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[1], "aux-orphan"))
		return aux_orphan(argv[2], argv[3], strtoull(argv[4], NULL, 0), atoi(argv[5]));
	if (argc >= 7 && !strcmp(argv[1], "sw-sibling"))
		return sw_sibling(argv[2], argv[3], strtoull(argv[4], NULL, 0), strtoull(argv[5], NULL, 0),
				  atoi(argv[6]));
	if (argc >= 6 && !strcmp(argv[1], "aux-foreign"))
		return aux_foreign(argv[2], strtoull(argv[3], NULL, 0), argv[4], atoi(argv[5]));
	if (argc >= 8 && !strcmp(argv[1], "unbind-sibling"))
		return unbind_sibling(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
				      atoi(argv[5]), argv[6], argv[7]);
	if (argc >= 3 && !strcmp(argv[1], "ghost-leader"))
		return ghost_leader(atoi(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "refuse-loop"))
		return refuse_loop(argv[2], atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "period"))
		return period(argv[2], strtoull(argv[3], NULL, 0), atoi(argv[4]));
	fprintf(stderr, "usage: see the comment at the top of pmu_edge.c\n");
	return 2;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for `static inline` functions and macros; see rpmu_helpers.h.
 * Compiled into each module that uses the rust/pmu abstractions.
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/topology.h>

#ifdef CONFIG_PPC_PSERIES
#include <asm/firmware.h>
#include <asm/lppaca.h>
#include <asm/paca.h>
#include <asm/plpar_wrappers.h>
#include <asm/smp.h>
#include <asm/time.h>
#endif

#include "rpmu_helpers.h"

void *rpmu_dev_get_drvdata(struct device *dev)
{
	return dev_get_drvdata(dev);
}

bool rpmu_perfmon_capable(void)
{
	return perfmon_capable();
}

/* Turns a frequency event into a fixed period, as timer-driven PMUs do. */
void rpmu_event_fix_period(struct perf_event *event, u64 period)
{
	struct hw_perf_event *hwc = &event->hw;

	event->attr.sample_period = period;
	event->attr.freq = 0;
	hwc->sample_period = period;
	hwc->last_period = period;
	local64_set(&hwc->period_left, period);
}

int *rpmu_event_hw_idx(struct perf_event *event)
{
	return &event->hw.idx;
}

void rpmu_hrtimer_setup(struct hrtimer *timer,
			enum hrtimer_restart (*fn)(struct hrtimer *))
{
	hrtimer_setup(timer, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
}

void rpmu_hrtimer_start(struct hrtimer *timer, u64 ns, bool pinned)
{
	hrtimer_start(timer, ns_to_ktime(ns),
		      pinned ? HRTIMER_MODE_REL_PINNED_HARD : HRTIMER_MODE_REL_HARD);
}

u64 rpmu_hrtimer_forward_now(struct hrtimer *timer, u64 ns)
{
	return hrtimer_forward_now(timer, ns_to_ktime(ns));
}

struct page *rpmu_virt_to_page(const void *addr)
{
	return virt_to_page(addr);
}

void *rpmu_vmap_pages(struct page **pages, unsigned int n)
{
	return vmap(pages, n, VM_MAP, PAGE_KERNEL);
}

void rpmu_sysfs_attr_init(struct attribute *attr)
{
	sysfs_attr_init(attr);
}

u64 rpmu_local64_read(local64_t *l)
{
	return local64_read(l);
}

void rpmu_local64_set(local64_t *l, u64 v)
{
	local64_set(l, v);
}

void rpmu_local64_add(local64_t *l, u64 v)
{
	local64_add(v, l);
}

u64 rpmu_local64_cmpxchg(local64_t *l, u64 old, u64 new)
{
	return local64_cmpxchg(l, old, new);
}

u64 rpmu_local_clock(void)
{
	return local_clock();
}

int rpmu_cpu_to_node(int cpu)
{
	return cpu_to_node(cpu);
}

int rpmu_smp_processor_id(void)
{
	return raw_smp_processor_id();
}

unsigned int rpmu_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}

bool rpmu_cpu_online(int cpu)
{
	return cpu_online(cpu);
}

void rpmu_spin_lock_init(spinlock_t *lock)
{
	spin_lock_init(lock);
}

unsigned long rpmu_spin_lock_irqsave(spinlock_t *lock)
{
	unsigned long flags;

	spin_lock_irqsave(lock, flags);
	return flags;
}

void rpmu_spin_unlock_irqrestore(spinlock_t *lock, unsigned long flags)
{
	spin_unlock_irqrestore(lock, flags);
}

/* A dynamic multi-instance state; returns the state number or an errno. */
int rpmu_cpuhp_setup_multi(const char *name,
			   int (*online)(unsigned int cpu, struct hlist_node *node),
			   int (*offline)(unsigned int cpu, struct hlist_node *node))
{
	return cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, name, online, offline);
}

int rpmu_cpuhp_add_instance(int state, struct hlist_node *node)
{
	return cpuhp_state_add_instance(state, node);
}

int rpmu_cpuhp_remove_instance(int state, struct hlist_node *node)
{
	return cpuhp_state_remove_instance(state, node);
}

void rpmu_cpuhp_remove_multi_state(int state)
{
	cpuhp_remove_multi_state(state);
}

unsigned long rpmu_regs_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

void rpmu_on_each_cpu(void (*fn)(void *), void *info)
{
	on_each_cpu(fn, info, 1);
}

void *rpmu_va(phys_addr_t pa)
{
	return __va(pa);
}

#ifdef CONFIG_PPC_PSERIES
struct lppaca *rpmu_lppaca_of(int cpu)
{
	return &lppaca_of(cpu);
}

bool rpmu_fw_splpar(void)
{
	return firmware_has_feature(FW_FEATURE_SPLPAR);
}

bool rpmu_is_kvm_guest(void)
{
	return is_kvm_guest();
}

int rpmu_hard_smp_processor_id(int cpu)
{
	return get_hard_smp_processor_id(cpu);
}

long rpmu_register_dtl(int hwcpu, phys_addr_t addr)
{
	return register_dtl(hwcpu, addr);
}

long rpmu_unregister_dtl(int hwcpu)
{
	return unregister_dtl(hwcpu);
}

phys_addr_t rpmu_pa(const void *addr)
{
	return __pa(addr);
}

u64 rpmu_mftb(void)
{
	return mftb();
}

unsigned long rpmu_tb_ticks_per_sec(void)
{
	return tb_ticks_per_sec;
}
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for `static inline` functions and macros; see rpmu_helpers.h.
 * Compiled into each module that includes rust/rpmu.
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/tick.h>
#include <linux/kmemleak.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <linux/topology.h>
#include <linux/acpi.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/property.h>
#include <linux/mfd/syscon.h>
#include <linux/regmap.h>

#ifdef CONFIG_PPC_PSERIES
#include <asm/firmware.h>
#include <asm/lppaca.h>
#include <asm/paca.h>
#include <asm/plpar_wrappers.h>
#include <asm/time.h>
#endif

#include "rpmu_helpers.h"
#include "rpmu_compat.c"

/* An object leaked on purpose (it may still be written by firmware). */
void rpmu_kmemleak_not_leak(const void *ptr)
{
	kmemleak_not_leak(ptr);
}

void *rpmu_dev_get_drvdata(struct device *dev)
{
	return dev_get_drvdata(dev);
}

/* A reference on a PMU's module (null: built in, nothing to take). */
bool rpmu_try_module_get(struct module *module)
{
	return try_module_get(module);
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

void rpmu_hrtimer_setup(struct hrtimer *timer,
			enum hrtimer_restart (*fn)(struct hrtimer *))
{
	hrtimer_setup(timer, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
}

/*
 * A PMU event's timer (rust/rpmu/perf). On CLOCK_BOOTTIME, whose hard base
 * the kernel's periodic timers (the tick, the scheduler's) do not use: a
 * lazy expiry (rpmu_hrtimer_set_lazy) is queued by its late end, and is
 * run at the first hrtimer interrupt after its early end only when it
 * comes first in its base's queue.
 */
void rpmu_hrtimer_setup_event(struct hrtimer *timer,
			      enum hrtimer_restart (*fn)(struct hrtimer *))
{
	hrtimer_setup(timer, fn, CLOCK_BOOTTIME, HRTIMER_MODE_REL_HARD);
}

/*
 * From the timer's callback: expire at the first hrtimer interrupt of this
 * CPU at least ns from now, and at the latest slack_ns later (U64_MAX: no
 * latest, so the CPU is never woken for it; but on a nohz_full CPU, whose
 * tick stops while it is busy, the early end).
 */
void rpmu_hrtimer_set_lazy(struct hrtimer *timer, u64 ns, u64 slack_ns)
{
	if (slack_ns == U64_MAX && tick_nohz_full_cpu(smp_processor_id()))
		slack_ns = 0;
	hrtimer_set_expires_range_ns(timer,
				     ktime_add_ns(hrtimer_cb_get_time(timer), ns),
				     min_t(u64, slack_ns, KTIME_MAX));
}

void rpmu_hrtimer_start(struct hrtimer *timer, u64 ns, bool pinned)
{
	hrtimer_start(timer, ns_to_ktime(ns),
		      pinned ? HRTIMER_MODE_REL_PINNED_HARD : HRTIMER_MODE_REL_HARD);
}

bool rpmu_in_nmi(void)
{
	return in_nmi();
}

u64 rpmu_hrtimer_forward_now(struct hrtimer *timer, u64 ns)
{
	/* After a lazy expiry: forward from its early end, exactly. */
	hrtimer_set_expires(timer, hrtimer_get_softexpires(timer));
	return hrtimer_forward_now(timer, ns_to_ktime(ns));
}

/*
 * The AUX areas this module's PMUs set up (rust/rpmu/perf/aux.rs): the
 * private data setup_aux returned, with its PMU driver's tag (a value entry). Perf returns
 * the private data of whichever PMU set the ring's AUX area up, which for an
 * event whose output is redirected may be another PMU's; it is looked up
 * here before it is used. Written in process context (setup_aux, free_aux),
 * read under RCU by xa_load from any context.
 */
static DEFINE_XARRAY(rpmu_aux_areas);

int rpmu_aux_register(void *priv, unsigned long tag)
{
	return xa_err(xa_store(&rpmu_aux_areas, (unsigned long)priv, xa_mk_value(tag), GFP_KERNEL));
}

void rpmu_aux_unregister(void *priv)
{
	xa_erase(&rpmu_aux_areas, (unsigned long)priv);
}

bool rpmu_aux_is(void *priv, unsigned long tag)
{
	return xa_load(&rpmu_aux_areas, (unsigned long)priv) == xa_mk_value(tag);
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

unsigned int rpmu_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}

bool rpmu_cpu_online(int cpu)
{
	return cpu_online(cpu);
}

bool rpmu_cpu_possible(int cpu)
{
	return cpu_possible(cpu);
}

void rpmu_raw_spin_lock_init(raw_spinlock_t *lock, const char *name,
			     struct lock_class_key *key)
{
#ifdef CONFIG_DEBUG_SPINLOCK
	__raw_spin_lock_init(lock, name, key, LD_WAIT_SPIN);
#else
	raw_spin_lock_init(lock);
#endif
}

/* A raw lock with the interrupt state saved (the X-Gene simulator's). */
unsigned long rpmu_raw_spin_lock_irqsave(raw_spinlock_t *lock)
{
	unsigned long flags;

	raw_spin_lock_irqsave(lock, flags);
	return flags;
}

void rpmu_raw_spin_unlock_irqrestore(raw_spinlock_t *lock, unsigned long flags)
{
	raw_spin_unlock_irqrestore(lock, flags);
}

/*
 * Interrupts disabled while the lock is held, counted per CPU, so that they
 * come back on only when the last such lock on the CPU is released, whatever
 * the order of release (rust/rpmu/sync.rs: Rust guards may be dropped in any
 * order).
 */
void rpmu_raw_spin_lock_irq_disable(raw_spinlock_t *lock)
{
	raw_spin_lock_irq_disable(lock);
}

bool rpmu_raw_spin_trylock_irq_disable(raw_spinlock_t *lock)
{
	return raw_spin_trylock_irq_disable(lock);
}

void rpmu_raw_spin_unlock_irq_enable(raw_spinlock_t *lock)
{
	raw_spin_unlock_irq_enable(lock);
}

/* For locks taken only with interrupts disabled (rust/rpmu/sync.rs). */
void rpmu_raw_spin_lock_irqs_off(raw_spinlock_t *lock)
{
	lockdep_assert_irqs_disabled();
	raw_spin_lock(lock);
}

bool rpmu_raw_spin_trylock_irqs_off(raw_spinlock_t *lock)
{
	lockdep_assert_irqs_disabled();
	return raw_spin_trylock(lock);
}

void rpmu_raw_spin_unlock_irqs_off(raw_spinlock_t *lock)
{
	raw_spin_unlock(lock);
}

void rpmu_raw_spin_assert_held(raw_spinlock_t *lock)
{
	lockdep_assert_held(lock);
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

void __iomem *rpmu_ioremap(phys_addr_t pa, size_t size)
{
	return ioremap(pa, size);
}

/* readl/writel (not the _relaxed forms): ordered against normal memory. */
u32 rpmu_readl(const void __iomem *addr)
{
	return readl(addr);
}

void rpmu_writel(u32 val, void __iomem *addr)
{
	writel(val, addr);
}

#ifdef CONFIG_ACPI
static int rpmu_acpi_first_mem(struct acpi_device *adev, struct resource *res)
{
	struct resource_entry *entry;
	LIST_HEAD(list);
	int ret = -ENODEV;

	if (acpi_dev_get_resources(adev, &list, NULL, NULL) < 0)
		return -EINVAL;
	list_for_each_entry(entry, &list, node) {
		if (resource_type(entry->res) == IORESOURCE_MEM) {
			*res = *entry->res;
			ret = 0;
			break;
		}
	}
	acpi_dev_free_resource_list(&list);
	return ret;
}
#endif

/* The node's first memory window: `reg` index 0 (DT) or the first memory
 * resource of `_CRS` (ACPI).
 */
int rpmu_fwnode_mem_resource(struct fwnode_handle *fwnode, struct resource *res)
{
	if (is_of_node(fwnode))
		return of_address_to_resource(to_of_node(fwnode), 0, res);
#ifdef CONFIG_ACPI
	if (is_acpi_device_node(fwnode))
		return rpmu_acpi_first_mem(to_acpi_device_node(fwnode), res);
#endif
	return -ENODEV;
}

const char *rpmu_fwnode_acpi_hid(struct fwnode_handle *fwnode)
{
#ifdef CONFIG_ACPI
	if (is_acpi_device_node(fwnode))
		return acpi_device_hid(to_acpi_device_node(fwnode));
#endif
	return NULL;
}

bool rpmu_fwnode_is_of(struct fwnode_handle *fwnode)
{
	return is_of_node(fwnode);
}

struct device_node *rpmu_dev_of_node(struct device *dev)
{
	return dev->of_node;
}

/* Syscon and regmap are optional: without them these fail cleanly. */
struct regmap *rpmu_syscon_by_phandle(struct device_node *np,
						    const char *property)
{
	return syscon_regmap_lookup_by_phandle(np, property);
}

int rpmu_regmap_read(struct regmap *map, unsigned int reg, unsigned int *val)
{
#ifdef CONFIG_REGMAP
	return regmap_read(map, reg, val);
#else
	return -EOPNOTSUPP;
#endif
}

int rpmu_request_irq(unsigned int irq, irqreturn_t (*handler)(int, void *),
		     unsigned long flags, const char *name, void *cookie)
{
	return request_irq(irq, handler, flags, name, cookie);
}

int rpmu_irq_set_affinity(unsigned int irq, unsigned int cpu)
{
	return irq_set_affinity(irq, cpumask_of(cpu));
}

bool rpmu_event_is_software(struct perf_event *event)
{
	return is_software_event(event);
}

/*
 * Calls visit for the group leader of `event` and each of its siblings (the
 * event being initialised is not on the sibling list yet); stops at the
 * first non-zero return.
 */
int rpmu_visit_group(struct perf_event *event,
		     int (*visit)(struct perf_event *member, void *ctx),
		     void *ctx)
{
	struct perf_event *leader = event->group_leader, *sibling;
	int ret;

	/* A new group leader has no siblings (and no context yet). */
	if (leader == event)
		return 0;
	ret = visit(leader, ctx);
	if (ret)
		return ret;
	for_each_sibling_event(sibling, leader) {
		ret = visit(sibling, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

unsigned int rpmu_first_online_cpu_except(unsigned int cpu)
{
	return cpumask_any_but(cpu_online_mask, cpu);
}

unsigned int rpmu_first_online_cpu(void)
{
	return cpumask_first(cpu_online_mask);
}

#include "rpmu_pseries_helpers.c"

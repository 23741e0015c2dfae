/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers for `static inline` functions and macros that Rust cannot call
 * directly. Most are one-line wrappers. A few hold a little C of their own:
 * rpmu_event_fix_period() (a frequency event turned into a fixed period),
 * the registry of this module's AUX areas (rpmu_aux_*),
 * rpmu_fwnode_mem_resource() (a DT or ACPI node's first memory window) and
 * rpmu_visit_group(); and rpmu_compat.c, what a kernel before 7.3
 * lacks. The drivers' logic stays in Rust.
 */
#ifndef RPMU_HELPERS_H
#define RPMU_HELPERS_H

#include <linux/hrtimer.h>
#include <linux/irqreturn.h>
#include <linux/types.h>
#include <linux/spinlock_types.h>
#include <asm/local64.h>

struct attribute;
struct module;
struct hrtimer;
struct page;

struct device;
struct perf_event;

void *rpmu_dev_get_drvdata(struct device *dev);
bool rpmu_try_module_get(struct module *module);

bool rpmu_perfmon_capable(void);
void rpmu_event_fix_period(struct perf_event *event, u64 period);
void rpmu_hrtimer_start(struct hrtimer *timer, u64 ns, bool pinned);
u64 rpmu_hrtimer_forward_now(struct hrtimer *timer, u64 ns);
void rpmu_hrtimer_setup(struct hrtimer *timer,
			enum hrtimer_restart (*fn)(struct hrtimer *));
void rpmu_hrtimer_setup_event(struct hrtimer *timer,
			      enum hrtimer_restart (*fn)(struct hrtimer *));
void rpmu_hrtimer_set_lazy(struct hrtimer *timer, u64 ns, u64 slack_ns);
bool rpmu_in_nmi(void);
struct page *rpmu_virt_to_page(const void *addr);
void *rpmu_vmap_pages(struct page **pages, unsigned int n);
int rpmu_aux_register(void *priv, unsigned long tag);
void rpmu_aux_unregister(void *priv);
bool rpmu_aux_is(void *priv, unsigned long tag);
void rpmu_sysfs_attr_init(struct attribute *attr);
u64 rpmu_local64_read(local64_t *l);
void rpmu_local64_set(local64_t *l, u64 v);
void rpmu_local64_add(local64_t *l, u64 v);
u64 rpmu_local64_cmpxchg(local64_t *l, u64 old, u64 new);
u64 rpmu_local_clock(void);
unsigned int rpmu_nr_cpu_ids(void);
bool rpmu_cpu_online(int cpu);
bool rpmu_cpu_possible(int cpu);

struct lock_class_key;
void rpmu_raw_spin_lock_init(raw_spinlock_t *lock, const char *name,
			     struct lock_class_key *key);
unsigned long rpmu_raw_spin_lock_irqsave(raw_spinlock_t *lock);
void rpmu_raw_spin_unlock_irqrestore(raw_spinlock_t *lock, unsigned long flags);
void rpmu_raw_spin_lock_irq_disable(raw_spinlock_t *lock);
bool rpmu_raw_spin_trylock_irq_disable(raw_spinlock_t *lock);
void rpmu_raw_spin_unlock_irq_enable(raw_spinlock_t *lock);
void rpmu_raw_spin_lock_irqs_off(raw_spinlock_t *lock);
bool rpmu_raw_spin_trylock_irqs_off(raw_spinlock_t *lock);
void rpmu_raw_spin_unlock_irqs_off(raw_spinlock_t *lock);
void rpmu_raw_spin_assert_held(raw_spinlock_t *lock);

struct hlist_node;
int rpmu_cpuhp_setup_multi(const char *name,
			   int (*online)(unsigned int cpu, struct hlist_node *node),
			   int (*offline)(unsigned int cpu, struct hlist_node *node));
int rpmu_cpuhp_add_instance(int state, struct hlist_node *node);
int rpmu_cpuhp_remove_instance(int state, struct hlist_node *node);
void rpmu_cpuhp_remove_multi_state(int state);


/* SoC uncore PMUs: MMIO windows, firmware nodes, interrupts. */
struct fwnode_handle;
struct resource;
struct perf_event;
void __iomem *rpmu_ioremap(phys_addr_t pa, size_t size);
u32 rpmu_readl(const void __iomem *addr);
void rpmu_writel(u32 val, void __iomem *addr);
int rpmu_fwnode_mem_resource(struct fwnode_handle *fwnode, struct resource *res);
const char *rpmu_fwnode_acpi_hid(struct fwnode_handle *fwnode);
bool rpmu_fwnode_is_of(struct fwnode_handle *fwnode);
struct device_node *rpmu_dev_of_node(struct device *dev);
struct regmap;
struct regmap *rpmu_syscon_by_phandle(struct device_node *np,
						    const char *property);
int rpmu_regmap_read(struct regmap *map, unsigned int reg, unsigned int *val);
int rpmu_request_irq(unsigned int irq, irqreturn_t (*handler)(int, void *),
		     unsigned long flags, const char *name, void *cookie);
int rpmu_irq_set_affinity(unsigned int irq, unsigned int cpu);
bool rpmu_event_is_software(struct perf_event *event);
int rpmu_visit_group(struct perf_event *event,
		     int (*visit)(struct perf_event *member, void *ctx),
		     void *ctx);
unsigned int rpmu_first_online_cpu_except(unsigned int cpu);
unsigned int rpmu_first_online_cpu(void);

void rpmu_kmemleak_not_leak(const void *ptr);

#ifdef CONFIG_PPC_PSERIES
struct lppaca;
struct lppaca *rpmu_lppaca_of(int cpu);
bool rpmu_fw_splpar(void);
bool rpmu_is_kvm_guest(void);
int rpmu_hard_smp_processor_id(int cpu);
void rpmu_dtl_write_size(void *buf, u32 bytes);
long rpmu_register_dtl(int hwcpu, phys_addr_t addr);
long rpmu_unregister_dtl(int hwcpu);
phys_addr_t rpmu_pa(const void *addr);
u64 rpmu_mftb(void);
unsigned long rpmu_tb_ticks_per_sec(void);
void *rpmu_dispatch_log(int cpu);
bool rpmu_native_accounting(void);
#endif

#endif

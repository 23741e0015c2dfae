// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers of xgene_sim (test only), see xgene_sim_helpers.h. They keep no
 * state: the model's lock, timer and tracepoint handle live in the Rust
 * module's state, which each probe gets back as its data pointer.
 */

#include <linux/acpi.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/smp.h>
#include <linux/io.h>
#include <linux/irq.h>
#include <linux/mm.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_irq.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "xgene_sim_helpers.h"

struct device_node *xgsim_of_find_compatible(struct device_node *from, const char *compat)
{
	return of_find_compatible_node(from, NULL, compat);
}

bool xgsim_of_is_compatible(struct device_node *np, const char *compat)
{
	return of_device_is_compatible(np, compat) > 0;
}

struct device_node *xgsim_of_next_available_child(struct device_node *np,
						  struct device_node *prev)
{
	return of_get_next_available_child(np, prev);
}

struct device_node *xgsim_of_next_child(struct device_node *np, struct device_node *prev)
{
	return of_get_next_child(np, prev);
}

struct device_node *xgsim_of_find_path(const char *path)
{
	return of_find_node_by_path(path);
}

struct device_node *xgsim_of_phandle(struct device_node *np, const char *name)
{
	return of_parse_phandle(np, name, 0);
}

int xgsim_of_reg(struct device_node *np, int idx, u64 *start, u64 *size)
{
	struct resource res;
	int ret = of_address_to_resource(np, idx, &res);

	if (ret)
		return ret;
	*start = res.start;
	*size = resource_size(&res);
	return 0;
}

int xgsim_of_u32(struct device_node *np, const char *name, u32 *out)
{
	return of_property_read_u32(np, name, out);
}

bool xgsim_of_bool(struct device_node *np, const char *name)
{
	return of_property_read_bool(np, name);
}

void xgsim_of_put(struct device_node *np)
{
	of_node_put(np);
}

struct device_node *xgsim_of_get(struct device_node *np)
{
	return of_node_get(np);
}

/* A present ACPI device with this _HID, referenced (NULL if none). */
struct acpi_device *xgsim_acpi_find(const char *hid)
{
	if (acpi_disabled)
		return NULL;
	return acpi_dev_get_first_match_dev(hid, NULL, -1);
}

void xgsim_acpi_put(struct acpi_device *adev)
{
	acpi_dev_put(adev);
}

const char *xgsim_acpi_hid(struct acpi_device *adev)
{
	return acpi_device_hid(adev);
}

struct xgsim_nth {
	int n;
	struct acpi_device *found;
};

static int xgsim_nth_child(struct acpi_device *child, void *data)
{
	struct xgsim_nth *w = data;

	if (w->n-- == 0) {
		w->found = acpi_dev_get(child);
		return 1;
	}
	return 0;
}

/* The n-th child of an ACPI device, referenced (NULL past the last). */
struct acpi_device *xgsim_acpi_child(struct acpi_device *adev, int n)
{
	struct xgsim_nth w = { .n = n };

	acpi_dev_for_each_child(adev, xgsim_nth_child, &w);
	return w.found;
}

/* Resources of one type from _CRS: the n-th memory range, or the first IRQ. */
static int xgsim_acpi_res(struct acpi_device *adev, unsigned long type, int n,
			  struct resource *out)
{
	struct resource_entry *e;
	LIST_HEAD(list);
	int ret = acpi_dev_get_resources(adev, &list, NULL, NULL);

	if (ret < 0)
		return ret;
	ret = -ENOENT;
	list_for_each_entry(e, &list, node) {
		if (resource_type(e->res) != type || (e->res->flags & IORESOURCE_DISABLED))
			continue;
		if (n-- == 0) {
			*out = *e->res;
			ret = 0;
			break;
		}
	}
	acpi_dev_free_resource_list(&list);
	return ret;
}

int xgsim_acpi_mem(struct acpi_device *adev, int n, u64 *start, u64 *size)
{
	struct resource r;
	int ret = xgsim_acpi_res(adev, IORESOURCE_MEM, n, &r);

	if (ret)
		return ret;
	*start = r.start;
	*size = resource_size(&r);
	return 0;
}

/* The Linux IRQ of the device's first interrupt resource, or -errno. */
int xgsim_acpi_irq(struct acpi_device *adev)
{
	struct resource r;
	int ret = xgsim_acpi_res(adev, IORESOURCE_IRQ, 0, &r);

	return ret ? ret : (int)r.start;
}

/* An integer _DSD property. */
int xgsim_acpi_u32(struct acpi_device *adev, const char *name, u32 *out)
{
	const union acpi_object *obj;
	int ret = acpi_dev_get_property(adev, name, ACPI_TYPE_INTEGER, &obj);

	if (ret)
		return ret;
	*out = obj->integer.value;
	return 0;
}

/* Whether [pa, pa + size) shares nothing with the kernel's System RAM. */
bool xgsim_not_system_ram(u64 pa, u64 size)
{
	return region_intersects(pa, size, IORESOURCE_SYSTEM_RAM, IORES_DESC_NONE) ==
	       REGION_DISJOINT;
}

unsigned int xgsim_irq_of_map(struct device_node *np)
{
	return irq_of_parse_and_map(np, 0);
}

int xgsim_irq_raise(unsigned int virq)
{
	return irq_set_irqchip_state(virq, IRQCHIP_STATE_PENDING, true);
}

/* Whether the interrupt is pending or active at the interrupt controller. */
int xgsim_irq_busy(unsigned int virq, bool *busy)
{
	bool pending = false, active = false;
	int ret = irq_get_irqchip_state(virq, IRQCHIP_STATE_PENDING, &pending);

	if (!ret)
		ret = irq_get_irqchip_state(virq, IRQCHIP_STATE_ACTIVE, &active);
	*busy = pending || active;
	return ret;
}

void *xgsim_memremap_wb(u64 pa, size_t size)
{
	return memremap(pa, size, MEMREMAP_WB);
}

void xgsim_memunmap(void *va)
{
	memunmap(va);
}

/*
 * Physical address behind a kernel virtual address from ioremap() (the
 * vmalloc area), or false if it is not such an address or not mapped.
 * vmalloc_to_page() is the walk vmalloc_to_pfn() does, with its NULL result
 * kept visible.
 */
bool xgsim_va_to_pa(const void *va, u64 *pa)
{
	struct page *page;

	if (!is_vmalloc_addr(va))
		return false;
	page = vmalloc_to_page(va);
	if (!page)
		return false;
	*pa = PFN_PHYS(page_to_pfn(page)) + offset_in_page(va);
	return true;
}

int xgsim_tp_write_register(xgsim_mmio_probe fn, void *data)
{
	return tracepoint_probe_register(&__tracepoint_rwmmio_write, fn, data);
}

int xgsim_tp_write_unregister(xgsim_mmio_probe fn, void *data)
{
	return tracepoint_probe_unregister(&__tracepoint_rwmmio_write, fn, data);
}

int xgsim_tp_post_write_register(xgsim_mmio_probe fn, void *data)
{
	return tracepoint_probe_register(&__tracepoint_rwmmio_post_write, fn, data);
}

int xgsim_tp_post_write_unregister(xgsim_mmio_probe fn, void *data)
{
	return tracepoint_probe_unregister(&__tracepoint_rwmmio_post_write, fn, data);
}

int xgsim_tp_read_register(xgsim_mmio_read_probe fn, void *data)
{
	return tracepoint_probe_register(&__tracepoint_rwmmio_read, fn, data);
}

int xgsim_tp_read_unregister(xgsim_mmio_read_probe fn, void *data)
{
	return tracepoint_probe_unregister(&__tracepoint_rwmmio_read, fn, data);
}

/*
 * free_vmap_area_noflush (include/trace/events/vmalloc.h) is not exported;
 * a built-in tracepoint is found by name instead.
 */
static void xgsim_tp_match(struct tracepoint *tp, void *priv)
{
	struct tracepoint **found = priv;

	if (!strcmp(tp->name, "free_vmap_area_noflush"))
		*found = tp;
}

/* The tracepoint, or NULL if this kernel has none by that name. */
void *xgsim_tp_vfree_find(void)
{
	struct tracepoint *tp = NULL;

	for_each_kernel_tracepoint(xgsim_tp_match, &tp);
	return tp;
}

int xgsim_tp_vfree_register(void *tp, xgsim_vfree_probe fn, void *data)
{
	return tracepoint_probe_register(tp, fn, data);
}

int xgsim_tp_vfree_unregister(void *tp, xgsim_vfree_probe fn, void *data)
{
	return tracepoint_probe_unregister(tp, fn, data);
}

struct xgsim_start {
	struct hrtimer *timer;
	u64 ns;
};

static void xgsim_start_here(void *info)
{
	struct xgsim_start *s = info;

	hrtimer_start(s->timer, ns_to_ktime(s->ns), HRTIMER_MODE_REL_PINNED_HARD);
}

/* Starts the pinned tick on CPU @cpu (which must be online). */
int xgsim_hrtimer_start_on(int cpu, struct hrtimer *timer, u64 ns)
{
	struct xgsim_start s = { .timer = timer, .ns = ns };

	return smp_call_function_single(cpu, xgsim_start_here, &s, 1);
}

/*
 * After unregistering: no probe runs any more once this returns. The plain
 * RCU grace period also waits for every section with interrupts disabled,
 * which covers a CPU between the rwmmio_write and rwmmio_post_write probes
 * (the model lock is held there with interrupts off).
 */
void xgsim_tp_sync(void)
{
	tracepoint_synchronize_unregister();
	synchronize_rcu();
}

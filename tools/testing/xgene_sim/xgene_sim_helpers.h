/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers of xgene_sim (test only): static inlines and macros of the device
 * tree, ACPI, MMIO tracepoint, IRQ and vmalloc APIs that Rust cannot call directly.
 * Each is a thin wrapper and keeps no state; the register model is in Rust. Passed to bindgen
 * with -include (rpmu-extra-header in Kbuild).
 */
#ifndef XGENE_SIM_HELPERS_H
#define XGENE_SIM_HELPERS_H

#include <linux/types.h>
#include <linux/hrtimer.h>

struct device_node;
struct acpi_device;

struct device_node *xgsim_of_find_compatible(struct device_node *from, const char *compat);
bool xgsim_of_is_compatible(struct device_node *np, const char *compat);
struct device_node *xgsim_of_next_available_child(struct device_node *np,
						  struct device_node *prev);
struct device_node *xgsim_of_next_child(struct device_node *np, struct device_node *prev);
struct device_node *xgsim_of_find_path(const char *path);
struct device_node *xgsim_of_phandle(struct device_node *np, const char *name);
int xgsim_of_reg(struct device_node *np, int idx, u64 *start, u64 *size);
int xgsim_of_u32(struct device_node *np, const char *name, u32 *out);
bool xgsim_of_bool(struct device_node *np, const char *name);
void xgsim_of_put(struct device_node *np);
struct device_node *xgsim_of_get(struct device_node *np);

struct acpi_device *xgsim_acpi_find(const char *hid);
void xgsim_acpi_put(struct acpi_device *adev);
const char *xgsim_acpi_hid(struct acpi_device *adev);
struct acpi_device *xgsim_acpi_child(struct acpi_device *adev, int n);
int xgsim_acpi_mem(struct acpi_device *adev, int n, u64 *start, u64 *size);
int xgsim_acpi_irq(struct acpi_device *adev);
int xgsim_acpi_u32(struct acpi_device *adev, const char *name, u32 *out);
bool xgsim_not_system_ram(u64 pa, u64 size);

unsigned int xgsim_irq_of_map(struct device_node *np);
int xgsim_irq_raise(unsigned int virq);
int xgsim_irq_busy(unsigned int virq, bool *busy);

void *xgsim_memremap_wb(u64 pa, size_t size);
void xgsim_memunmap(void *va);
bool xgsim_va_to_pa(const void *va, u64 *pa);

typedef void (*xgsim_mmio_probe)(void *data, unsigned long caller, unsigned long caller0,
				 u64 val, u8 width, void *addr);
typedef void (*xgsim_vfree_probe)(void *data, unsigned long va_start, unsigned long nr_lazy,
				  unsigned long nr_lazy_max);
int xgsim_tp_write_register(xgsim_mmio_probe fn, void *data);
int xgsim_tp_write_unregister(xgsim_mmio_probe fn, void *data);
int xgsim_tp_post_write_register(xgsim_mmio_probe fn, void *data);
int xgsim_tp_post_write_unregister(xgsim_mmio_probe fn, void *data);
void *xgsim_tp_vfree_find(void);
typedef void (*xgsim_mmio_read_probe)(void *data, unsigned long caller, unsigned long caller0,
				      u8 width, const void *addr);
int xgsim_tp_read_register(xgsim_mmio_read_probe fn, void *data);
int xgsim_tp_read_unregister(xgsim_mmio_read_probe fn, void *data);
int xgsim_tp_vfree_register(void *tp, xgsim_vfree_probe fn, void *data);
int xgsim_tp_vfree_unregister(void *tp, xgsim_vfree_probe fn, void *data);
void xgsim_tp_sync(void);
int xgsim_hrtimer_start_on(int cpu, struct hrtimer *timer, u64 ns);

#endif

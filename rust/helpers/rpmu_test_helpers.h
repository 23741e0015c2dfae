/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers for the project's test modules (KUnit suites and simulators):
 * never compiled into a driver. See rpmu_helpers.h for the drivers' own.
 */
#ifndef RPMU_TEST_HELPERS_H
#define RPMU_TEST_HELPERS_H

#include <linux/spinlock_types.h>
#include <linux/types.h>

struct pt_regs;
unsigned long rpmu_regs_arg(struct pt_regs *regs, unsigned int n);
void rpmu_on_each_cpu(void (*fn)(void *), void *info);
void *rpmu_va(phys_addr_t pa);
int rpmu_smp_processor_id(void);
int rpmu_cpu_to_node(int cpu);
void rpmu_spin_lock_init(spinlock_t *lock);
unsigned long rpmu_spin_lock_irqsave(spinlock_t *lock);
void rpmu_spin_unlock_irqrestore(spinlock_t *lock, unsigned long flags);
bool rpmu_irqs_disabled(void);

#endif

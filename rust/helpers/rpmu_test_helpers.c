// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for `static inline` functions the test modules need; see
 * rpmu_test_helpers.h. Never compiled into a driver.
 */
#include <linux/io.h>
#include <linux/ptrace.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/topology.h>

#include "rpmu_test_helpers.h"

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

int rpmu_smp_processor_id(void)
{
	return raw_smp_processor_id();
}

int rpmu_cpu_to_node(int cpu)
{
	return cpu_to_node(cpu);
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

bool rpmu_irqs_disabled(void)
{
	return irqs_disabled();
}

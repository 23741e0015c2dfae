// SPDX-License-Identifier: GPL-2.0
/*
 * The C side of rust/rpmu/compat.rs: what a kernel before 7.3 lacks, with
 * the 7.3 name, so rpmu_helpers.c (which includes this file) is written for
 * 7.3 only. An in-tree series has no such file.
 */

/*
 * raw_spin_lock_irq_disable() and its pair (7.3): interrupts disabled while
 * the lock is held, counted per CPU, and enabled again only when the last
 * such lock on the CPU is released, whatever the order of release. Before
 * 7.3 the count is kept here, per CPU and per module (each module compiles
 * this file): a module's guards never hold another module's locks.
 */
#ifndef raw_spin_lock_irq_disable
static DEFINE_PER_CPU(unsigned long, rpmu_irq_depth);
static DEFINE_PER_CPU(unsigned long, rpmu_irq_flags);

static void rpmu_irq_disable(void)
{
	unsigned long flags;

	local_irq_save(flags);
	if (this_cpu_inc_return(rpmu_irq_depth) == 1)
		this_cpu_write(rpmu_irq_flags, flags);
}

static void rpmu_irq_enable(void)
{
	if (this_cpu_dec_return(rpmu_irq_depth) == 0)
		local_irq_restore(this_cpu_read(rpmu_irq_flags));
}

static void rpmu_compat_lock_irq_disable(raw_spinlock_t *lock)
{
	rpmu_irq_disable();
	raw_spin_lock(lock);
}

static bool rpmu_compat_trylock_irq_disable(raw_spinlock_t *lock)
{
	rpmu_irq_disable();
	if (raw_spin_trylock(lock))
		return true;
	rpmu_irq_enable();
	return false;
}

/* Preemption comes back after interrupts, as in 7.3, so a reschedule
 * requested meanwhile is not missed. */
static void rpmu_compat_unlock_irq_enable(raw_spinlock_t *lock)
{
	preempt_disable();
	raw_spin_unlock(lock);
	rpmu_irq_enable();
	preempt_enable();
}

#define raw_spin_lock_irq_disable(lock) rpmu_compat_lock_irq_disable(lock)
#define raw_spin_trylock_irq_disable(lock) rpmu_compat_trylock_irq_disable(lock)
#define raw_spin_unlock_irq_enable(lock) rpmu_compat_unlock_irq_enable(lock)
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The pseries part of rpmu_helpers.c (the DTL, the lppaca, the hypervisor
 * calls), which includes it: rust/rpmu/pseries/.
 */

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

/* The size word H_REGISTER_VPA reads from a DTL buffer (its second word). */
void rpmu_dtl_write_size(void *buf, u32 bytes)
{
	WRITE_ONCE(((__be32 *)buf)[1], cpu_to_be32(bytes));
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

/*
 * The kernel's own DTL buffer for @cpu (paca dispatch_log), or NULL. With
 * native cputime accounting it is allocated for every possible CPU at boot,
 * registered whenever the CPU comes online, and never freed.
 */
void *rpmu_dispatch_log(int cpu)
{
	return paca_ptrs[cpu]->dispatch_log;
}

/* Whether the kernel reads the DTL itself for steal time. */
bool rpmu_native_accounting(void)
{
	return IS_ENABLED(CONFIG_VIRT_CPU_ACCOUNTING_NATIVE);
}
#endif

# SPDX-License-Identifier: GPL-2.0
#
# Kbuild fragment shared by the project's modules. A module directory's Kbuild
# sets rpmu-mod (the module name), includes this file, and lists its objects:
#
#   rpmu-mod := vpa_dtl
#   include $(src)/../../../rust/rpmu.mk
#   $(rpmu-mod)-y := vpa_dtl_main.o $(rpmu-objs)
#
# and its directory holds rpmu_helpers.c, a one-line #include of
# rust/helpers/rpmu_helpers.c (Kbuild compiles objects of the module's own
# directory only).
#
# A test module (KUnit suite or simulator, never a driver) sets, before the
# include:
#   rpmu-testing := y   also binds the test-only functions (in-kernel events,
#                       CPU hotplug control, kprobes) and links
#                       rpmu_test_helpers.o (its directory then holds a
#                       rpmu_test_helpers.c including the shared one).
# Any module may extend the bindings for itself:
#   rpmu-extra-types / rpmu-extra-fns / rpmu-extra-vars  (regex alternatives)
#   rpmu-extra-header  (a header in the module directory, passed with -include)
#
# It provides:
#   - rpmu_bindings_generated.rs: bindgen over rust/bindings/rpmu_bindings.h,
#     with the same flags the kernel's rust/Makefile uses for its bindings;
#   - rpmu-objs: the C helpers for static inline functions;
#   - RPMU_GEN_DIR in the environment, where rust/rpmu/bindings.rs finds the
#     generated file.

# rpmu-top: the project root; a module directory deeper than three levels
# sets it before the include.
rpmu-top ?= $(abspath $(src)/../../..)
rpmu-objs := rpmu_helpers.o

ccflags-y += -I$(rpmu-top)/rust/helpers

export RPMU_GEN_DIR := $(abspath $(obj))

rpmu-bindgen-types := perf_event|pmu|perf_event_sample_format|perf_event_state|perf_output_handle|perf_event_attr|\
	attribute_group|device_attribute|attribute|hrtimer|hrtimer_restart|\
	lppaca|dtl_entry|page|cpumask|resource|regmap|irqreturn|raw_spinlock
rpmu-bindgen-fns := perf_pmu_register|perf_pmu_unregister|perf_aux_output_begin|\
	perf_aux_output_end|perf_aux_output_flag|perf_aux_output_skip|perf_get_aux|\
	perf_pmu_migrate_context|vunmap|\
	hrtimer_cancel|hrtimer_try_to_cancel|bitmap_print_to_pagebuf|\
	__cpuhp_setup_state|__cpuhp_remove_state|__cpuhp_state_add_instance|\
	__cpuhp_state_remove_instance|anon_inode_getfile|fput|\
	iounmap|fwnode_device_is_available|module_put|rpmu_.*
rpmu-bindgen-vars := PERF_.*|DTL_LOG_.*|DISPATCH_LOG_BYTES|N_DISPATCH_LOG|\
	CPUHP_.*|H_SUCCESS|H_PARAMETER|H_REGISTER_VPA|H_VPA_.*|IORESOURCE_MEM|O_RDONLY

ifeq ($(rpmu-testing),y)
rpmu-objs += rpmu_test_helpers.o
rpmu-bindgen-types += |kprobe|spinlock
rpmu-bindgen-fns += |register_kprobe|unregister_kprobe|perf_event_create_kernel_counter|\
	perf_event_release_kernel|perf_event_read_value|perf_event_disable|remove_cpu|add_cpu
rpmu-bindgen-defs := -DRPMU_TESTING
rustflags-y += --cfg rpmu_testing
endif

# The kernel crate has no stable API, and three of its interfaces changed
# within 7.x. The kernel source is probed for the older form, so the modules
# build against either (`make compat` builds them against 7.2):
#   rpmu_named_device_table: of/acpi_device_table! take the module table's
#                            name (before 7.3);
#   rpmu_no_eopnotsupp:     kernel::error::code has no EOPNOTSUPP (before
#                            7.3);
#   rpmu_devres_irq:         irq::Registration is device-managed, its handler
#                            'static and given the device (before 7.3).
ifneq ($(shell grep -s 'module_table_name:ident' $(srctree)/rust/kernel/of.rs),)
rustflags-y += --cfg rpmu_named_device_table
endif
ifeq ($(shell grep -s 'declare_err!.EOPNOTSUPP' $(srctree)/rust/kernel/error.rs),)
rustflags-y += --cfg rpmu_no_eopnotsupp
endif
ifneq ($(shell grep -s 'fn handle.&self. device: &Device<Bound>' $(srctree)/rust/kernel/irq/request.rs),)
rustflags-y += --cfg rpmu_devres_irq
endif

# Types the Rust side only points to or embeds: their size and alignment are
# kept, their fields are not generated.
rpmu-bindgen-opaque := perf_event_context|perf_buffer|perf_event_pmu_context|\
	task_struct|mm_struct|file|file_operations|rcu_head|irq_work|wait_queue_head|\
	perf_addr_filters_head|perf_cgroup|trace_event_call|ftrace_ops|bpf_prog|\
	mutex|list_head|hlist_head|hlist_node|spinlock|raw_spinlock|\
	refcount_struct|perf_sample_data|\
	perf_event_mmap_page|pid_namespace|kernfs_node|device|module|\
	fasync_struct|timerqueue_node|hrtimer|hrtimer_clock_base|llist_node|\
	callback_head|rw_semaphore|lockdep_map|lock_class_key|page|cpumask|\
	perf_callchain_entry|perf_branch_stack|perf_raw_record|perf_regs|\
	arch_hw_breakpoint|hw_perf_event_extra|rhash_head|perf_event_groups|regmap|\
	device_node|fwnode_handle

rpmu-alt = $(subst $(space),,$(1))$(if $(2),|$(subst $(space),,$(2)))
rpmu-extra-h := $(if $(rpmu-extra-header),$(src)/$(rpmu-extra-header))

# The kernel's own choices of enum style (`--newtype-enum`: a C enum as a
# struct with associated constants), so the generated names are the ones
# the kernel crate's bindings give.
rpmu-bindgen-enums := $(shell grep -E '^--newtype-enum ' $(srctree)/rust/bindgen_parameters)

quiet_cmd_rpmu_bindgen = BINDGEN $@
      cmd_rpmu_bindgen = \
	$(BINDGEN) $< --use-core --ctypes-prefix ffi --no-layout-tests \
		--no-debug '.*' --no-doc-comments --rust-target 1.68 \
		--allowlist-type '$(call rpmu-alt,$(rpmu-bindgen-types),$(rpmu-extra-types))' \
		--allowlist-function '$(call rpmu-alt,$(rpmu-bindgen-fns),$(rpmu-extra-fns))' \
		--allowlist-var '$(call rpmu-alt,$(rpmu-bindgen-vars),$(rpmu-extra-vars))' \
		--opaque-type '$(subst $(space),,$(rpmu-bindgen-opaque))' \
		--with-derive-default $(rpmu-bindgen-enums) \
		-o $@ -- $(c_flags) -w -DMODULE -D__BINDGEN__ -fno-builtin $(rpmu-bindgen-defs) \
		-I$(rpmu-top)/rust/helpers $(addprefix -include ,$(rpmu-extra-h))

$(obj)/rpmu_bindings_generated.rs: $(rpmu-top)/rust/bindings/rpmu_bindings.h \
		$(rpmu-top)/rust/helpers/rpmu_helpers.h $(rpmu-top)/rust/helpers/rpmu_test_helpers.h \
		$(rpmu-extra-h) FORCE
	$(call if_changed,rpmu_bindgen)

targets += rpmu_bindings_generated.rs

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C declarations the project's Rust code needs and the kernel's own `bindings`
 * crate does not provide (rust/bindings/bindings_helper.h in the kernel tree
 * does not include perf, lppaca or DTL headers). bindgen turns this header
 * into Rust at module build time; see rust/rpmu.mk.
 */
#ifndef RPMU_BINDINGS_H
#define RPMU_BINDINGS_H

#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mfd/syscon.h>
#include <linux/property.h>
#include <linux/regmap.h>

#ifdef CONFIG_PPC_PSERIES
#include <asm/dtl.h>
#include <asm/hvcall.h>
#include <asm/lppaca.h>
#endif

#include "rpmu_helpers.h"

#ifdef RPMU_TESTING
#include <linux/kprobes.h>
#include "rpmu_test_helpers.h"
#endif

#endif

// SPDX-License-Identifier: GPL-2.0

//! `xgene_sim`: simulated X-Gene SoC PMU silicon, for testing X-Gene PMU
//! drivers under QEMU virt, which has no such hardware (test only).
//!
//! The device tree (tools/testing/xgene/xgene-v2.dtsi) places an
//! `apm,xgene-pmu[-v2]` node, its children and the CSW/MCBA/MCBB syscons in a
//! `no-map` reserved-memory region, so the registers are plain RAM. This
//! module learns every window from that node, maps them itself, and makes
//! the RAM behave like the silicon (register semantics in `model.rs`, the
//! register table in `regs.rs`):
//!
//! * It sees each store a driver makes, at the moment it makes it: with
//!   CONFIG_TRACE_MMIO_ACCESS every `writel()`/`writel_relaxed()` (and the
//!   regmap-mmio accessors) calls the `rwmmio_write` tracepoint before the
//!   store and `rwmmio_post_write` after it. The `rwmmio_write` probe takes
//!   the model lock (interrupts off) for an address in a model window; the
//!   `rwmmio_post_write` probe applies the store to the model, rewrites the
//!   cells that read back model state, and drops the lock. The tick takes
//!   the same lock, so a driver's store and a counter increment never
//!   interleave and no store is lost. Reads need no hook: the cells always
//!   hold what the silicon would return.
//! * A driver's `ioremap()` address is translated with the kernel page
//!   tables (`vmalloc_to_page`) and cached per page; the cache is dropped
//!   whenever a vmalloc area is freed (`free_vmap_area_noflush`), before its
//!   addresses can be reused.
//! * A pinned hrtimer (`period_us`) advances enabled counters, sets overflow
//!   status and raises the PMU's interrupt with
//!   `irq_set_irqchip_state(PENDING)` on the same Linux IRQ the driver gets
//!   (`irq_of_parse_and_map` of the same node). While the line stays
//!   asserted and the interrupt is neither pending nor active, each tick
//!   raises it again, as a level-triggered line would.
//! * Every increment is tallied per (PMU, event code, effective agent
//!   masks); debugfs `xgene_sim/tally` shows it (write to reset), `pmus`
//!   lists the PMUs, `stats` the model's counts, `scale` the multiplier. Each
//!   counter session (enable to disable or reprogramming) is logged:
//!
//!   `xgene_sim: l3c0 ctr0 session: event 0x3 pmamr0 0x3ff pmamr1 - added N periods P overflows O`
//!
//! The discovery registers (CSWCR, MCBADDRMR) are reset values the harness
//! preloads into guest RAM (QEMU `-device loader`), since a built-in driver
//! reads them at boot, before any module can load. The model does not
//! depend on being loaded before the driver: it adopts the registers'
//! contents at load. It should be loaded before events are in use.
//!
//! Nothing here knows any driver: only the registers.
//!
//! On an ACPI boot (`acpi.rs`) the same silicon is described by an SSDT
//! (`APMC0D5B`/`APMC0D5C`/`APMC0D83` and their children); the windows lie
//! in RAM kept from the kernel with `mem=`, which the harness names with
//! `acpi_ram_start`/`acpi_ram_size`.
//!
//! Files: `dt.rs` (what the device tree describes), `acpi.rs` (what ACPI
//! describes), `window.rs` (the
//! mappings), `sim.rs` (the state and the address translation),
//! `probes.rs` (tracepoint probes and the tick), `debugfs.rs`, and the
//! model (`model.rs`, `tally.rs`, `kind.rs`, `regs.rs`; KUnit cases in
//! `model_tests.rs`). No global state: the probes get the simulator as
//! their data pointer, the tick through its embedded timer.

#[path = "../../../rust/rpmu/mod.rs"]
pub mod rpmu;

mod acpi;
mod debugfs;
mod dt;
pub mod kind;
mod model;
mod model_tests;
mod probes;
mod readings;
pub mod regs;
mod sim;
mod tally;
mod window;

use core::ptr::NonNull;
use kernel::{prelude::*, sync::atomic::Relaxed, sync::Arc};
use probes::{on_post_write, on_read, on_vfree, on_write, probe_data, tick};
use rpmu::bindings as b;
use sim::{Sim, SimParams, MAX_CPUS};

module! {
    type: XgeneSim,
    name: "xgene_sim",
    authors: ["rust-pmu developers"],
    description: "Simulated X-Gene SoC PMU silicon for tests",
    license: "GPL",
    params: {
        scale: u64 {
            default: 1,
            description: "Multiplier of every counter increment (also debugfs xgene_sim/scale)",
        },
        period_us: u32 {
            default: 1000,
            description: "Tick period in microseconds",
        },
        // u32, not bool: 7.2's module! has no bool parameters.
        log_sessions: u32 {
            default: 1,
            description: "Log each counter session with pr_info (0: do not)",
        },
        acpi_ram_start: u64 {
            default: 0,
            description: "ACPI boots: start of the RAM set aside (mem=) for the register windows",
        },
        acpi_ram_size: u64 {
            default: 0,
            description: "ACPI boots: size of the RAM set aside for the register windows",
        },
        tick_cpu: i32 {
            default: -1,
            description: "CPU the counting tick runs on (-1: the loading CPU)",
        },
    },
}

/// A module parameter's value: `value()` returns it from 7.3 on, and a
/// reference to it before.
fn param<T: Copy>(v: impl core::borrow::Borrow<T>) -> T {
    *v.borrow()
}

/// The `free_vmap_area_noflush` tracepoint, found by name.
struct VfreeTracepoint(NonNull<c_void>);

// SAFETY: A tracepoint is a static kernel object; the pointer is only
// passed back to the tracepoint API.
unsafe impl Send for VfreeTracepoint {}
// SAFETY: As above.
unsafe impl Sync for VfreeTracepoint {}

struct XgeneSim {
    sim: Arc<Sim>,
    files: Option<debugfs::Files>,
    vfree_probe: Option<VfreeTracepoint>,
    post_write_probe: bool,
    write_probe: bool,
    read_probe: bool,
    timer: bool,
}

impl XgeneSim {
    /// Registers on `free_vmap_area_noflush`, which keeps the translation
    /// cache right; without it every access is translated.
    fn register_vfree(&mut self) {
        // SAFETY: Looks a built-in tracepoint up by name.
        let tp = NonNull::new(unsafe { b::xgsim_tp_vfree_find() });
        let rc = match tp {
            // SAFETY: `on_vfree` has the tracepoint's prototype; its data,
            // the `Sim`, outlives the registration (`Drop`).
            Some(tp) => unsafe {
                b::xgsim_tp_vfree_register(tp.as_ptr(), Some(on_vfree), probe_data(&self.sim))
            },
            None => ENOENT.to_errno(),
        };
        match tp {
            Some(tp) if rc == 0 => {
                self.vfree_probe = Some(VfreeTracepoint(tp));
                self.sim.use_cache.store(true, kernel::sync::atomic::Release);
            }
            _ => pr_warn!(
                "free_vmap_area_noflush tracepoint unavailable ({}); translating every MMIO store without a cache\n",
                rc
            ),
        }
    }

    /// Registers the MMIO probes: `rwmmio_post_write` first, so that a CPU
    /// past `rwmmio_write` always finds its completion.
    fn register_mmio(&mut self) -> Result {
        let data = probe_data(&self.sim);
        // SAFETY: `on_post_write` has the tracepoint's prototype; `data`
        // outlives the registration (`Drop`).
        let rc = unsafe { b::xgsim_tp_post_write_register(Some(on_post_write), data) };
        if rc != 0 {
            pr_err!(
                "cannot register on rwmmio_post_write: {} (CONFIG_TRACE_MMIO_ACCESS?)\n",
                rc
            );
            return Err(Error::from_errno(rc));
        }
        self.post_write_probe = true;
        // SAFETY: As above, for `on_write`.
        let rc = unsafe { b::xgsim_tp_write_register(Some(on_write), data) };
        if rc != 0 {
            pr_err!("cannot register on rwmmio_write: {}\n", rc);
            return Err(Error::from_errno(rc));
        }
        self.write_probe = true;
        // SAFETY: As above, for `on_read`.
        let rc = unsafe { b::xgsim_tp_read_register(Some(on_read), data) };
        if rc != 0 {
            pr_err!("cannot register on rwmmio_read: {}\n", rc);
            return Err(Error::from_errno(rc));
        }
        self.read_probe = true;
        Ok(())
    }
}

impl kernel::Module for XgeneSim {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Plain read.
        let ncpus = unsafe { b::rpmu_nr_cpu_ids() } as usize;
        if ncpus > MAX_CPUS {
            pr_err!("{} possible CPUs, the model handles {}\n", ncpus, MAX_CPUS);
            return Err(EINVAL);
        }
        let dt::Discovered {
            model,
            pages,
            syscons,
            virq,
        } = if acpi::present() {
            acpi::discover(acpi::SetAside {
                start: param(module_parameters::acpi_ram_start.value()),
                size: param(module_parameters::acpi_ram_size.value()),
            })?
        } else {
            dt::discover()?
        };
        let mut model = model;
        let version = model.version;
        let nchildren = model.children.len();
        let period_ns =
            u64::from(param::<u32>(module_parameters::period_us.value()).max(50)) * 1000;
        model.period_ns = period_ns;
        // Times are nanoseconds since the `Sim`'s epoch, taken just after.
        model.last_tick_ns = 0;
        let params = SimParams {
            model,
            pages,
            syscons,
            virq,
            period_ns,
            scale: param::<u64>(module_parameters::scale.value()).max(1),
            log_sessions: param::<u32>(module_parameters::log_sessions.value()) != 0,
        };
        let sim = Arc::pin_init(Sim::new(params, tick), GFP_KERNEL)?;
        // From here on, dropping `this` undoes whatever was set up.
        let mut this = XgeneSim {
            sim,
            files: None,
            vfree_probe: None,
            post_write_probe: false,
            write_probe: false,
            read_probe: false,
            timer: false,
        };
        this.register_vfree();
        this.register_mmio()?;
        let s = &this.sim;
        // Every store from now on is processed; take over what is there.
        s.with_model(|m| {
            m.adopt();
            s.ready.store(true, Relaxed);
        });
        this.files = Some(debugfs::make_files(s).inspect_err(|e| {
            pr_err!("cannot create the debugfs files: {:?}\n", e);
        })?);
        // The silicon counts whatever the CPUs do: a tick on another CPU
        // than the PMU's owner can land in the middle of a driver's register
        // sequence (which runs with interrupts off on the owner).
        let cpu: i32 = param(module_parameters::tick_cpu.value());
        if cpu >= 0 {
            if !kernel::cpu::CpuId::from_i32(cpu).is_some_and(rpmu::cpu::is_online) {
                pr_err!("tick_cpu {} is not an online CPU\n", cpu);
                return Err(EINVAL);
            }
            // SAFETY: The timer was set up by `Sim::new`; it lives as long
            // as the `Sim`, and `Drop` cancels it first. The start runs on
            // `cpu` (or fails if it went offline) and is waited for.
            let rc = unsafe { b::xgsim_hrtimer_start_on(cpu, s.timer.get(), s.period_ns) };
            if rc != 0 {
                pr_err!("cannot start the tick on CPU {}: {}\n", cpu, rc);
                return Err(Error::from_errno(rc));
            }
        } else {
            // SAFETY: The timer was set up by `Sim::new`; it lives as long
            // as the `Sim`, and `Drop` cancels it first.
            unsafe { b::rpmu_hrtimer_start(s.timer.get(), s.period_ns, true) };
        }
        this.timer = true;
        let s = &this.sim;
        pr_info!(
            "X-Gene PMU v{}: {} PMUs, irq {}, tick {} us, scale {}{}\n",
            version,
            nchildren,
            virq,
            s.period_ns / 1000,
            s.scale.load(Relaxed),
            if s.use_cache.load(Relaxed) {
                ""
            } else {
                ", no translation cache"
            }
        );
        for (name, w) in s.syscons.iter() {
            use kind::Cells;
            pr_info!(
                "discovery register {} = {:#x}\n",
                name.to_str().unwrap_or("?"),
                w.rd(0)
            );
        }
        Ok(this)
    }
}

impl Drop for XgeneSim {
    fn drop(&mut self) {
        let data = probe_data(&self.sim);
        // `rwmmio_write` first; once no CPU can be between the two probes any
        // more, `rwmmio_post_write`.
        if self.write_probe {
            // SAFETY: Registered in `init` with `data`; then waits for
            // running probes.
            unsafe {
                b::xgsim_tp_write_unregister(Some(on_write), data);
                b::xgsim_tp_sync();
            }
        }
        if self.read_probe {
            // SAFETY: As above.
            unsafe {
                b::xgsim_tp_read_unregister(Some(on_read), data);
                b::xgsim_tp_sync();
            }
        }
        if self.post_write_probe {
            // SAFETY: As above.
            unsafe {
                b::xgsim_tp_post_write_unregister(Some(on_post_write), data);
                b::xgsim_tp_sync();
            }
        }
        if self.timer {
            // SAFETY: Started in `init`; waits for a running tick.
            unsafe { b::hrtimer_cancel(self.sim.timer.get()) };
        }
        if let Some(tp) = self.vfree_probe.take() {
            // SAFETY: Registered in `init` with `data`; then waits for
            // running probes.
            unsafe {
                b::xgsim_tp_vfree_unregister(tp.0.as_ptr(), Some(on_vfree), data);
                b::xgsim_tp_sync();
            }
        }
        self.files = None;
        let s = &self.sim;
        // The next load adopts the enables from the SET/CLR registers.
        s.with_model(|m| m.set_readback(model::Readback::Mask));
        let (st, n) = s.with_model(|m| {
            (
                [m.stats.ticks, m.stats.overflows, m.stats.writes],
                m.tally.len(),
            )
        });
        pr_info!(
            "unloaded: {} ticks, {} overflows, {} register writes, {} interrupts raised, {} tally keys\n",
            st[0],
            st[1],
            st[2],
            s.raised.load(Relaxed),
            n
        );
        // The last reference to the `Sim` goes with `self.sim`: no probe,
        // timer or file uses it any more.
    }
}

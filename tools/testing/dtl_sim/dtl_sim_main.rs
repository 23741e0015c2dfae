// SPDX-License-Identifier: GPL-2.0

//! `dtl_sim`: a simulated PowerVM hypervisor that writes Dispatch Trace Log
//! entries, for testing DTL consumers under QEMU (which never writes any).
//!
//! It needs nothing from the driver under test: a kprobe on
//! `plpar_hcall_norets` sees every `H_REGISTER_VPA` call, so the simulator
//! learns which buffer a partition registers for which CPU (subfunction 2)
//! and when it is withdrawn (subfunction 6), whichever driver makes them.
//! A buffer registered before the simulator was loaded is not seen that
//! way: with `adopt` (the default), at load every CPU whose kernel DTL
//! buffer (`paca->dispatch_log`, allocated at boot under native cputime
//! accounting) is enabled (non-zero `dtl_enable_mask`) gets a session on
//! that buffer, continuing from the index the lppaca publishes (the
//! kernel's reader keeps its own index equal to it) instead of from 0. The
//! simulator assumes that buffer is the one registered, so it must be
//! loaded before another DTL user registers its own.
//!
//! A pinned hrtimer per CPU then writes entries the way PHYP does: the
//! big-endian entry into slot `idx % entries` (85 in a 4 KiB buffer; the
//! entries its registered size holds), a write barrier, then `idx + 1`
//! into the lppaca's `dtl_idx`; only kinds enabled in `dtl_enable_mask`;
//! timebase from `mftb`. Field values come from `gen.rs`, which the checker
//! shares.
//!
//! PHYP writes a vCPU's DTL only while dispatching it, when that vCPU is
//! not running: a reader on that CPU never races a write. By default each
//! CPU's timer runs on that CPU and the same holds (the reader cannot run
//! while the tick writes). With `remote`, CPU C's entries are written by a
//! timer on the next online CPU after C (with 2 CPUs, each writes the
//! other's DTL), so writes run concurrently with the readers on C: the
//! other reading of the interface, which exercises the readers' torn-entry
//! path. A remote writer meets a reader's poll only if their timers are not
//! phase-locked: `pace_us` spreads each tick's `rate` entries over the tick
//! (bursts are still written at once), and a `period_us` other than the
//! reader's makes the phases drift through each other. `publish_delay_us`
//! widens the window of an entry in flight (written, not yet published):
//! the mask is read at each entry, as PHYP does at each event, so an entry
//! begun before the partition clears the mask can still be published after
//! its reader's last poll, until the buffer is deregistered.
//!
//! Each tick, before writing, reads `local_clock()` between two timebase
//! reads; a session keeps its tightest such bracket, which lets the checker
//! compare decoded timestamps with the real clock. Each session (one
//! registration, or one adopted buffer) is logged when it ends, with the
//! steal time its entries stand for (`enqueue_to_dispatch_time +
//! ready_to_enqueue_time`, in timebase ticks, as native accounting adds
//! it), followed by its clock bracket if it saw a tick:
//!
//! `dtl_sim: cpu C session: injected N seq A..B mask M steal S published P
//! window W1..W2 hv_stolen H1..H2`
//!
//! where `P` is what the lppaca's index says was written (by the simulator
//! or, with `rate=0`, by a real hypervisor), every entry of the session has
//! a timebase in `W1..=W2`, and the stolen time of those `P` entries, as the
//! lppaca's running total (`enqueue_dispatch_tb`) counts it, is in
//! `H1..=H2` (see `Cpu::flush`),
//!
//! `dtl_sim: cpu C clock: tb T1..T2 ns N`
//!
//! and at unload, per CPU, `dtl_sim: cpu C total: injected N steal S`.
//! Nothing is logged per entry.
//!
//! Test code: not a driver. Its state lives in a pinned box the module
//! owns; the kprobe, the timers and the per-CPU start function find it
//! through the pointers the kernel hands back (no global state).

#[path = "../../../rust/rpmu/mod.rs"]
pub mod rpmu;

#[path = "gen.rs"]
pub mod gen;

mod producer;

use kernel::{
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    types::Opaque,
};
use producer::{Cpu, Params, Ring};
use rpmu::bindings as b;

module! {
    type: DtlSim,
    name: "dtl_sim",
    authors: ["rust-pmu developers"],
    description: "Simulated hypervisor DTL producer for tests",
    license: "GPL",
    params: {
        seed: u64 {
            default: 1,
            description: "Seed of the entry generator",
        },
        rate: u32 {
            default: 2,
            description: "Entries written per tick per CPU",
        },
        period_us: u32 {
            default: 1000,
            description: "Tick period in microseconds",
        },
        burst_every: u32 {
            default: 0,
            description: "Every this many ticks add a burst (0: never)",
        },
        burst_len: u32 {
            default: 120,
            description: "Entries in a burst (a 4 KiB ring holds 85)",
        },
        burst_from: u32 {
            default: 0,
            description: "Ticks of each session before its first burst",
        },
        adopt: bool {
            default: true,
            description: "Also write the kernel's boot-time DTL buffers",
        },
        remote: bool {
            default: false,
            description: "Write each CPU's DTL from a timer on another CPU",
        },
        pace_us: u32 {
            default: 0,
            description: "Busy wait between a tick's rate entries (bursts are written at once)",
        },
        publish_delay_us: u32 {
            default: 0,
            description: "Busy wait between writing a rate entry and publishing it (remote writers)",
        },
    },
}

/// Everything the module owns.
#[pin_data]
struct State {
    kp: Opaque<b::kprobe>,
    cpus: KVec<Pin<KBox<Cpu>>>,
    /// Each CPU's DTL is written from another CPU.
    remote: bool,
    /// Boot-time buffers adopted at load.
    adopted: Atomic<u32>,
}

// SAFETY: The kprobe is only touched through the kprobe API after
// registration; the CPUs are `Sync`.
unsafe impl Send for State {}
// SAFETY: As above.
unsafe impl Sync for State {}

/// kprobe pre-handler on `plpar_hcall_norets`: a registration begins a
/// session (before the hypervisor can write), a deregistration ends it.
///
/// # Safety
///
/// Called by kprobes with our `kp` (the first field of the live `State`)
/// and the probed call's registers.
unsafe extern "C" fn pre_handler(p: *mut b::kprobe, regs: *mut b::pt_regs) -> c_int {
    // SAFETY: `p` is the `kp` of a live `State` (the probe is unregistered
    // before the state is freed).
    let st = unsafe { &*kernel::container_of!(p.cast::<Opaque<b::kprobe>>(), State, kp) };
    // SAFETY: kprobes pass the registers of the probed call.
    let arg = |n| unsafe { b::rpmu_regs_arg(regs, n) } as u64;
    if arg(0) != u64::from(b::H_REGISTER_VPA) {
        return 0;
    }
    let sub = arg(1) >> b::H_VPA_FUNC_SHIFT;
    let hwcpu = arg(2) as u16;
    let Some(c) = st.cpus.iter().find(|c| c.hwcpu == hwcpu) else {
        return 0;
    };
    let mut s = c.s.lock();
    if sub == u64::from(b::H_VPA_REG_DTL) {
        // SAFETY: The partition passes the physical address of its buffer,
        // which holds its size.
        let ring = unsafe { Ring::registered(b::rpmu_va(arg(3)).cast()) };
        // Before the call: at most the total before the first entry (the
        // hypervisor writes none before it returns); `Cpu::settle_base`
        // makes it exact shortly after, on this CPU.
        c.begin(&mut s, ring, 0, (c.stolen_total(), u64::MAX));
        if online(c.cpu) {
            c.arm_base_timer();
        }
    } else if sub == u64::from(b::H_VPA_DEREG_DTL) {
        c.end(&mut s);
    }
    0
}

/// Whether `cpu` is online.
fn online(cpu: u32) -> bool {
    kernel::cpu::CpuId::from_u32(cpu).is_some_and(rpmu::cpu::is_online)
}

/// The CPU whose timer writes `cpu`'s DTL: `cpu` itself, or with `remote`
/// the next online CPU after it (cyclically; itself if it is alone).
fn writer_of(cpu: u32, ncpus: u32, remote: bool) -> u32 {
    if !remote {
        return cpu;
    }
    (1..=ncpus)
        .map(|i| (cpu + i) % ncpus)
        .find(|&o| online(o))
        .unwrap_or(cpu)
}

/// Starts, pinned to this CPU, the timers of the online CPUs it writes for.
///
/// # Safety
///
/// `info` must point at the live `State`; called through `on_each_cpu`.
unsafe extern "C" fn start_local(info: *mut c_void) {
    // SAFETY: Guaranteed by the caller.
    let st = unsafe { &*info.cast::<State>() };
    // SAFETY: Runs on each CPU via on_each_cpu.
    let this = unsafe { b::rpmu_smp_processor_id() } as u32;
    let ncpus = st.cpus.len() as u32;
    for c in st.cpus.iter() {
        if online(c.cpu) && writer_of(c.cpu, ncpus, st.remote) == this {
            c.start_timer_here();
        }
    }
}

/// Starts a session on this CPU's enabled boot-time buffer of the kernel
/// (native cputime accounting) if it has one and no registration since
/// load replaced it. Runs on the CPU itself (through `on_each_cpu`), where
/// the lppaca's index and stolen-time total are read as one snapshot.
///
/// # Safety
///
/// `info` must point at the live `State`; called through `on_each_cpu`.
unsafe extern "C" fn adopt_local(info: *mut c_void) {
    // SAFETY: Guaranteed by the caller.
    let st = unsafe { &*info.cast::<State>() };
    // SAFETY: Runs on each CPU via on_each_cpu.
    let this = unsafe { b::rpmu_smp_processor_id() } as u32;
    let Some(c) = st.cpus.iter().find(|c| c.cpu == this) else {
        return;
    };
    // SAFETY: `cpu` is a possible CPU; its paca lives forever.
    let log = unsafe { b::rpmu_dispatch_log(c.cpu as c_int) };
    if log.is_null() || c.enable_mask() == 0 {
        return;
    }
    let mut s = c.s.lock();
    if s.registered() {
        return;
    }
    let Some((idx, total)) = c.snapshot() else {
        return;
    };
    // The kernel's buffers are `DISPATCH_LOG_BYTES` (85 entries); their
    // size word, read at registration, has long been overwritten by
    // entries.
    c.begin(
        &mut s,
        Ring(log.cast(), u64::from(b::DISPATCH_LOG_BYTES) / 48),
        idx,
        (total, total),
    );
    st.adopted.fetch_add(1, Relaxed);
}

struct DtlSim {
    state: Pin<KBox<State>>,
}

impl kernel::Module for DtlSim {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let params = Params {
            seed: module_parameters::seed.value(),
            rate: u64::from(module_parameters::rate.value()),
            period_ns: u64::from(module_parameters::period_us.value()).max(50) * 1000,
            burst_every: u64::from(module_parameters::burst_every.value()),
            burst_len: u64::from(module_parameters::burst_len.value()),
            burst_from: u64::from(module_parameters::burst_from.value()),
            adopt: module_parameters::adopt.value(),
            remote: module_parameters::remote.value(),
            pace_us: u64::from(module_parameters::pace_us.value().min(200)),
            publish_delay_us: u64::from(module_parameters::publish_delay_us.value().min(200)),
        };
        let ncpus = kernel::cpu::nr_cpu_ids();
        let mut cpus = KVec::with_capacity(ncpus as usize, GFP_KERNEL)?;
        for cpu in 0..ncpus {
            cpus.push(Cpu::new(cpu, params)?, GFP_KERNEL)?;
        }
        let state = KBox::pin_init(
            pin_init!(State {
                kp: Opaque::zeroed(),
                cpus,
                remote: params.remote,
                adopted: Atomic::new(0),
            }),
            GFP_KERNEL,
        )?;
        let kp = state.kp.get();
        // SAFETY: The kprobe is pinned in the box, which outlives its
        // registration (`Drop` unregisters first); the symbol name is static.
        let rc = unsafe {
            (*kp).symbol_name = c"plpar_hcall_norets".as_char_ptr();
            (*kp).pre_handler = Some(pre_handler);
            b::register_kprobe(kp)
        };
        if rc != 0 {
            pr_err!("register_kprobe(plpar_hcall_norets) failed: {}\n", rc);
            return Err(Error::from_errno(rc));
        }
        let info = core::ptr::from_ref::<State>(&state).cast_mut().cast();
        // After the kprobe: a registration from now on replaces an adopted
        // buffer, and one already seen is not adopted over.
        if params.adopt {
            // SAFETY: `info` is the pinned state, alive during the call.
            unsafe { b::rpmu_on_each_cpu(Some(adopt_local), info) };
        }
        let adopted = state.adopted.load(Relaxed);
        // SAFETY: `info` is the pinned state, alive until `Drop`, which
        // cancels the timers started here.
        unsafe { b::rpmu_on_each_cpu(Some(start_local), info) };
        pr_info!(
            "producing {} entries every {} us per CPU (burst {} every {} ticks), seed {}, \
             {} boot-time buffers adopted, {} writers\n",
            params.rate,
            params.period_ns / 1000,
            params.burst_len,
            params.burst_every,
            params.seed,
            adopted,
            if params.remote { "remote" } else { "local" }
        );
        Ok(DtlSim { state })
    }
}

impl Drop for DtlSim {
    fn drop(&mut self) {
        // SAFETY: Registered in `init`; after this no handler runs.
        unsafe { b::unregister_kprobe(self.state.kp.get()) };
        for c in self.state.cpus.iter() {
            c.cancel_timer();
            let mut s = c.s.lock();
            c.end(&mut s);
            c.flush(&mut s);
            c.log_total(&s);
        }
    }
}

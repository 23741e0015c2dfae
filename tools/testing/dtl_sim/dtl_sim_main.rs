// SPDX-License-Identifier: GPL-2.0

//! `dtl_sim`: a simulated PowerVM hypervisor that writes Dispatch Trace Log
//! entries, for testing DTL consumers under QEMU (which never writes any).
//!
//! It needs nothing from the driver under test: a kprobe on
//! `plpar_hcall_norets` sees every `H_REGISTER_VPA` call, so the simulator
//! learns which buffer a partition registers for which CPU (subfunction 2)
//! and when it is withdrawn (subfunction 6), whichever driver makes them.
//! A pinned hrtimer on every CPU then writes entries the way PHYP does: the
//! big-endian entry into slot `idx % 85`, a write barrier, then `idx + 1`
//! into the lppaca's `dtl_idx`; only kinds enabled in `dtl_enable_mask`;
//! timebase from `mftb`. Field values come from `gen.rs`, which the checker
//! shares. Each withdrawn registration is logged with the entries written:
//!
//! `dtl_sim: cpu C session: injected N seq A..B mask M`
//!
//! Test code: not a driver. Its state lives in a pinned box the module
//! owns; the kprobe, the timers and the per-CPU start function find it
//! through the pointers the kernel hands back (no global state).

#[path = "../../../rust/rpmu/mod.rs"]
pub mod rpmu;

#[path = "gen.rs"]
pub mod gen;

use core::ptr::addr_of_mut;
use kernel::{prelude::*, types::Opaque};
use rpmu::{bindings as b, sync::RawSpinLockIrq};

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
            description: "Entries in a burst (the ring holds 85)",
        },
    },
}

const RING: u64 = 85;

/// The module parameters, copied into each CPU's producer.
#[derive(Clone, Copy)]
struct Params {
    seed: u64,
    rate: u64,
    period_ns: u64,
    burst_every: u64,
    burst_len: u64,
}

/// The partition's registered DTL buffer, as the hypervisor sees it.
struct Ring(*mut u8);

// SAFETY: The pointer is a kernel address of the partition's buffer, valid
// on any CPU; it is only dereferenced under the owning `Cpu`'s lock.
unsafe impl Send for Ring {}

/// What one CPU's producer knows; behind the CPU's lock.
struct Session {
    registered: bool,
    ring: Ring,
    idx: u64,
    seq: u64,
    session_first: u64,
    ticks: u64,
    mask_seen: u8,
}

/// One CPU's producer: its timer, and its session behind a raw spinlock
/// (the kprobe can fire under perf's raw context lock, and the timer runs
/// in hard interrupt context).
#[pin_data]
struct Cpu {
    timer: Opaque<b::hrtimer>,
    cpu: u32,
    hwcpu: u16,
    params: Params,
    #[pin]
    s: RawSpinLockIrq<Session>,
}

// SAFETY: The timer is only touched through the hrtimer API, which does its
// own locking; the session is behind a lock; the rest is read-only.
unsafe impl Send for Cpu {}
// SAFETY: As above.
unsafe impl Sync for Cpu {}

/// Everything the module owns.
#[pin_data]
struct State {
    kp: Opaque<b::kprobe>,
    cpus: KVec<Pin<KBox<Cpu>>>,
}

// SAFETY: The kprobe is only touched through the kprobe API after
// registration; the CPUs are `Sync`.
unsafe impl Send for State {}
// SAFETY: As above.
unsafe impl Sync for State {}

fn end_session(c: &Cpu, s: &mut Session) {
    if s.registered {
        pr_info!(
            "cpu {} session: injected {} seq {}..{} mask {}\n",
            c.cpu,
            s.seq - s.session_first,
            s.session_first,
            s.seq,
            s.mask_seen
        );
    }
    s.registered = false;
}

/// kprobe pre-handler on `plpar_hcall_norets`.
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
        end_session(c, &mut s);
        s.registered = true;
        // SAFETY: The partition passes the physical address of its buffer.
        s.ring = Ring(unsafe { b::rpmu_va(arg(3)) }.cast());
        s.idx = 0;
        s.session_first = s.seq;
        s.mask_seen = 0;
    } else if sub == u64::from(b::H_VPA_DEREG_DTL) {
        end_session(c, &mut s);
    }
    0
}

fn produce(c: &Cpu, s: &mut Session, n: u64) {
    if !s.registered {
        return;
    }
    // SAFETY: `cpu` is a possible CPU; its lppaca lives forever.
    let lp = unsafe { b::rpmu_lppaca_of(c.cpu as c_int) };
    // SAFETY: As above; PHYP reads the mask the partition set.
    let mask = unsafe { core::ptr::read_volatile(addr_of_mut!((*lp).dtl_enable_mask)) } & 7;
    if mask == 0 {
        return;
    }
    s.mask_seen |= mask;
    for _ in 0..n {
        let f = gen::fields(c.params.seed, c.cpu, c.hwcpu, s.seq, mask);
        // SAFETY: Reads the timebase.
        let img = gen::image(&f, unsafe { b::rpmu_mftb() });
        let slot = (s.idx % RING) as usize;
        // SAFETY: `ring` is the registered 4 KiB buffer; slot * 48 + 48 <= 4080.
        unsafe {
            let dst = s.ring.0.add(slot * 48);
            for (i, byte) in img.iter().enumerate() {
                core::ptr::write_volatile(dst.add(i), *byte);
            }
            kernel::sync::barrier::smp_mb(kernel::sync::barrier::Write);
        }
        s.idx += 1;
        s.seq += 1;
        // SAFETY: `lp` is valid; the index is published after the entry.
        unsafe { core::ptr::write_volatile(addr_of_mut!((*lp).dtl_idx), s.idx.to_be()) };
    }
}

/// Producer tick.
///
/// # Safety
///
/// `t` must be the `timer` of a live `Cpu`.
unsafe extern "C" fn tick(t: *mut b::hrtimer) -> b::hrtimer_restart {
    // SAFETY: `t` is the `timer` of a live `Cpu` (timers are cancelled
    // before the CPUs are freed).
    let c = unsafe { &*kernel::container_of!(t.cast::<Opaque<b::hrtimer>>(), Cpu, timer) };
    let p = c.params;
    {
        let mut s = c.s.lock();
        s.ticks += 1;
        let burst = if p.burst_every > 0 && s.ticks % p.burst_every == 0 {
            p.burst_len
        } else {
            0
        };
        produce(c, &mut s, p.rate + burst);
    }
    // SAFETY: Called from the timer's own callback.
    unsafe { b::rpmu_hrtimer_forward_now(t, p.period_ns) };
    b::hrtimer_restart_HRTIMER_RESTART
}

/// Starts this CPU's producer timer, pinned.
///
/// # Safety
///
/// `info` must point at the live `State`; called through `on_each_cpu`.
unsafe extern "C" fn start_local(info: *mut c_void) {
    // SAFETY: Guaranteed by the caller.
    let st = unsafe { &*info.cast::<State>() };
    // SAFETY: Runs on each CPU via on_each_cpu.
    let cpu = unsafe { b::rpmu_smp_processor_id() } as usize;
    if let Some(c) = st.cpus.get(cpu) {
        // SAFETY: Set up when the `Cpu` was created; pinned to this CPU.
        unsafe { b::rpmu_hrtimer_start(c.timer.get(), c.params.period_ns, true) };
    }
}

fn new_cpu(cpu: u32, params: Params) -> Result<Pin<KBox<Cpu>>> {
    // SAFETY: `cpu` is below nr_cpu_ids; its paca is set up at boot.
    let hwcpu = unsafe { b::rpmu_hard_smp_processor_id(cpu as c_int) } as u16;
    let c = KBox::pin_init(
        pin_init!(Cpu {
            timer: Opaque::zeroed(),
            cpu,
            hwcpu,
            params,
            s <- new_raw_spinlock_irq!(
                Session {
                    registered: false,
                    ring: Ring(core::ptr::null_mut()),
                    idx: 0,
                    seq: 0,
                    session_first: 0,
                    ticks: 0,
                    mask_seen: 0,
                },
                "dtl_sim_cpu"
            ),
        }),
        GFP_KERNEL,
    )?;
    // SAFETY: The timer is pinned in the box and not started yet.
    unsafe { b::rpmu_hrtimer_setup(c.timer.get(), Some(tick)) };
    Ok(c)
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
        };
        let ncpus = kernel::cpu::nr_cpu_ids();
        let mut cpus = KVec::with_capacity(ncpus as usize, GFP_KERNEL)?;
        for cpu in 0..ncpus {
            cpus.push(new_cpu(cpu, params)?, GFP_KERNEL)?;
        }
        let state = KBox::pin_init(
            pin_init!(State {
                kp: Opaque::zeroed(),
                cpus,
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
        // SAFETY: `info` is the pinned state, alive until `Drop`, which
        // cancels the timers started here.
        unsafe { b::rpmu_on_each_cpu(Some(start_local), info) };
        pr_info!(
            "producing {} entries every {} us per CPU (burst {} every {} ticks), seed {}\n",
            params.rate,
            params.period_ns / 1000,
            params.burst_len,
            params.burst_every,
            params.seed
        );
        Ok(DtlSim { state })
    }
}

impl Drop for DtlSim {
    fn drop(&mut self) {
        // SAFETY: Registered in `init`; after this no handler runs.
        unsafe { b::unregister_kprobe(self.state.kp.get()) };
        for c in self.state.cpus.iter() {
            // SAFETY: Set up in `new_cpu`; cancel waits for a running callback.
            unsafe { b::hrtimer_cancel(c.timer.get()) };
            let mut s = c.s.lock();
            end_session(c, &mut s);
            pr_info!("cpu {} total: injected {}\n", c.cpu, s.seq);
        }
    }
}

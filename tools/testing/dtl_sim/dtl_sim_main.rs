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

use core::ptr::addr_of_mut;
use kernel::{prelude::*, types::Opaque};

#[allow(unreachable_pub, dead_code)]
#[path = "gen.rs"]
mod gen;
#[allow(unreachable_pub, dead_code, unused_imports)]
#[path = "../../../rust/pmu/mod.rs"]
mod pmu;

use pmu::bindings as b;

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
const MAX_CPUS: usize = 64;

/// Per-CPU producer state. Touched by the CPU's own timer and by the kprobe
/// handler (which runs on the CPU making the hcall, interrupts disabled);
/// `lock` serialises them.
struct Cpu {
    timer: Opaque<b::hrtimer>,
    lock: Opaque<b::spinlock>,
    cpu: u32,
    hwcpu: u16,
    registered: bool,
    ring: *mut u8,
    idx: u64,
    seq: u64,
    session_first: u64,
    ticks: u64,
    mask_seen: u8,
}

struct State {
    cpus: [Cpu; MAX_CPUS],
    ncpus: usize,
    seed: u64,
    rate: u64,
    period_ns: u64,
    burst_every: u64,
    burst_len: u64,
    kp: Opaque<b::kprobe>,
}

// SAFETY: Access to each `Cpu` is serialised by its lock; the rest is
// read-only after init.
unsafe impl Send for State {}
// SAFETY: As above.
unsafe impl Sync for State {}

static mut STATE: *mut State = core::ptr::null_mut();

fn state() -> &'static mut State {
    // SAFETY: Set in `init` before the kprobe and timers exist, cleared in
    // `drop` after both are gone.
    unsafe { &mut *STATE }
}

fn with_cpu<R>(c: &mut Cpu, f: impl FnOnce(&mut Cpu) -> R) -> R {
    // SAFETY: The lock was initialised in `init`.
    let flags = unsafe { b::rpmu_spin_lock_irqsave(c.lock.get()) };
    let r = f(c);
    // SAFETY: Taken above.
    unsafe { b::rpmu_spin_unlock_irqrestore(c.lock.get(), flags) };
    r
}

fn end_session(c: &mut Cpu) {
    if c.registered {
        pr_info!(
            "cpu {} session: injected {} seq {}..{} mask {}\n",
            c.cpu,
            c.seq - c.session_first,
            c.session_first,
            c.seq,
            c.mask_seen
        );
    }
    c.registered = false;
}

/// kprobe pre-handler on `plpar_hcall_norets`.
///
/// # Safety
///
/// Called by kprobes with the probed call's registers.
unsafe extern "C" fn pre_handler(_p: *mut b::kprobe, regs: *mut b::pt_regs) -> c_int {
    // SAFETY: kprobes pass the registers of the probed call.
    let arg = |n| unsafe { b::rpmu_regs_arg(regs, n) } as u64;
    if arg(0) != u64::from(b::H_REGISTER_VPA) {
        return 0;
    }
    let sub = arg(1) >> b::H_VPA_FUNC_SHIFT;
    let hwcpu = arg(2) as u16;
    let st = state();
    let Some(c) = st.cpus[..st.ncpus].iter_mut().find(|c| c.hwcpu == hwcpu) else {
        return 0;
    };
    if sub == u64::from(b::H_VPA_REG_DTL) {
        let pa = arg(3);
        with_cpu(c, |c| {
            end_session(c);
            c.registered = true;
            // SAFETY: The partition passes the physical address of its buffer.
            c.ring = unsafe { b::rpmu_va(pa) }.cast();
            c.idx = 0;
            c.session_first = c.seq;
            c.mask_seen = 0;
        });
    } else if sub == u64::from(b::H_VPA_DEREG_DTL) {
        with_cpu(c, end_session);
    }
    0
}

fn produce(c: &mut Cpu, st_seed: u64, n: u64) {
    if !c.registered {
        return;
    }
    // SAFETY: `cpu` is a possible CPU; its lppaca lives forever.
    let lp = unsafe { b::rpmu_lppaca_of(c.cpu as c_int) };
    // SAFETY: As above; PHYP reads the mask the partition set.
    let mask = unsafe { core::ptr::read_volatile(addr_of_mut!((*lp).dtl_enable_mask)) } & 7;
    if mask == 0 {
        return;
    }
    c.mask_seen |= mask;
    for _ in 0..n {
        let f = gen::fields(st_seed, c.cpu, c.hwcpu, c.seq, mask);
        // SAFETY: Reads the timebase.
        let img = gen::image(&f, unsafe { b::rpmu_mftb() });
        let slot = (c.idx % RING) as usize;
        // SAFETY: `ring` is the registered 4 KiB buffer; slot * 48 + 48 <= 4080.
        unsafe {
            let dst = c.ring.add(slot * 48);
            for (i, byte) in img.iter().enumerate() {
                core::ptr::write_volatile(dst.add(i), *byte);
            }
            kernel::sync::barrier::smp_mb(kernel::sync::barrier::Write);
        }
        c.idx += 1;
        c.seq += 1;
        // SAFETY: `lp` is valid; the index is published after the entry.
        unsafe { core::ptr::write_volatile(addr_of_mut!((*lp).dtl_idx), c.idx.to_be()) };
    }
}

/// Producer tick.
///
/// # Safety
///
/// `t` must be the `timer` of one of our `Cpu`s.
unsafe extern "C" fn tick(t: *mut b::hrtimer) -> b::hrtimer_restart {
    let st = state();
    // SAFETY: `t` is the `timer` of one of our `Cpu`s.
    let c = unsafe { &mut *kernel::container_of!(t.cast::<Opaque<b::hrtimer>>(), Cpu, timer) };
    let (seed, rate, every, blen, period) =
        (st.seed, st.rate, st.burst_every, st.burst_len, st.period_ns);
    with_cpu(c, |c| {
        c.ticks += 1;
        let burst = if every > 0 && c.ticks % every == 0 {
            blen
        } else {
            0
        };
        produce(c, seed, rate + burst);
    });
    // SAFETY: Called from the timer's own callback.
    unsafe { b::rpmu_hrtimer_forward_now(t, period) };
    b::hrtimer_restart_HRTIMER_RESTART
}

/// Starts this CPU's producer timer, pinned.
///
/// # Safety
///
/// Called through `on_each_cpu` after `init` set the state up.
unsafe extern "C" fn start_local(_: *mut c_void) {
    let st = state();
    // SAFETY: Runs on each CPU via on_each_cpu.
    let cpu = unsafe { b::rpmu_smp_processor_id() } as usize;
    if cpu < st.ncpus {
        // SAFETY: Set up in `init`; pinned to this CPU.
        unsafe { b::rpmu_hrtimer_start(st.cpus[cpu].timer.get(), st.period_ns, true) };
    }
}

struct DtlSim;

impl kernel::Module for DtlSim {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Plain read of nr_cpu_ids.
        let ncpus = (unsafe { b::rpmu_nr_cpu_ids() } as usize).min(MAX_CPUS);
        let st = KBox::new(
            State {
                // SAFETY: Every field of `Cpu` is valid when zeroed (null
                // pointers, zero counters, not-yet-initialised C objects).
                cpus: unsafe { core::mem::zeroed() },
                ncpus,
                seed: module_parameters::seed.value(),
                rate: u64::from(module_parameters::rate.value()),
                period_ns: u64::from(module_parameters::period_us.value()).max(50) * 1000,
                burst_every: u64::from(module_parameters::burst_every.value()),
                burst_len: u64::from(module_parameters::burst_len.value()),
                // SAFETY: A zeroed kprobe is the documented starting point.
                kp: unsafe { core::mem::zeroed() },
            },
            GFP_KERNEL,
        )?;
        let st = KBox::into_raw(st);
        // SAFETY: Nothing else runs yet.
        unsafe {
            STATE = st;
            for (i, c) in (&mut (*st).cpus)[..ncpus].iter_mut().enumerate() {
                c.cpu = i as u32;
                c.hwcpu = b::rpmu_hard_smp_processor_id(i as c_int) as u16;
                b::rpmu_spin_lock_init(c.lock.get());
                b::rpmu_hrtimer_setup(c.timer.get(), Some(tick));
            }
            let kp = (*st).kp.get();
            (*kp).symbol_name = c"plpar_hcall_norets".as_char_ptr();
            (*kp).pre_handler = Some(pre_handler);
            let rc = b::register_kprobe(kp);
            if rc != 0 {
                pr_err!("register_kprobe(plpar_hcall_norets) failed: {}\n", rc);
                drop(KBox::from_raw(st));
                STATE = core::ptr::null_mut();
                return Err(Error::from_errno(rc));
            }
            b::rpmu_on_each_cpu(Some(start_local), core::ptr::null_mut());
        }
        let s = state();
        pr_info!(
            "producing {} entries every {} us per CPU (burst {} every {} ticks), seed {}\n",
            s.rate,
            s.period_ns / 1000,
            s.burst_len,
            s.burst_every,
            s.seed
        );
        Ok(DtlSim)
    }
}

impl Drop for DtlSim {
    fn drop(&mut self) {
        let st = state();
        // SAFETY: Registered in `init`; after this no handler runs.
        unsafe { b::unregister_kprobe(st.kp.get()) };
        for c in st.cpus[..st.ncpus].iter_mut() {
            // SAFETY: Set up in `init`; cancel waits for a running callback.
            unsafe { b::hrtimer_cancel(c.timer.get()) };
            end_session(c);
            pr_info!("cpu {} total: injected {}\n", c.cpu, c.seq);
        }
        // SAFETY: No timer or probe references the state any more.
        unsafe {
            drop(KBox::from_raw(STATE));
            STATE = core::ptr::null_mut();
        }
    }
}

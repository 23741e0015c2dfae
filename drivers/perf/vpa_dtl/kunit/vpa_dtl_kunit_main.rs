// SPDX-License-Identifier: GPL-2.0

//! `vpa_dtl_kunit`: the vpa_dtl driver's logic checked on the CPU it runs
//! on, and the pseries facilities it relies on. Test code, never part of
//! `vpa_dtl.ko`; loading it changes nothing beyond running the suites (it
//! allocates a DTL buffer but never registers it with the hypervisor).

#[path = "../../../../rust/rpmu/mod.rs"]
pub mod rpmu;

#[path = "../logic/src/lib.rs"]
pub mod logic;

use kernel::prelude::*;
use logic::selftest;

module! {
    type: VpaDtlKunit,
    name: "vpa_dtl_kunit",
    authors: ["rust-pmu developers"],
    description: "KUnit suites of the vpa_dtl PMU driver",
    license: "GPL",
}

struct VpaDtlKunit;

impl kernel::Module for VpaDtlKunit {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        Ok(Self)
    }
}

fn report(r: Result<(), selftest::Failure>) -> bool {
    if let Err(what) = r {
        pr_err!("failed case: {}\n", what);
        false
    } else {
        true
    }
}

#[kunit_tests(vpa_dtl)]
mod cases {
    use super::*;
    use crate::{
        logic::record,
        rpmu::{
            cpu::CpuId,
            pseries::{
                self,
                dtl::{
                    DtlBuffer, Mode, RingSize, DTL_ENTRIES, DTL_ENTRY_BYTES, DTL_ENTRY_WORDS,
                    DTL_LARGE_BYTES, DTL_LARGE_ENTRIES,
                },
            },
        },
    };

    #[test]
    fn ring_plan() {
        assert!(report(selftest::ring_plan()));
    }

    #[test]
    fn ring_torn() {
        assert!(report(selftest::ring_torn()));
    }

    #[test]
    fn entry_checks() {
        assert!(report(selftest::entry_checks()));
    }

    #[test]
    fn ring_runs() {
        assert!(report(selftest::ring_runs()));
    }

    #[test]
    fn aux_space() {
        assert!(report(selftest::aux()));
    }

    #[test]
    fn record_layouts() {
        assert!(report(selftest::records()));
    }

    #[test]
    fn validation_table() {
        assert!(report(selftest::validation()));
    }

    #[test]
    fn adaptive_pacing() {
        assert!(report(selftest::pacing()));
    }

    #[test]
    fn boot_tb_matches_sched_clock() {
        // The estimate the driver makes converts back to the scheduler
        // clock within its bound.
        let freq = pseries::timebase_frequency();
        let (boot, err) = record::estimate_boot_tb(pseries::clock_sample, freq, 8);
        let (tb, ns, tb2) = pseries::clock_sample();
        let ticks_now = record::ns_to_ticks(ns, freq);
        let derived = tb - boot;
        // local_clock() was read between tb and tb2.
        assert!(ticks_now + err + 1 >= derived);
        assert!(derived + (tb2 - tb) + err + 1 >= ticks_now);
        // The bound is below 1 us: a decoded timestamp is off by less.
        assert!(err < freq / 1_000_000);
    }

    #[test]
    fn dtl_load_refuses_out_of_ring_slots() {
        // Out-of-ring slots are refused, never a panic or an access beyond
        // the ring; until registered, a large ring reads as a standard one.
        let cpu = CpuId::current();
        for size in [RingSize::Standard, RingSize::Large] {
            let buf = DtlBuffer::new(cpu, size).expect("alloc");
            assert_eq!(buf.entries(), DTL_ENTRIES);
            assert!(buf.load_slot(0).is_some());
            assert!(buf.load_slot(DTL_ENTRIES - 1).is_some());
            assert!(buf.load_slot(DTL_ENTRIES).is_none());
            assert!(buf.load_slot(usize::MAX).is_none());
            assert!(buf.view().slot_words(DTL_ENTRIES - 1, 2).is_none());
            assert!(buf.view().slot_words(usize::MAX, 2).is_none());
            assert!(!buf.is_registered());
        }
        assert_eq!(DTL_ENTRY_WORDS * 8, DTL_ENTRY_BYTES);
    }

    #[test]
    fn large_dtl_registers_its_64k() {
        // QEMU takes a DTL of any size from 48 bytes: a large ring is
        // registered whole, and its last slot is readable only then.
        let cpu = CpuId::current();
        let buf = DtlBuffer::new(cpu, RingSize::Large).expect("alloc");
        if buf.mode() != Mode::Own || buf.other_user_active() {
            // The kernel's ring (native accounting) or another DTL user.
            return;
        }
        assert_eq!(buf.capacity_bytes(), DTL_LARGE_BYTES);
        let start = buf.register().ok();
        let entries = buf.entries();
        let last = buf.load_slot(DTL_LARGE_ENTRIES - 1).is_some();
        let beyond = buf.load_slot(DTL_LARGE_ENTRIES).is_some();
        let whole = buf.view().slot_words(0, DTL_LARGE_ENTRIES).is_some();
        let unregistered = buf.unregister().is_ok();
        assert!(unregistered);
        assert_eq!(start.map(|s| s.entries), Some(DTL_LARGE_ENTRIES));
        assert_eq!(entries, DTL_LARGE_ENTRIES);
        assert!(last && whole && !beyond);
    }

    #[test]
    fn dtl_buffer_is_exclusive_per_cpu() {
        // One buffer per CPU: a second is refused until the first is gone.
        let cpu = CpuId::current();
        let first = DtlBuffer::new(cpu, RingSize::Standard).expect("alloc");
        assert_eq!(DtlBuffer::new(cpu, RingSize::Standard).err(), Some(EBUSY));
        drop(first);
        assert!(DtlBuffer::new(cpu, RingSize::Standard).is_ok());
    }
}

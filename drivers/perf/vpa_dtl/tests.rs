// SPDX-License-Identifier: GPL-2.0

//! KUnit: the logic the driver runs, checked on the CPU it runs on, and the
//! pseries facilities it relies on.

use crate::logic::selftest;
use kernel::prelude::*;

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

    #[test]
    fn ring_plan() {
        assert!(report(selftest::ring_plan()));
    }

    #[test]
    fn ring_torn() {
        assert!(report(selftest::ring_torn()));
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
    fn boot_tb_matches_sched_clock() {
        // The estimate converts back to the scheduler clock within its bound.
        let freq = crate::pseries::timebase_frequency();
        let (boot, err) = crate::estimate_boot_tb(freq);
        let tb = crate::pseries::timebase();
        let ns = crate::pseries::local_clock_ns();
        let tb2 = crate::pseries::timebase();
        let ticks_now = crate::logic::record::ns_to_ticks(ns, freq);
        let derived = tb - boot;
        // local_clock() was read between tb and tb2.
        assert!(ticks_now + err + 1 >= derived);
        assert!(derived + (tb2 - tb) + err + 1 >= ticks_now);
        // The bound is below 1 ms.
        assert!(err < freq / 1000);
    }

    #[test]
    fn dtl_register_roundtrip() {
        // Registration resets the index and deregistration leaves the buffer
        // free; done on a CPU no event can own during the test run.
        let buf = crate::pseries::DtlBuffer::new(0).expect("alloc");
        assert!(!buf.is_registered());
        assert!(buf.register().is_ok());
        assert!(buf.is_registered());
        assert_eq!(buf.published_index(), 0);
        assert!(buf.unregister().is_ok());
        assert!(!buf.is_registered());
    }
}

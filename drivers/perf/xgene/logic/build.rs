// SPDX-License-Identifier: GPL-2.0

//! Generates the event tables from drivers/perf/xgene/events/*.json with the
//! same generator the kernel build runs (scripts/xgene_events.py), into
//! OUT_DIR, and points `RPMU_GEN_DIR` there: src/events.rs includes
//! `$RPMU_GEN_DIR/xgene_events_generated.rs`, as it does in the kernel build,
//! where rust/rpmu.mk sets `RPMU_GEN_DIR` to the module's build directory.

use std::{env, path::PathBuf, process::Command};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let top = manifest.join("../../../..");
    let script = top.join("scripts/xgene_events.py");
    let events = top.join("drivers/perf/xgene/events");
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let file = out.join("xgene_events_generated.rs");

    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-changed={}", events.display());
    for entry in std::fs::read_dir(&events).expect("drivers/perf/xgene/events") {
        println!("cargo:rerun-if-changed={}", entry.unwrap().path().display());
    }

    let status = Command::new("python3")
        .arg(&script)
        .arg("rust")
        .arg(&file)
        .status()
        .expect("running python3 scripts/xgene_events.py");
    assert!(status.success(), "scripts/xgene_events.py rust failed");
    println!("cargo:rustc-env=RPMU_GEN_DIR={}", out.display());
}

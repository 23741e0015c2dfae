// SPDX-License-Identifier: GPL-2.0

//! A QEMU TCG plugin that counts the guest instructions executed inside
//! hrtimer callbacks, per callback and per translation block, for
//! `make bench`'s profiles (`scripts/bench.sh`, `BENCH_PROFILE`).
//!
//! The kernel calls each hrtimer callback from one indirect call in
//! `__hrtimer_run_queues()` (`call=`, the address of its `bctrl`) and
//! returns to the instruction after it (`ret=`). A callback's window opens
//! at the first block executed after the call, whose address is the
//! callback's, and closes when the block at `ret` runs; every block in
//! between counts towards that callback, nested calls included. The
//! kernel's hrtimer tracepoints are outside the window, so these are the
//! callback's own instructions, what the drivers cost without the
//! instrument of `make bench`'s tracepoints.
//!
//! Which CPU runs a block is read from the guest at run time: its `r13`,
//! which the powerpc kernel keeps pointing at the CPU's PACA, so it names
//! the CPU inside the kernel (user space uses `r13` as its thread pointer,
//! a user address, which no PACA has). The `vcpu_index` QEMU passes to a
//! block's callback cannot be used: with `-icount` all vCPUs run in one
//! thread, and QEMU 10 then compiles into each block the index of the vCPU
//! that translated it (`gen_cpu_index()` in `accel/tcg/plugin-gen.c`), not
//! of the one running it, which with more than one vCPU files a callback's
//! blocks under other CPUs. The register is read only while some window is
//! open or about to open, and at the calls.
//!
//! Phases: with `mark=ADDR`, each execution of the block at `ADDR` (a
//! system call the guest makes between two measurements, say
//! `sys_sethostname`) starts a new phase, counted from 0, and the figures
//! are kept per phase.
//!
//! Arguments: `call=ADDR,ret=ADDR,out=FILE[,mark=ADDR]` (hex addresses).
//! At exit it writes `C phase entry calls insns` per callback and `T phase
//! entry block execs insns` per translation block inside the windows,
//! addresses in hex; `report.py` names them.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::io::Write;
use std::sync::Mutex;

type PluginId = u64;

#[repr(C)]
/// `qemu_info_t`, of which the plugin reads nothing.
pub struct Info {
    target_name: *const c_char,
    version_min: c_int,
    version_cur: c_int,
}

/// A translation block's start, size and whether it ends with the call.
struct Block {
    vaddr: u64,
    insns: u64,
    is_call: bool,
}

extern "C" {
    fn qemu_plugin_register_vcpu_tb_trans_cb(
        id: PluginId,
        cb: extern "C" fn(PluginId, *mut c_void),
    );
    fn qemu_plugin_register_vcpu_tb_exec_cb(
        tb: *mut c_void,
        cb: extern "C" fn(c_uint, *mut c_void),
        flags: c_int,
        userdata: *mut c_void,
    );
    fn qemu_plugin_register_atexit_cb(
        id: PluginId,
        cb: extern "C" fn(PluginId, *mut c_void),
        userdata: *mut c_void,
    );
    fn qemu_plugin_tb_n_insns(tb: *const c_void) -> usize;
    fn qemu_plugin_tb_vaddr(tb: *const c_void) -> u64;
    fn qemu_plugin_tb_get_insn(tb: *const c_void, idx: usize) -> *mut c_void;
    fn qemu_plugin_insn_vaddr(insn: *const c_void) -> u64;
    fn qemu_plugin_register_vcpu_init_cb(id: PluginId, cb: extern "C" fn(PluginId, c_uint));
    fn qemu_plugin_get_registers() -> *mut GArray;
    fn qemu_plugin_read_register(handle: *mut c_void, buf: *mut GByteArray) -> c_int;
    fn g_array_free(array: *mut GArray, free_segment: c_int) -> *mut c_char;
    fn g_byte_array_new() -> *mut GByteArray;
    fn g_byte_array_set_size(array: *mut GByteArray, len: c_uint) -> *mut GByteArray;
}

/// GLib's `GArray` and `GByteArray` (their public fields).
#[repr(C)]
pub struct GArray {
    data: *mut c_char,
    len: c_uint,
}

/// See [`GArray`].
#[repr(C)]
pub struct GByteArray {
    data: *mut u8,
    len: c_uint,
}

/// `qemu_plugin_reg_descriptor`.
#[repr(C)]
struct RegDescriptor {
    handle: *mut c_void,
    name: *const c_char,
    feature: *const c_char,
}

/// `QEMU_PLUGIN_CB_R_REGS`: the callback reads registers, so QEMU writes
/// them back before it.
const CB_R_REGS: c_int = 1;

/// The plugin API level this plugin is written against.
#[no_mangle]
pub static qemu_plugin_version: c_int = 2;

#[derive(Default)]
struct Vcpu {
    /// The last block ended with the call: the next one is a callback.
    expect_entry: bool,
    /// The callback running, if any.
    entry: Option<u64>,
}

#[derive(Default)]
struct State {
    call: u64,
    ret: u64,
    mark: u64,
    out: String,
    phase: u32,
    /// `r13`'s register handle and a buffer to read it into (addresses).
    r13: usize,
    buf: usize,
    /// Per CPU (its `r13`).
    vcpus: HashMap<u64, Vcpu>,
    /// CPUs with a window open or about to open.
    active: usize,
    /// Per phase and callback: calls, instructions.
    calls: HashMap<(u32, u64), (u64, u64)>,
    /// Per phase, callback and block: executions, instructions.
    blocks: HashMap<(u32, u64, u64), (u64, u64)>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// The guest's `r13` on the CPU running this callback.
fn read_r13(s: &State) -> Option<u64> {
    let buf = s.buf as *mut GByteArray;
    // SAFETY: `buf` is the `GByteArray` made at install, used only under
    // the state's lock; `r13` is a handle QEMU gave for this CPU type, and
    // the block's callback was registered with `QEMU_PLUGIN_CB_R_REGS`.
    unsafe {
        g_byte_array_set_size(buf, 0);
        let n = qemu_plugin_read_register(s.r13 as *mut c_void, buf);
        let b = &*buf;
        if n < 8 || b.len < 8 {
            return None;
        }
        let mut v = [0u8; 8];
        v.copy_from_slice(std::slice::from_raw_parts(b.data, 8));
        Some(u64::from_ne_bytes(v))
    }
}

extern "C" fn exec(_vcpu_index: c_uint, ud: *mut c_void) {
    // SAFETY: `ud` is a `Block` leaked at translation, never freed.
    let b = unsafe { &*(ud as *const Block) };
    let mut g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(s) = g.as_mut() else { return };
    if b.vaddr == s.mark {
        s.phase += 1;
    }
    if s.active == 0 && !b.is_call {
        return;
    }
    let Some(cpu) = read_r13(s) else { return };
    let ph = s.phase;
    let v = s.vcpus.entry(cpu).or_default();
    let was_active = v.expect_entry || v.entry.is_some();
    if std::mem::take(&mut v.expect_entry) {
        v.entry = Some(b.vaddr);
        s.calls.entry((ph, b.vaddr)).or_default().0 += 1;
    }
    if let Some(entry) = v.entry {
        if b.vaddr == s.ret {
            v.entry = None;
        } else {
            s.calls.entry((ph, entry)).or_default().1 += b.insns;
            let t = s.blocks.entry((ph, entry, b.vaddr)).or_default();
            t.0 += 1;
            t.1 += b.insns;
        }
    }
    if b.is_call {
        v.expect_entry = true;
    }
    let now_active = v.expect_entry || v.entry.is_some();
    match (was_active, now_active) {
        (false, true) => s.active += 1,
        (true, false) => s.active = s.active.saturating_sub(1),
        _ => {}
    }
}

/// Finds `r13` among the first vCPU's registers.
extern "C" fn vcpu_init(_id: PluginId, _vcpu: c_uint) {
    let mut g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(s) = g.as_mut() else { return };
    if s.r13 != 0 {
        return;
    }
    // SAFETY: Called in a vCPU's context, as `qemu_plugin_get_registers()`
    // requires; the array holds `qemu_plugin_reg_descriptor`s and is freed
    // here.
    unsafe {
        let regs = qemu_plugin_get_registers();
        if regs.is_null() {
            return;
        }
        let d =
            std::slice::from_raw_parts((*regs).data as *const RegDescriptor, (*regs).len as usize);
        if let Some(r) = d
            .iter()
            .find(|r| !r.name.is_null() && CStr::from_ptr(r.name).to_bytes() == b"r13")
        {
            s.r13 = r.handle as usize;
        }
        g_array_free(regs, 1);
    }
    if s.r13 == 0 {
        eprintln!("insn_profile: the guest CPU has no register r13 (powerpc only)");
    }
}

extern "C" fn translate(_id: PluginId, tb: *mut c_void) {
    let call = STATE.lock().ok().and_then(|g| g.as_ref().map(|s| s.call));
    // SAFETY: `tb` is the block QEMU is translating, valid in this callback.
    let (vaddr, n, last) = unsafe {
        let n = qemu_plugin_tb_n_insns(tb);
        let last = match n.checked_sub(1) {
            Some(i) => qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i)),
            None => u64::MAX,
        };
        (qemu_plugin_tb_vaddr(tb), n as u64, last)
    };
    let b = Box::into_raw(Box::new(Block {
        vaddr,
        insns: n,
        is_call: Some(last) == call,
    }));
    // SAFETY: `tb` as above; the block is leaked, so it outlives every
    // execution of the translation.
    unsafe { qemu_plugin_register_vcpu_tb_exec_cb(tb, exec, CB_R_REGS, b.cast()) };
}

extern "C" fn at_exit(_id: PluginId, _ud: *mut c_void) {
    let g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(s) = g.as_ref() else { return };
    let Ok(mut f) = std::fs::File::create(&s.out) else {
        eprintln!("insn_profile: cannot write {}", s.out);
        return;
    };
    let mut lines = Vec::new();
    for ((ph, e), (c, i)) in &s.calls {
        lines.push(format!("C {ph} {e:x} {c} {i}"));
    }
    for ((ph, e, b), (x, i)) in &s.blocks {
        lines.push(format!("T {ph} {e:x} {b:x} {x} {i}"));
    }
    lines.sort();
    let _ = f.write_all((lines.join("\n") + "\n").as_bytes());
}

fn hex(v: &str) -> Option<u64> {
    u64::from_str_radix(v.trim_start_matches("0x"), 16).ok()
}

/// # Safety
///
/// Called by QEMU with `argc` argument strings at `argv`.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: PluginId,
    _info: *const Info,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    let mut s = State::default();
    for i in 0..argc.max(0) as usize {
        // SAFETY: QEMU passes `argc` NUL-terminated strings.
        let a = unsafe { CStr::from_ptr(*argv.add(i)) }.to_string_lossy();
        match a.split_once('=') {
            Some(("call", v)) => s.call = hex(v).unwrap_or(0),
            Some(("ret", v)) => s.ret = hex(v).unwrap_or(0),
            Some(("mark", v)) => s.mark = hex(v).unwrap_or(0),
            Some(("out", v)) => s.out = v.to_string(),
            _ => {
                eprintln!("insn_profile: unknown argument {a}");
                return 1;
            }
        }
    }
    if s.call == 0 || s.ret == 0 || s.out.is_empty() {
        eprintln!("insn_profile: needs call=ADDR,ret=ADDR,out=FILE[,mark=ADDR]");
        return 1;
    }
    // SAFETY: A GLib allocation, kept for the plugin's life.
    s.buf = unsafe { g_byte_array_new() } as usize;
    *STATE.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
    // SAFETY: Registering callbacks with the id QEMU gave.
    unsafe {
        qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
        qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
        qemu_plugin_register_atexit_cb(id, at_exit, std::ptr::null_mut());
    }
    0
}

// SPDX-License-Identifier: GPL-2.0

//! The perf ABI this fuzzer speaks (include/uapi/linux/perf_event.h, 7.x)
//! and thin system-call wrappers that return the errno.

use std::ffi::CString;

/// `struct perf_event_attr`, `PERF_ATTR_SIZE_VER9` (144 bytes).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct Attr {
    pub type_: u32,
    pub size: u32,
    pub config: u64,
    pub sample_period: u64,
    pub sample_type: u64,
    pub read_format: u64,
    pub flags: u64,
    pub wakeup_events: u32,
    pub bp_type: u32,
    pub config1: u64,
    pub config2: u64,
    pub branch_sample_type: u64,
    pub sample_regs_user: u64,
    pub sample_stack_user: u32,
    pub clockid: i32,
    pub sample_regs_intr: u64,
    pub aux_watermark: u32,
    pub sample_max_stack: u16,
    pub reserved_2: u16,
    pub aux_sample_size: u32,
    pub aux_action: u32,
    pub sig_data: u64,
    pub config3: u64,
    pub config4: u64,
}

pub const ATTR_SIZE: u32 = 144;
const _: () = assert!(std::mem::size_of::<Attr>() == ATTR_SIZE as usize);

/// Bits of `Attr::flags`, in declaration order of the bitfield.
pub mod flag {
    pub const DISABLED: u64 = 1 << 0;
    pub const INHERIT: u64 = 1 << 1;
    pub const PINNED: u64 = 1 << 2;
    pub const EXCLUSIVE: u64 = 1 << 3;
    /// exclude_user, _kernel, _hv, _idle.
    pub const EXCLUDE_UKHI: [u64; 4] = [1 << 4, 1 << 5, 1 << 6, 1 << 7];
    pub const FREQ: u64 = 1 << 10;
    pub const ENABLE_ON_EXEC: u64 = 1 << 12;
    pub const WATERMARK: u64 = 1 << 14;
    pub const SAMPLE_ID_ALL: u64 = 1 << 18;
    /// exclude_host, exclude_guest.
    pub const EXCLUDE_HG: [u64; 2] = [1 << 19, 1 << 20];
    pub const USE_CLOCKID: u64 = 1 << 25;
    pub const WRITE_BACKWARD: u64 = 1 << 27;
    pub const AUX_OUTPUT: u64 = 1 << 31;
    pub const INHERIT_THREAD: u64 = 1 << 35;
    pub const REMOVE_ON_EXEC: u64 = 1 << 36;
    /// A forced SIGTRAP would end the fuzzer itself: never set.
    pub const SIGTRAP: u64 = 1 << 37;
}

pub const TYPE_SOFTWARE: u32 = 1;
pub const SW_CPU_CLOCK: u64 = 0;
pub const SW_DUMMY: u64 = 9;

/// `PERF_FORMAT_*`.
pub mod fmt {
    pub const TOTAL_TIME_ENABLED: u64 = 1;
    pub const TOTAL_TIME_RUNNING: u64 = 2;
    pub const ID: u64 = 4;
    pub const GROUP: u64 = 8;
    pub const LOST: u64 = 16;
    pub const ALL: u64 = 31;
}

/// `PERF_SAMPLE_*` bits any PMU's samples may carry.
pub const SAMPLE_SAFE: [u64; 7] = [1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 7, 1 << 10, 1 << 16];

/// The user page fields the fuzzer touches (`struct perf_event_mmap_page`).
pub mod page {
    pub const DATA_HEAD: usize = 1024;
    pub const DATA_TAIL: usize = 1032;
    pub const AUX_HEAD: usize = 1056;
    pub const AUX_TAIL: usize = 1064;
    pub const AUX_OFFSET: usize = 1072;
    pub const AUX_SIZE: usize = 1080;
}

#[cfg(any(target_arch = "powerpc64", target_arch = "powerpc"))]
const fn ioc(dir: u64, nr: u64, size: u64) -> u64 {
    // powerpc: 3 direction bits (none 1, read 2, write 4), 13 size bits.
    let d = match dir {
        0 => 1,
        1 => 4,
        2 => 2,
        _ => 6,
    };
    (d << 29) | (size << 16) | ((b'$' as u64) << 8) | nr
}

#[cfg(not(any(target_arch = "powerpc64", target_arch = "powerpc")))]
const fn ioc(dir: u64, nr: u64, size: u64) -> u64 {
    // asm-generic: 2 direction bits (none 0, write 1, read 2), 14 size bits.
    (dir << 30) | (size << 16) | ((b'$' as u64) << 8) | nr
}

/// `PERF_EVENT_IOC_*` (0 none, 1 write, 2 read).
pub mod ioctl {
    use super::ioc;
    pub const ENABLE: u64 = ioc(0, 0, 0);
    pub const DISABLE: u64 = ioc(0, 1, 0);
    pub const REFRESH: u64 = ioc(0, 2, 0);
    pub const RESET: u64 = ioc(0, 3, 0);
    pub const PERIOD: u64 = ioc(1, 4, 8);
    pub const SET_OUTPUT: u64 = ioc(0, 5, 0);
    pub const ID: u64 = ioc(2, 7, 8);
    pub const PAUSE_OUTPUT: u64 = ioc(1, 9, 4);
    pub const MODIFY_ATTRIBUTES: u64 = ioc(1, 11, 8);
    pub const FLAG_GROUP: u64 = 1;
}

pub type Res = Result<i64, i32>;

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn ret(r: i64) -> Res {
    if r < 0 {
        Err(errno())
    } else {
        Ok(r)
    }
}

pub fn perf_event_open(attr: &Attr, pid: i32, cpu: i32, group: i32, flags: u64) -> Res {
    // SAFETY: `attr` points to a live `Attr` of `attr.size` bytes or more.
    ret(unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            attr as *const Attr,
            pid,
            cpu,
            group,
            flags,
        )
    })
}

/// An ioctl whose argument is a plain integer.
pub fn ioctl_int(fd: i32, req: u64, arg: u64) -> Res {
    // SAFETY: the argument is passed by value.
    ret(unsafe { libc::ioctl(fd, req as _, arg as libc::c_ulong) } as i64)
}

/// An ioctl whose argument points to `T`.
pub fn ioctl_ptr<T>(fd: i32, req: u64, arg: &mut T) -> Res {
    // SAFETY: `arg` is a valid, exclusive pointer for the call.
    ret(unsafe { libc::ioctl(fd, req as _, arg as *mut T) } as i64)
}

pub fn read(fd: i32, buf: &mut [u8]) -> Res {
    // SAFETY: `buf` is writable for its length.
    ret(unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } as i64)
}

pub fn close(fd: i32) {
    // SAFETY: closing a descriptor this program owns.
    unsafe { libc::close(fd) };
}

/// A shared mapping of `len` bytes of `fd` at byte offset `off`.
pub fn mmap(fd: i32, len: usize, off: usize, write: bool) -> Result<usize, i32> {
    let prot = libc::PROT_READ | if write { libc::PROT_WRITE } else { 0 };
    // SAFETY: a new mapping chosen by the kernel; nothing aliases it yet.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            prot,
            libc::MAP_SHARED,
            fd,
            off as _,
        )
    };
    if p == libc::MAP_FAILED {
        Err(errno())
    } else {
        Ok(p as usize)
    }
}

pub fn munmap(addr: usize, len: usize) {
    // SAFETY: `addr..addr+len` is a mapping this program made and still holds.
    unsafe { libc::munmap(addr as *mut libc::c_void, len) };
}

/// Volatile access to a u64 of a mapped user page.
pub fn peek(addr: usize, off: usize) -> u64 {
    // SAFETY: callers pass a live mapping of at least one page and an
    // 8-byte aligned offset inside it.
    unsafe { std::ptr::read_volatile((addr + off) as *const u64) }
}

pub fn poke(addr: usize, off: usize, v: u64) {
    // SAFETY: as for `peek`, on a writable mapping.
    unsafe { std::ptr::write_volatile((addr + off) as *mut u64, v) };
}

pub fn fork() -> i32 {
    // SAFETY: the program is single-threaded.
    unsafe { libc::fork() }
}

pub fn exit_now(code: i32) -> ! {
    // SAFETY: ends the (child) process without running the parent's destructors.
    unsafe { libc::_exit(code) }
}

/// Waits for `pid`; returns its exit code (128 + signal if killed).
pub fn wait(pid: i32) -> i32 {
    let mut st = 0;
    // SAFETY: `st` is a valid out pointer.
    unsafe { libc::waitpid(pid, &mut st, 0) };
    if libc::WIFEXITED(st) {
        libc::WEXITSTATUS(st)
    } else {
        128 + libc::WTERMSIG(st)
    }
}

pub fn delete_module(name: &str) -> Res {
    let n = CString::new(name).unwrap();
    // SAFETY: a NUL-terminated name.
    ret(unsafe { libc::syscall(libc::SYS_delete_module, n.as_ptr(), libc::O_NONBLOCK) })
}

pub fn finit_module(path: &str, params: &str) -> Res {
    let f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Err(e.raw_os_error().unwrap_or(libc::ENOENT)),
    };
    let p = CString::new(params).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: an open file and a NUL-terminated parameter string.
    ret(unsafe { libc::syscall(libc::SYS_finit_module, f.as_raw_fd(), p.as_ptr(), 0) })
}

pub fn page_size() -> usize {
    // SAFETY: no arguments to check.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// The errno's symbolic name, for the log.
pub fn errname(e: i32) -> &'static str {
    match e {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::E2BIG => "E2BIG",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::EMFILE => "EMFILE",
        libc::ENOTTY => "ENOTTY",
        libc::ENOSPC => "ENOSPC",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        _ => "E?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_numbers_match_the_uapi() {
        // asm-generic values (x86_64, arm64), as perf's own headers give them.
        #[cfg(not(any(target_arch = "powerpc64", target_arch = "powerpc")))]
        {
            assert_eq!(ioctl::ENABLE, 0x2400);
            assert_eq!(ioctl::PERIOD, 0x4008_2404);
            assert_eq!(ioctl::ID, 0x8008_2407);
            assert_eq!(ioctl::PAUSE_OUTPUT, 0x4004_2409);
            assert_eq!(ioctl::MODIFY_ATTRIBUTES, 0x4008_240b);
        }
    }

    #[test]
    fn attr_offsets() {
        let a = Attr::default();
        let base = &a as *const Attr as usize;
        assert_eq!(&a.config1 as *const u64 as usize - base, 56);
        assert_eq!(&a.aux_watermark as *const u32 as usize - base, 104);
        assert_eq!(&a.config3 as *const u64 as usize - base, 128);
    }
}

// SPDX-License-Identifier: GPL-2.0

//! debugfs `xgene_sim/`: `tally` (write 0 or `reset` to reset it), `pmus`,
//! `stats`, `scale`, `inject` (faults for the drivers' interrupt handling:
//! `PMU set|hold BITS`, `PMU line`, `PMU off`), and one file per behaviour
//! the documentation does not settle: `readback` (`mask` or `zero`: what
//! the enable SET/CLR registers read), `step` (`tick` or `continuous`: when
//! counters advance), `pmamr` (`field` or `full`: how many agents an
//! L3C/MCB PMAMR0 selects). Each file holds a reference to the simulator.

use crate::{
    model::{Choice, Fault, Model, Outcome, PmamrWidth, Readback, Step},
    sim::Sim,
    window::Window,
};
use kernel::{
    debugfs::{Dir, File},
    fmt,
    prelude::*,
    sync::{atomic::Relaxed, Arc},
    uaccess::UserSliceReader,
};

fn read_user(r: &mut UserSliceReader, buf: &mut [u8]) -> Result<usize> {
    let n = r.len().min(buf.len());
    r.read_slice(&mut buf[..n])?;
    Ok(n)
}

fn tally_show(s: &Arc<Sim>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    s.with_model(|m| m.fmt_tally(f))
}

fn tally_reset(s: &Arc<Sim>, r: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 16];
    let n = read_user(r, &mut buf)?;
    match core::str::from_utf8(&buf[..n]).map(str::trim) {
        Ok("" | "0" | "reset") => {
            s.with_model(|m| m.reset_tally());
            Ok(())
        }
        _ => {
            pr_warn!("tally: write 0 or \"reset\" to reset it\n");
            Err(EINVAL)
        }
    }
}

fn pmus_show(s: &Arc<Sim>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    s.with_model(|m| m.fmt_pmus(f))
}

fn stats_show(s: &Arc<Sim>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    s.fmt_stats(f)
}

fn scale_show(s: &Arc<Sim>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(f, "{}", s.scale.load(Relaxed))
}

fn scale_set(s: &Arc<Sim>, r: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 24];
    let n = read_user(r, &mut buf)?;
    let v = core::str::from_utf8(&buf[..n])
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    match v {
        Some(v) if v > 0 => {
            s.scale.store(v, Relaxed);
            Ok(())
        }
        _ => {
            pr_warn!("scale: expected a positive integer\n");
            Err(EINVAL)
        }
    }
}

fn inject_show(s: &Arc<Sim>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    s.with_model(|m| {
        for c in m.children.iter() {
            writeln!(
                f,
                "{}{} hold {:#x} line {}",
                c.kind.prefix(),
                c.index,
                c.hold,
                u32::from(c.hold_line)
            )?;
        }
        Ok(())
    })
}

fn inject_set(s: &Arc<Sim>, r: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 48];
    let n = read_user(r, &mut buf)?;
    let text = core::str::from_utf8(&buf[..n]).map_err(|_| EINVAL)?;
    let mut words = text.split_whitespace();
    let (Some(pmu), Some(op)) = (words.next(), words.next()) else {
        pr_warn!("inject: PMU set|hold BITS, PMU line or PMU off\n");
        return Err(EINVAL);
    };
    let arg = words.next();
    let fault = Fault::parse(op, arg)
        .filter(|_| words.next().is_none())
        .ok_or(EINVAL)
        .inspect_err(|_| pr_warn!("inject: PMU set|hold BITS (1-0xf), PMU line or PMU off\n"))?;
    let edge = s.with_model(|m| {
        let ci = m.child_by_name(pmu)?;
        Some(m.inject(ci, fault))
    });
    match edge {
        None => {
            pr_warn!("inject: no PMU {}\n", pmu);
            Err(ENOENT)
        }
        Some(edge) => {
            if edge {
                s.raise();
            }
            Ok(())
        }
    }
}

/// A model behaviour as a debugfs file of its name.
trait ChoiceFile: Choice {
    const FILE: &'static CStr;
    fn get(m: &Model<Window>) -> Self;
    fn set(s: &Sim, v: Self);
}

impl ChoiceFile for Readback {
    const FILE: &'static CStr = c"readback";
    fn get(m: &Model<Window>) -> Self {
        m.readback
    }
    fn set(s: &Sim, v: Self) {
        s.with_model(|m| m.set_readback(v));
    }
}

impl ChoiceFile for Step {
    const FILE: &'static CStr = c"step";
    fn get(m: &Model<Window>) -> Self {
        m.step
    }
    fn set(s: &Sim, v: Self) {
        s.with_model(|m| m.step = v);
        s.continuous.store(v == Step::Continuous, Relaxed);
    }
}

impl ChoiceFile for PmamrWidth {
    const FILE: &'static CStr = c"pmamr";
    fn get(m: &Model<Window>) -> Self {
        m.pmamr
    }
    fn set(s: &Sim, v: Self) {
        let mut out = Outcome::default();
        s.with_model(|m| m.set_pmamr(v, &mut out));
        s.log(&out);
    }
}

fn choice_show<T: ChoiceFile>(s: &Arc<Sim>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(f, "{}", s.with_model(|m| T::get(m).name()))
}

fn choice_set<T: ChoiceFile>(s: &Arc<Sim>, r: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 16];
    let n = read_user(r, &mut buf)?;
    let Some(want) = core::str::from_utf8(&buf[..n])
        .ok()
        .and_then(|w| T::parse(w.trim()))
    else {
        pr_warn!("{}: write one of:\n", T::FILE.to_str().unwrap_or("?"));
        for (_, name) in T::ALL {
            pr_warn!("  {}\n", name);
        }
        return Err(EINVAL);
    };
    T::set(s, want);
    Ok(())
}

fn choice_file<T: ChoiceFile>(dir: &Dir, s: &Arc<Sim>) -> Result<Pin<KBox<File<Arc<Sim>>>>> {
    KBox::pin_init(
        dir.read_write_callback_file(T::FILE, s.clone(), &choice_show::<T>, &choice_set::<T>),
        GFP_KERNEL,
    )
}

/// The files; removed on drop.
pub(crate) struct Files {
    _tally: Pin<KBox<File<Arc<Sim>>>>,
    _pmus: Pin<KBox<File<Arc<Sim>>>>,
    _stats: Pin<KBox<File<Arc<Sim>>>>,
    _scale: Pin<KBox<File<Arc<Sim>>>>,
    _inject: Pin<KBox<File<Arc<Sim>>>>,
    _choices: [Pin<KBox<File<Arc<Sim>>>>; 3],
    _dir: Dir,
}

/// Creates `xgene_sim/` and its files.
pub(crate) fn make_files(s: &Arc<Sim>) -> Result<Files> {
    let dir = Dir::new(c"xgene_sim");
    Ok(Files {
        _tally: KBox::pin_init(
            dir.read_write_callback_file(c"tally", s.clone(), &tally_show, &tally_reset),
            GFP_KERNEL,
        )?,
        _pmus: KBox::pin_init(
            dir.read_callback_file(c"pmus", s.clone(), &pmus_show),
            GFP_KERNEL,
        )?,
        _stats: KBox::pin_init(
            dir.read_callback_file(c"stats", s.clone(), &stats_show),
            GFP_KERNEL,
        )?,
        _scale: KBox::pin_init(
            dir.read_write_callback_file(c"scale", s.clone(), &scale_show, &scale_set),
            GFP_KERNEL,
        )?,
        _inject: KBox::pin_init(
            dir.read_write_callback_file(c"inject", s.clone(), &inject_show, &inject_set),
            GFP_KERNEL,
        )?,
        _choices: [
            choice_file::<Readback>(&dir, s)?,
            choice_file::<Step>(&dir, s)?,
            choice_file::<PmamrWidth>(&dir, s)?,
        ],
        _dir: dir,
    })
}

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make series: the upstream patch series, generated from this repository.

    series.py CLEAN_SRC OUT_DIR

CLEAN_SRC is an unpatched kernel source (the pinned 7.3.4). The series is
built as commits in OUT_DIR/git, a repository that holds only the files the
series touches, at their CLEAN_SRC content first: its patches are the ones a
full tree would give. `git format-patch` writes them, with the cover letter
(scripts/series/cover-letter.txt), to OUT_DIR.

Every file of the series comes from this repository: patches/*.patch and
patches/perf/*.patch as they are, and the Rust sources through intree.py.
The commit messages of the Rust patches are in scripts/series/messages.txt.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
import intree  # noqa: E402

TOP = Path(__file__).resolve().parents[2]

# The library: (repository file, in-tree file, patch key).
KERNEL_FILES = [
    ("rust/rpmu/sync.rs", "rust/kernel/sync/raw_spinlock.rs", "sync"),
    ("rust/rpmu/cpu/online.rs", "rust/kernel/cpu/online.rs", "cpu"),
    ("rust/rpmu/cpu/hotplug.rs", "rust/kernel/cpu/hotplug.rs", "cpu"),
    ("rust/rpmu/io.rs", "rust/kernel/io/window.rs", "io"),
    ("rust/rpmu/firmware.rs", "rust/kernel/device/child.rs", "io"),
    ("rust/rpmu/irq.rs", "rust/kernel/irq/boxed.rs", "irq"),
    ("rust/rpmu/platform.rs", "rust/kernel/platform/no_unbind.rs", "platform"),
    ("rust/rpmu/perf/mod.rs", "rust/kernel/perf.rs", "perf"),
    ("rust/rpmu/pseries/mod.rs", "rust/kernel/pseries.rs", "pseries"),
]
for d, key in (("perf", "perf"), ("pseries", "pseries")):
    for f in sorted((TOP / "rust/rpmu" / d).rglob("*.rs")):
        rel = f.relative_to(TOP / "rust/rpmu" / d)
        if str(rel) != "mod.rs":
            KERNEL_FILES.append((str(f.relative_to(TOP)), "rust/kernel/%s/%s" % (d, rel), key))

# Lines added to existing kernel files: (file, line, patch key).
MOD_LINES = [
    ("rust/kernel/sync.rs", "pub mod raw_spinlock;", "sync"),
    ("rust/kernel/cpu.rs", "pub mod hotplug;", "cpu"),
    ("rust/kernel/cpu.rs", "mod online;", "cpu"),
    ("rust/kernel/cpu.rs", "pub use online::{first_online, is_online, is_possible, other_online};", "cpu"),
    ("rust/kernel/io.rs", "pub mod window;", "io"),
    ("rust/kernel/device.rs", "pub mod child;", "io"),
    ("rust/kernel/irq.rs", "pub mod boxed;", "irq"),
    ("rust/kernel/platform.rs", "pub mod no_unbind;", "platform"),
    ("rust/kernel/lib.rs", "#[cfg(CONFIG_PERF_EVENTS)]\npub mod perf;", "perf"),
    ("rust/kernel/lib.rs", "#[cfg(CONFIG_PPC_PSERIES)]\npub mod pseries;", "pseries"),
]

# The drivers: repository directory, in-tree directory, module name, crate
# root, patch key.
DRIVERS = [
    ("drivers/perf/xgene", "drivers/perf/xgene", "xgene_pmu_rust", "xgene_pmu_main.rs", "xgene"),
    ("drivers/perf/vpa_dtl", "arch/powerpc/perf/vpa_dtl", "vpa_dtl_rust", "vpa_dtl_main.rs", "vpa_dtl"),
]


def git(repo, *args, **kw):
    return subprocess.run(["git", "-C", str(repo)] + list(args), check=True, text=True, capture_output=True, **kw).stdout


class Tree:
    """The files the series touches: clean content, then each step's."""

    def __init__(self, clean):
        self.clean = Path(clean)
        self.files = {}

    def read(self, path):
        if path not in self.files:
            p = self.clean / path
            self.files[path] = p.read_text() if p.exists() else None
        return self.files[path]

    def write(self, path, text):
        self.read(path)
        self.files[path] = text


def c_patch_step(tree, patch):
    """A patch of patches/: its message, and its diff applied to the tree."""
    text = patch.read_text()
    head, _, rest = text.partition("\n---\n")
    subject = re.search(r"^Subject: \[PATCH\] (.*)$", head, re.M).group(1)
    body = head.split("\n\n", 1)[1].strip() if "\n\n" in head else ""
    files = re.findall(r"^\+\+\+ b/(\S+)", rest, re.M)
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / ("series-apply-%d" % os.getpid())
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    for f in files:
        (tmp / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp / f).write_text(tree.read(f))
    subprocess.run(["patch", "-s", "-p1", "-d", str(tmp), "--no-backup-if-mismatch"], input=text, text=True, check=True)
    for f in files:
        tree.write(f, (tmp / f).read_text())
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    return subject, body


def insert_line(text, line, path):
    """`line` in the block of `mod`/`pub mod` lines, in name order."""
    if line in text:
        return text
    name = re.search(r"(?:mod|use) (\w+)", line).group(1)
    spots = [m for m in re.finditer(r"^(?:#\[cfg\([^\n]*\)\]\n)?(?:pub )?mod (\w+);\n", text, re.M)]
    if not spots:
        # No module list yet: one after the file's `//!` documentation.
        doc = list(re.finditer(r"^//!.*\n", text, re.M))
        at = doc[-1].end() if doc else 0
        return text[:at] + "\n" + line + "\n" + text[at:]
    if line.startswith("pub use") or line.startswith("mod "):
        at = spots[-1].end()
    else:
        after = [m for m in spots if m.group(1) > name]
        at = after[0].start() if after else spots[-1].end()
    return text[:at] + line + "\n" + text[at:]


RUSTFMT_CONFIG = None  # the kernel tree's .rustfmt.toml


def rustfmt(text, path):
    r = subprocess.run(
        ["rustfmt", "--edition", "2021", "--config-path", str(RUSTFMT_CONFIG)],
        input=text,
        text=True,
        capture_output=True,
    )
    if r.returncode:
        raise SystemExit("rustfmt %s:\n%s" % (path, r.stderr))
    return r.stdout


def kernel_step(tree, key):
    for src, dst, k in KERNEL_FILES:
        if k == key:
            tree.write(dst, rustfmt(intree.transform((TOP / src).read_text(), "kernel"), dst))
    for path, line, k in MOD_LINES:
        if k == key:
            tree.write(path, insert_line(tree.read(path), line, path))


def helpers_step(tree):
    c = (TOP / "rust/helpers/rpmu_helpers.c").read_text()
    perf = intree.helpers_c(c, ["rpmu_helpers.h", "rpmu_compat.c", "rpmu_pseries_helpers.c"])
    perf = perf.replace(" * Compiled into each module that includes rust/rpmu.\n", "")
    tree.write("rust/helpers/perf.c", perf)
    ps = (TOP / "rust/helpers/rpmu_pseries_helpers.c").read_text()
    tree.write("rust/helpers/pseries.c", intree.helpers_c(ps, []))
    h = tree.read("rust/helpers/helpers.c")
    for f in ("perf.c", "pseries.c"):
        incs = list(re.finditer(r'^#include "([\w-]+\.c)"\n', h, re.M))
        after = [m for m in incs if m.group(1) > f]
        at = after[0].start() if after else incs[-1].end()
        h = h[:at] + '#include "%s"\n' % f + h[at:]
    tree.write("rust/helpers/helpers.c", h)
    b = tree.read("rust/bindings/bindings_helper.h")
    ours = (TOP / "rust/bindings/rpmu_bindings.h").read_text()
    want = re.findall(r"^#include <(linux/[\w/.-]+)>", ours.split("#ifdef CONFIG_PPC_PSERIES")[0], re.M)
    for inc in want:
        if "#include <%s>" % inc in b:
            continue
        incs = list(re.finditer(r"^#include <(linux/[\w/.-]+)>\n", b, re.M))
        after = [m for m in incs if m.group(1) > inc]
        at = after[0].start() if after else incs[-1].end()
        b = b[:at] + "#include <%s>\n" % inc + b[at:]
    ps_incs = re.findall(r"^#include <(asm/[\w/.-]+)>", ours, re.M)
    block = "\n#ifdef CONFIG_PPC_PSERIES\n%s#endif\n" % "".join("#include <%s>\n" % i for i in ps_incs)
    last = list(re.finditer(r"^#include <linux/[\w/.-]+>\n", b, re.M))[-1]
    b = b[: last.end()] + block + b[last.end() :]
    tree.write("rust/bindings/bindings_helper.h", b)


def driver_step(tree, repo_dir, dst_dir, module, root, gen):
    src = TOP / repo_dir
    for f in sorted(src.glob("*.rs")):
        name = module + ".rs" if f.name == root else f.name
        text = intree.transform(f.read_text(), "driver")
        if f.name == root:
            # The module's name is its in-tree object's (KBUILD_MODNAME).
            text, n = re.subn(r'(\n    name: )"\w+",', r'\1"%s",' % module, text, count=1)
            if n != 1:
                raise SystemExit("%s: no module name" % f)
        text = re.sub(
            r'include!\(concat!\(env!\("RPMU_GEN_DIR"\), "/(\w+\.rs)"\)\)', r'include!("\1")', text
        )
        tree.write("%s/%s" % (dst_dir, name), rustfmt(text, name))
    logic = src / "logic/src"
    for f in sorted(logic.rglob("*.rs")):
        rel = f.relative_to(logic)
        dst = "%s/logic.rs" % dst_dir if str(rel) == "lib.rs" else "%s/logic/%s" % (dst_dir, rel)
        text = intree.transform(f.read_text(), "driver")
        text = re.sub(
            r'include!\(concat!\(env!\("RPMU_GEN_DIR"\), "/(\w+\.rs)"\)\)', r'include!("../\1")', text
        )
        tree.write(dst, rustfmt(text, dst))
    for name, mode in gen:
        tmp = Path(os.environ.get("TMPDIR", "/tmp")) / ("series-%d-%s" % (os.getpid(), name))
        subprocess.run(["python3", str(TOP / "scripts/xgene_events.py"), mode, str(tmp)], check=True)
        text = tmp.read_text()
        # The generator and its JSON stay in the project: say where from.
        text = text.replace(
            "// Generated by scripts/xgene_events.py from drivers/perf/xgene/events/*.json.\n",
            "// Generated from the rust-pmu project's X-Gene event tables (perf's\n"
            "// pmu-events JSON schema), with its scripts/xgene_events.py.\n",
        )
        text = text.replace("drivers/perf/xgene/logic/src/events.rs", "logic/events.rs")
        tree.write("%s/%s" % (dst_dir, name), rustfmt(text, name))
        tmp.unlink()
    # The KUnit suite: its own module, from the same directory; it builds
    # the logic's `selftest` (cfg `kunit_suite`), which the driver does not.
    kunit = src / "kunit"
    for f in sorted(kunit.glob("*.rs")):
        main = f.name.endswith("_kunit_main.rs")
        name = module + "_kunit.rs" if main else f.name
        text = intree.transform(f.read_text(), "driver")
        if main:
            text, n = re.subn(r'(\n    name: )"\w+",', r'\1"%s_kunit",' % module, text, count=1)
            if n != 1:
                raise SystemExit("%s: no module name" % f)
        tree.write("%s/%s" % (dst_dir, name), rustfmt(text, name))
    cfg = module.upper()
    tree.write(
        "%s/Makefile" % dst_dir,
        "# SPDX-License-Identifier: GPL-2.0\n\nobj-$(CONFIG_%s) += %s.o\n"
        "obj-$(CONFIG_%s_KUNIT_TEST) += %s_kunit.o\n"
        "RUSTFLAGS_%s_kunit.o += --cfg kunit_suite\n" % (cfg, module, cfg, module, module),
    )


KCONFIG = {
    "xgene": (
        "drivers/perf/Kconfig",
        "config XGENE_PMU\n",
        """config XGENE_PMU_RUST
	tristate "APM X-Gene SoC PMU (Rust)"
	depends on ARCH_XGENE || (COMPILE_TEST && 64BIT)
	depends on RUST && !XGENE_PMU
	help
	  The APM X-Gene SoC uncore PMUs (L3C, IOB, IOB-slow, MCB, MC of
	  X-Gene 1, 2 and 3, from DT or ACPI), written in Rust. It registers
	  the same PMUs as XGENE_PMU, which it excludes.

	  To compile this driver as a module, choose M here: the module
	  will be called xgene_pmu_rust.

config XGENE_PMU_RUST_KUNIT_TEST
	tristate "KUnit tests of the Rust X-Gene PMU driver" if !KUNIT_ALL_TESTS
	depends on XGENE_PMU_RUST && KUNIT
	default KUNIT_ALL_TESTS
	help
	  The driver's register, event and discovery logic and its sysfs
	  tables, as KUnit cases (module xgene_pmu_rust_kunit).

""",
        "drivers/perf/Makefile",
        "obj-$(CONFIG_XGENE_PMU) += xgene_pmu.o\n",
        "obj-$(CONFIG_XGENE_PMU_RUST) += xgene/\n",
    ),
    "vpa_dtl": (
        "arch/powerpc/platforms/pseries/Kconfig",
        "config HV_PERF_CTRS\n",
        """config VPA_DTL_RUST
	tristate "VPA Dispatch Trace Log PMU (Rust)"
	depends on PPC_PSERIES && PERF_EVENTS && RUST
	help
	  The vpa_dtl PMU, written in Rust: the hypervisor's Dispatch Trace
	  Log of each vCPU as perf AUX data, on PowerVM and in KVM guests.
	  When it is selected, HV_PERF_CTRS builds without its C vpa_dtl
	  PMU, which registers the same PMU.

	  To compile this driver as a module, choose M here: the module
	  will be called vpa_dtl_rust.

config VPA_DTL_RUST_KUNIT_TEST
	tristate "KUnit tests of the Rust vpa_dtl PMU" if !KUNIT_ALL_TESTS
	depends on VPA_DTL_RUST && KUNIT
	default KUNIT_ALL_TESTS
	help
	  The PMU's ring, entry, record and pacing logic, and the pseries DTL
	  buffers it uses, as KUnit cases (module vpa_dtl_rust_kunit).

""",
        "arch/powerpc/perf/Makefile",
        "obj-$(CONFIG_HV_PERF_CTRS) += hv-24x7.o hv-gpci.o hv-common.o vpa-dtl.o\n",
        """obj-$(CONFIG_HV_PERF_CTRS) += hv-24x7.o hv-gpci.o hv-common.o
ifndef CONFIG_VPA_DTL_RUST
obj-$(CONFIG_HV_PERF_CTRS) += vpa-dtl.o
endif
obj-$(CONFIG_VPA_DTL_RUST) += vpa_dtl/
""",
    ),
}


def kbuild_step(tree, key):
    kconfig, anchor, entry, makefile, mk_anchor, mk_line = KCONFIG[key]
    k = tree.read(kconfig)
    if anchor not in k:
        raise SystemExit("%s: no %r" % (kconfig, anchor))
    # The new entry goes after the anchor's entry.
    at = k.index(anchor)
    nxt = re.compile(r"^(config|menuconfig|endmenu|source|if|endif)\b", re.M).search(k, at + len(anchor))
    k = k[: nxt.start()] + entry + k[nxt.start() :]
    tree.write(kconfig, k)
    m = tree.read(makefile)
    if mk_anchor not in m:
        raise SystemExit("%s: no %r" % (makefile, mk_anchor))
    if key == "vpa_dtl":
        m = m.replace(mk_anchor, mk_line)
    else:
        m = m.replace(mk_anchor, mk_anchor + mk_line)
    tree.write(makefile, m)


def maintainers_step(tree, entries):
    text = tree.read("MAINTAINERS")
    for title, body in entries:
        heads = list(re.finditer(r"^\n([A-Z0-9][^\n]*)\n(?=[A-Z]:\t)", text, re.M))
        after = [m for m in heads if m.group(1) > title and m.start() > 2000]
        at = after[0].start() if after else len(text)
        text = text[:at] + "\n" + title + "\n" + body + text[at:]
    tree.write("MAINTAINERS", text)


def messages():
    """scripts/series/messages.txt: `== key` then the subject, a blank
    line and the body."""
    out = {}
    text = (TOP / "scripts/series/messages.txt").read_text()
    for block in re.split(r"^== ", text, flags=re.M)[1:]:
        key, _, rest = block.partition("\n")
        subject, _, body = rest.strip("\n").partition("\n\n")
        out[key.strip()] = (subject.strip(), body.strip())
    return out


def fixes():
    """scripts/series/fixes.txt: `<patch file name> Fixes: ...` lines."""
    out = {}
    for line in (TOP / "scripts/series/fixes.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, tag = line.partition(" ")
            out.setdefault(name, []).append(tag.strip())
    return out


def main():
    global RUSTFMT_CONFIG
    clean, out = Path(sys.argv[1]), Path(sys.argv[2])
    RUSTFMT_CONFIG = clean / ".rustfmt.toml"
    repo = out / "git"
    subprocess.run(["rm", "-rf", str(out)], check=True)
    repo.mkdir(parents=True)
    # The author of the series is the author of this tree's last commit.
    name = git(TOP, "log", "-1", "--format=%an").strip()
    email = git(TOP, "log", "-1", "--format=%ae").strip()
    signoff = "Signed-off-by: %s <%s>" % (name, email)
    msgs, fix = messages(), fixes()

    tree = Tree(clean)
    steps = []  # (subject, body, {path: text}) snapshots

    def commit(subject, body, extra=()):
        steps.append((subject, body, list(extra), dict(tree.files)))

    for p in sorted((TOP / "patches").glob("*.patch")) + sorted((TOP / "patches/perf").glob("*.patch")):
        subject, body = c_patch_step(tree, p)
        commit(subject, body, fix.get(p.name, []))
    # The C helpers and bindings come with the first patch that uses them.
    helpers_step(tree)
    for key in ("sync", "cpu", "io", "irq", "platform", "perf", "pseries"):
        kernel_step(tree, key)
        commit(*msgs[key])
    maint = []
    for repo_dir, dst, module, root, key in DRIVERS:
        gen = [("xgene_events_generated.rs", "rust"), ("xgene_attrs_generated.rs", "attrs")] if key == "xgene" else []
        driver_step(tree, repo_dir, dst, module, root, gen)
        kbuild_step(tree, key)
        commit(*msgs[key])
    maintainers_step(
        tree,
        [
            (
                "RUST [PERF]",
                "M:\t%s <%s>\nL:\tlinux-perf-users@vger.kernel.org\nL:\trust-for-linux@vger.kernel.org\n"
                "S:\tMaintained\nF:\tarch/powerpc/perf/vpa_dtl/\nF:\tdrivers/perf/xgene/\n"
                "F:\trust/helpers/perf.c\nF:\trust/kernel/perf.rs\nF:\trust/kernel/perf/\n" % (name, email),
            )
        ],
    )
    commit(*msgs["maintainers"])

    # The base: the clean content of every existing file the series touches.
    touched = set()
    for _, _, _, files in steps:
        touched.update(files)
    git(repo, "init", "-q", "-b", "series")
    git(repo, "config", "user.name", name)
    git(repo, "config", "user.email", email)
    for path in sorted(touched):
        p = clean / path
        if p.exists():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(p.read_text())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base: the files the series touches, as released")
    for subject, body, extra, files in steps:
        for path, text in files.items():
            if text is None:
                continue
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        git(repo, "add", "-A")
        msg = subject + "\n\n" + body + "\n\n" + "".join(t + "\n" for t in extra) + signoff + "\n"
        git(repo, "commit", "-q", "-F", "-", input=msg)
    git(
        repo,
        "format-patch",
        "-q",
        "--cover-letter",
        "--thread",
        "--subject-prefix=RFC PATCH",
        "-o",
        str(out),
        "HEAD~%d" % len(steps),
    )
    cover = next(out.glob("0000-*.patch"))
    ctext = cover.read_text()
    csub, _, cbody = (TOP / "scripts/series/cover-letter.txt").read_text().partition("\n\n")
    ctext = ctext.replace("*** SUBJECT HERE ***", csub.strip()).replace("*** BLURB HERE ***", cbody.strip())
    cover.write_text(ctext)
    print("%d patches and the cover letter in %s" % (len(steps), out))


if __name__ == "__main__":
    main()

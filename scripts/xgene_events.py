#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The X-Gene PMU event tables, defined once in drivers/perf/xgene/events/*.json
in perf's pmu-events schema (system events: each entry has a `Unit`, the PMU
name less its instance number, and a `Compat`, a regular expression over the
PMUs' `identifier` files, apm_xgene<generation>_<unit>; the code is a
`ConfigCode`, which perf encodes as `config=`, since these PMUs' format
names the event field `<type>_eventid`, not `event`), turned into what
other parts of the project need. metrics-<v1v2|v3>.json hold perf metrics
over those events.

    xgene_events.py text VERSIONS     "<type> <event> <code>" lines, for tests;
                                      VERSIONS is v1v2 or v3
    xgene_events.py rust [OUT]        Rust tables of `Event { name, code }`, the
                                      file drivers/perf/xgene/logic/src/events.rs
                                      includes (cargo: build.rs; Kbuild: the
                                      module's build directory)
    xgene_events.py attrs [OUT]       Rust sysfs `events` tables for the kernel
                                      module: `(c"name", AttrValue::Fixed(c"config=0x.."))`
    xgene_events.py rst [OUT]         reStructuredText event lists, committed as
                                      Documentation/xgene-pmu-events.rst
    xgene_events.py perf DIR          the checked JSON files copied into DIR, a
                                      perf source tree's
                                      tools/perf/pmu-events/arch/arm64/apm:
                                      xgene/sys (v1v2), xgene3/sys (v3)
    xgene_events.py desc VERSIONS     "<unit> <event> <description>" lines

Without OUT the result goes to stdout. With OUT the file is replaced
atomically, and only when its content changes (so make and cargo do not
rebuild for nothing). The output depends on the JSON alone: no paths, dates
or host details end up in it.

Every mode checks the tables first and fails (exit status 1, one line per
problem on stderr) on a malformed file or entry, a name or code used twice
with different meanings within one table, or a code the hardware cannot
select (the event-select register takes 8 bits). An entry repeated
identically is kept once. Tables are sorted by code.
"""
import json
import os
import pathlib
import re
import sys
import tempfile

EVENTS = pathlib.Path(__file__).resolve().parent.parent / "drivers/perf/xgene/events"

# File stem prefix -> (Rust PmuType variant, sysfs prefix); in the order of
# the PMU types in the driver (L3C, IOB, IOB_SLOW, MCB, MC).
TYPES = {
    "l3c": ("L3c", "l3c"),
    "iob": ("Iob", "iob"),
    "iob-slow": ("IobSlow", "iob_slow"),
    "mcb": ("Mcb", "mcb"),
    "mc": ("Mc", "mc"),
}
VERSIONS = ("v1v2", "v3")
KEYS_REQUIRED = ("EventName", "ConfigCode", "BriefDescription", "Unit", "Compat")
KEYS_ALLOWED = set(KEYS_REQUIRED) | {"PublicDescription"}
METRIC_KEYS = {"MetricName", "MetricGroup", "BriefDescription", "MetricExpr", "ScaleUnit", "Unit", "Compat"}
# perf's tree: the model directory (under arch/arm64/apm/) of each table.
PERF_MODELS = {"v1v2": "xgene", "v3": "xgene3"}
# The `identifier` of the PMUs a table is for: the generations of each group.
GENERATIONS = {"v1v2": (1, 2), "v3": (3,)}


def identifier(generation, unit):
    """What the driver's `identifier` file reads (NOTES.md section 2)."""
    return f"apm_xgene{generation}_{unit}"


def check_compat(compat, versions, unit):
    """None if `compat` matches exactly the identifiers of `versions`' PMUs
    of `unit` (and no other generation's), else the problem."""
    try:
        rx = re.compile(compat)
    except re.error as e:
        return f"Compat {compat!r} is not a regular expression: {e}"
    for g in (1, 2, 3):
        hit = rx.fullmatch(identifier(g, unit)) is not None
        if hit != (g in GENERATIONS[versions]):
            return f"Compat {compat!r} {'matches' if hit else 'misses'} {identifier(g, unit)}"
    return None
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\Z")
CODE_RE = re.compile(r"0x[0-9A-Fa-f]{1,4}\Z")
CODE_MAX = 0xFF


class TableError(Exception):
    pass


def load_table(path, versions, unit):
    """[(name, code, description)] of one JSON file, checked, sorted by code."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise TableError(f"{path.name}: not readable as JSON: {e}") from e
    if not isinstance(data, list) or not data:
        raise TableError(f"{path.name}: expected a non-empty JSON array of events")
    by_name, by_code, errors = {}, {}, []
    for i, e in enumerate(data):
        where = f"{path.name}[{i}]"
        if not isinstance(e, dict):
            errors.append(f"{where}: not an object")
            continue
        missing = [k for k in KEYS_REQUIRED if k not in e]
        unknown = sorted(set(e) - KEYS_ALLOWED)
        if missing or unknown:
            errors.append(f"{where}: missing keys {missing}, unknown keys {unknown}")
            continue
        if not all(isinstance(v, str) for v in e.values()):
            errors.append(f"{where}: every value must be a string")
            continue
        if e["Unit"] != unit:
            errors.append(f"{where}: Unit {e['Unit']!r}, expected {unit!r}")
            continue
        bad = check_compat(e["Compat"], versions, unit)
        if bad:
            errors.append(f"{where}: {bad}")
            continue
        name, code_s, desc = e["EventName"], e["ConfigCode"], e["BriefDescription"].strip()
        if not NAME_RE.match(name):
            errors.append(f"{where}: bad event name {name!r}")
            continue
        if not CODE_RE.match(code_s):
            errors.append(f"{where}: {name}: ConfigCode {code_s!r} is not a hex number 0x..")
            continue
        code = int(code_s, 16)
        if code > CODE_MAX:
            errors.append(f"{where}: {name}: code {code:#x} does not fit the 8-bit event select")
            continue
        if not desc or "\n" in desc:
            errors.append(f"{where}: {name}: empty or multi-line BriefDescription")
            continue
        old = by_name.get(name)
        if old is not None:
            if old != (code, desc):
                errors.append(f"{where}: duplicate name {name} (code {old[0]:#x} and {code:#x})")
            continue  # an identical repeat: kept once
        if code in by_code:
            errors.append(f"{where}: duplicate code {code:#x} ({by_code[code]} and {name})")
            continue
        by_name[name] = (code, desc)
        by_code[code] = name
    if errors:
        raise TableError("\n".join(errors))
    return sorted(((n, c, d) for n, (c, d) in by_name.items()), key=lambda t: (t[1], t[0]))


def tables(versions=VERSIONS):
    """[(versions, type stem, [(name, code, desc)])], every JSON file checked,
    in a fixed order: by version group, then by PMU type."""
    out, errors = [], []
    files = {f.name for f in EVENTS.glob("*.json")}
    known = {f"{t}-{v}.json" for t in TYPES for v in VERSIONS} | {f"metrics-{v}.json" for v in VERSIONS}
    for stray in sorted(files - known):
        errors.append(f"{stray}: not a <type>-<v1v2|v3>.json table")
    for v in versions:
        for t in TYPES:
            path = EVENTS / f"{t}-{v}.json"
            if not path.exists():
                continue
            try:
                out.append((v, t, load_table(path, v, TYPES[t][1])))
            except TableError as e:
                errors.append(str(e))
    if errors:
        raise TableError("\n".join(errors))
    return out


def metrics(versions=VERSIONS):
    """[(versions, [metric dict])]: metrics-<v>.json, checked against the
    event tables: every event a MetricExpr names exists on its Unit."""
    evs = {(v, TYPES[t][1]): {n for n, _, _ in e} for v, t, e in tables(versions)}
    out, errors = [], []
    for v in versions:
        path = EVENTS / f"metrics-{v}.json"
        if not path.exists():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise TableError(f"{path.name}: not readable as JSON: {e}") from e
        if not isinstance(data, list) or not data:
            errors.append(f"{path.name}: expected a non-empty JSON array of metrics")
            continue
        names = set()
        for i, m in enumerate(data):
            where = f"{path.name}[{i}]"
            if not isinstance(m, dict) or set(m) != METRIC_KEYS or not all(isinstance(x, str) for x in m.values()):
                errors.append(f"{where}: expected exactly the string keys {sorted(METRIC_KEYS)}")
                continue
            if m["MetricName"] in names:
                errors.append(f"{where}: duplicate MetricName {m['MetricName']}")
            names.add(m["MetricName"])
            bad = check_compat(m["Compat"], v, m["Unit"])
            if bad:
                errors.append(f"{where}: {bad}")
            # Identifiers in the expression: events (with \-escaped dashes)
            # or perf's duration_time.
            for tok in re.findall(r"(?<![0-9.])(?:[A-Za-z_]|\\-)(?:[A-Za-z0-9_]|\\-)*", m["MetricExpr"]):
                ev = tok.replace("\\-", "-")
                if ev != "duration_time" and ev not in evs.get((v, m["Unit"]), ()):
                    errors.append(f"{where}: {m['MetricName']}: no event {ev} on {m['Unit']} ({v})")
        out.append((v, data))
    if errors:
        raise TableError("\n".join(errors))
    return out


def const_name(versions, t):
    return f"{t.replace('-', '_').upper()}_{versions.upper()}"


def gen_rust():
    lines = [
        "// SPDX-License-Identifier: GPL-2.0",
        "// Generated by scripts/xgene_events.py from drivers/perf/xgene/events/*.json.",
        "// Do not edit. Included by drivers/perf/xgene/logic/src/events.rs, which",
        "// defines `Event`.",
        "",
    ]
    for v, t, evs in tables():
        lines.append(f"/// `{TYPES[t][1]}` events, X-Gene {v}, sorted by code.")
        lines.append(f"pub static {const_name(v, t)}: &[Event] = &[")
        for name, code, _ in evs:
            lines.append(f'    Event {{ name: "{name}", code: {code:#04x} }},')
        lines.append("];")
        lines.append("")
    return "\n".join(lines)


def gen_attrs():
    lines = [
        "// SPDX-License-Identifier: GPL-2.0",
        "// Generated by scripts/xgene_events.py from drivers/perf/xgene/events/*.json.",
        "// Do not edit. Needs `AttrValue` and `Child` in scope.",
        "",
    ]
    for v, t, evs in tables():
        lines.append(f"/// sysfs `events` of `{TYPES[t][1]}`, X-Gene {v}.")
        lines.append(
            f"pub(crate) static EVENTS_{const_name(v, t)}: "
            f"[(&kernel::str::CStr, AttrValue<Child>); {len(evs)}] = ["
        )
        for name, code, _ in evs:
            # The upstream driver prints "config=0x%llx".
            lines.append(f'    (c"{name}", AttrValue::Fixed(c"config={code:#x}")),')
        lines.append("];")
        lines.append("")
    return "\n".join(lines)


def rst_escape(s):
    return re.sub(r"([\\`*|_])", r"\\\1", s)


def gen_rst():
    titles = {"v1v2": "X-Gene and X-Gene 2 (v1, v2)", "v3": "X-Gene 3 (v3)"}
    lines = [
        ".. SPDX-License-Identifier: GPL-2.0",
        "",
        ".. Generated by scripts/xgene_events.py rst from drivers/perf/xgene/events/*.json.",
        "   Do not edit; scripts/lint.sh checks that it is up to date.",
        "",
    ]
    by_version = {}
    for v, t, evs in tables():
        by_version.setdefault(v, []).append((t, evs))
    for v in VERSIONS:
        title = titles[v]
        lines += [title, "-" * len(title), ""]
        for t, evs in by_version.get(v, []):
            prefix = TYPES[t][1]
            head = f"``{prefix}<N>`` ({len(evs)} events)"
            lines += [head, "~" * len(head), ""]
            lines += [
                ".. list-table::",
                "   :header-rows: 1",
                "   :widths: 30 8 62",
                "",
                "   * - event",
                "     - code",
                "     - counts",
            ]
            for name, code, desc in evs:
                lines += [
                    f"   * - ``{name}``",
                    f"     - ``{code:#04x}``",
                    f"     - {rst_escape(desc)}",
                ]
            lines.append("")
    return "\n".join(lines)


def emit(text, out):
    if out is None:
        sys.stdout.write(text)
        return
    path = pathlib.Path(out)
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def usage():
    sys.exit(__doc__.split("\n\n")[1])


def main(argv):
    if not argv:
        usage()
    mode, args = argv[0], argv[1:]
    try:
        if mode == "text":
            if len(args) != 1 or args[0] not in VERSIONS:
                usage()
            for _, t, evs in tables((args[0],)):
                for name, code, _ in evs:
                    print(t, name, code)
            return
        if mode == "desc":
            if len(args) != 1 or args[0] not in VERSIONS:
                usage()
            for _, t, evs in tables((args[0],)):
                for name, _, desc in evs:
                    print(TYPES[t][1], name, desc)
            return
        if mode == "perf":
            if len(args) != 1:
                usage()
            tables()
            metrics()
            # One model directory per table: jevents refuses an event name
            # twice for one Unit in a table, and v1/v2 and v3 share names.
            for v, model in PERF_MODELS.items():
                out = pathlib.Path(args[0]) / model / "sys"
                out.mkdir(parents=True, exist_ok=True)
                for f in sorted(EVENTS.glob(f"*-{v}.json")):
                    emit(f.read_text(encoding="utf-8"), out / f.name)
            return
        gens = {"rust": gen_rust, "attrs": gen_attrs, "rst": gen_rst}
        if mode not in gens or len(args) > 1:
            usage()
        text = gens[mode]()
        emit(text if text.endswith("\n") else text + "\n", args[0] if args else None)
    except TableError as e:
        for line in str(e).splitlines():
            print(f"xgene_events.py: {line}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])

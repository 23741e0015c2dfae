# SPDX-License-Identifier: GPL-2.0
"""The in-tree form of the project's Rust sources.

The out-of-tree modules compile `rust/rpmu` into each driver; in a kernel
tree the same code is part of the kernel crate. This module rewrites a
source file for its in-tree place, mechanically:

- `crate::rpmu::<m>` and `rpmu::<m>` become the kernel crate's module that
  holds `<m>` in-tree (MODMAP), `kernel::` inside the kernel crate becomes
  `crate::` (`$crate::` in a macro body);
- items under `#[cfg(rpmu_*)]` (the shims for kernels before 7.3) are
  dropped, and `#[cfg(not(rpmu_*))]` attributes with them;
- `no_panic! { mod a; }` becomes `#[deny(<the same lints>)] mod a;`;
- the out-of-tree spellings of `rpmu::compat` (7.2 and 7.3 alike) become the
  7.3 ones.

Nothing else changes: the file's text is the repository's.
"""

import re

# rpmu module -> the kernel crate's module that holds it in-tree.
MODMAP = {
    "perf": "perf",
    "cpu": "cpu",
    "sync": "sync::raw_spinlock",
    "io": "io::window",
    "firmware": "device::child",
    "irq": "irq::boxed",
    "platform": "platform::no_unbind",
    "pseries": "pseries",
    "bindings": "bindings",
}

NO_PANIC_LINTS = (
    "clippy::arithmetic_side_effects",
    "clippy::indexing_slicing",
    "clippy::unwrap_used",
    "clippy::expect_used",
    "clippy::panic",
    "clippy::unreachable",
)


class IntreeError(Exception):
    pass


def _item_end(text, start):
    """The end of the item that starts at `start` (after its attributes)."""
    depth = 0
    i = start
    opened = False
    while i < len(text):
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i = text.index("\n", i)
            continue
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
            opened = opened or c == "{"
        elif c in ")]}":
            depth -= 1
            if depth == 0 and c == "}" and opened:
                end = i + 1
                if text.startswith(";", end):
                    end += 1
                return end
        elif c == ";" and depth == 0:
            return i + 1
        i += 1
    raise IntreeError("unterminated item at %d" % start)


def strip_compat_cfgs(text):
    """Drops items under `#[cfg(rpmu_*)]` and the `not(rpmu_*)` attributes.
    Test code a test module builds (`rpmu_testing`, or a host build: not
    `MODULE`) is, in-tree, what the KUnit module's crate builds
    (`kunit_suite`, set for that object only)."""
    text = text.replace("#[cfg(any(not(MODULE), rpmu_testing))]", "#[cfg(kunit_suite)]")
    text = text.replace("test modules (`rpmu_testing`)", "the KUnit module (`kunit_suite`)")
    # A logic crate is a module in-tree, never a crate root of its own.
    text = text.replace("#![cfg_attr(not(MODULE), no_std)]\n", "")
    text = re.sub(r"^[ \t]*#\[cfg\(not\(rpmu_\w+\)\)\]\n", "", text, flags=re.M)
    while True:
        m = re.search(r"^([ \t]*///.*\n)*[ \t]*#\[cfg\(rpmu_\w+\)\]\n", text, flags=re.M)
        if not m:
            return text
        end = _item_end(text, m.end())
        if text.startswith("\n", end):
            end += 1
        text = text[: m.start()] + text[end:]


def expand_no_panic(text):
    """`no_panic! { mods }` -> the same modules with the lints denied."""

    def one(m):
        indent = m.group(1)
        body = m.group(2)
        attr = "%s#[deny(\n%s)]\n" % (
            indent,
            "".join("%s    %s,\n" % (indent, l) for l in NO_PANIC_LINTS),
        )
        out = []
        for line in body.strip("\n").split("\n"):
            line = line.strip()
            if not line:
                continue
            if re.match(r"(pub(\([^)]*\))?\s+)?mod \w+;$", line):
                out.append(attr + indent + line + "\n")
            else:
                out.append(indent + line + "\n")
        return "".join(out)

    return re.sub(
        r"^([ \t]*)(?:crate::|rpmu::)?no_panic!\s*\{\n(.*?)^\1\}\n",
        one,
        text,
        flags=re.M | re.S,
    )


# --- use trees --------------------------------------------------------------


def _split_top(s):
    parts, depth, cur = [], 0, ""
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def _leaves(tree, prefix=()):
    tree = tree.strip()
    if tree.endswith("}"):
        head, _, body = tree.partition("{")
        head = [s for s in head.strip().rstrip(":").split("::") if s]
        for sub in _split_top(body[:-1]):
            yield from _leaves(sub, prefix + tuple(head))
        return
    alias = None
    m = re.match(r"(.*?)\s+as\s+(\w+)$", tree)
    if m:
        tree, alias = m.group(1), m.group(2)
    yield prefix + tuple(s for s in tree.split("::") if s), alias


def _render(leaves):
    """Nested use tree of (path, alias) leaves, as rustfmt would group it."""
    root = {}
    for path, alias in leaves:
        node = root
        for seg in path[:-1]:
            node = node.setdefault(seg, {})
        node.setdefault(None, []).append(path[-1] + (" as " + alias if alias else ""))

    def fmt(name, node):
        subs = sorted(node.get(None, []), key=lambda s: (s != "self", s))
        subs += [fmt(k, v) for k, v in sorted((k, v) for k, v in node.items() if k)]
        if len(subs) == 1:
            inner = subs[0]
        else:
            inner = "{" + ", ".join(subs) + "}"
        return name + "::" + inner if name else inner

    return fmt(None, root)


def map_path(path, ctx):
    """Maps one path (a tuple of segments); None drops it."""
    p = list(path)
    lead = []
    if p[:1] in (["crate"], ["$crate"]):
        lead, p = p[:1], p[1:]
    if p[:1] == ["rpmu"]:
        p = p[1:]
        if not p:
            raise IntreeError("bare rpmu path")
        if p[0] == "module" or p[:2] == ["compat", "eopnotsupp"]:
            return None
        if p[0] == "compat":
            raise IntreeError("unmapped compat path %s" % "::".join(path))
        if p[0] == "no_panic":
            return None
        if p[0] not in MODMAP:
            raise IntreeError("unmapped rpmu module %s" % "::".join(path))
        p = MODMAP[p[0]].split("::") + p[1:]
        base = lead[0] if (ctx == "kernel" and lead) else ("crate" if ctx == "kernel" else "kernel")
        return tuple([base] + p)
    if ctx == "kernel" and p[:1] == ["kernel"] and not lead:
        return tuple(["crate"] + p[1:])
    return tuple(lead + p)


def rewrite_uses(text, ctx):
    def one(m):
        indent, vis, tree = m.group(1), m.group(2) or "", m.group(3)
        leaves = []
        for path, alias in _leaves(" ".join(tree.split())):
            mapped = map_path(path, ctx)
            if mapped is None:
                continue
            if mapped[-1] == "self" and len(mapped) >= 2 and alias is None and path[-2] != mapped[-2]:
                # `rpmu::io::{self}` now names `io::window`: keep the name.
                alias = path[-2]
            elif alias is None and path[-1] != mapped[-1]:
                alias = path[-1]
            leaves.append((mapped, alias))
        if not leaves:
            return ""
        groups = {}
        for path, alias in leaves:
            groups.setdefault(path[0], []).append((path, alias))
        out = []
        for head in sorted(groups):
            line = "%s%suse %s;" % (indent, vis, _render(groups[head]))
            m2 = re.match(r"(.*?)\{([^{}]*)\};$", line)
            if len(line) > 100 and m2:
                # rustfmt's layout, for doc examples it does not format.
                rows, cur = [], indent + "    "
                for item in m2.group(2).split(", "):
                    if len(cur) + len(item) + 1 > 100 and cur.strip():
                        rows.append(cur.rstrip())
                        cur = indent + "    "
                    cur += item + ", "
                rows.append(cur.rstrip())
                line = m2.group(1) + "{\n" + "\n".join(rows) + "\n" + indent + "};"
            out.append(line + "\n")
        return "".join(out)

    return re.sub(r"^([ \t]*)(pub(?:\([^)]*\))?\s+)?use\s+([^;]*);\n", one, text, flags=re.M)


def rewrite_paths(text, ctx):
    """Paths outside `use`: `crate::rpmu::m::x`, `rpmu::m::x`, `kernel::x`."""

    def rpmu_path(m):
        lead = m.group(1) or ""
        path = tuple(([lead.rstrip(":")] if lead else []) + ["rpmu"] + m.group(2).split("::"))
        mapped = map_path(path, ctx)
        if mapped is None:
            raise IntreeError("dropped path used inline: %s" % m.group(0))
        return "::".join(mapped)

    text = re.sub(r"(?<![\w:])(\$crate::|crate::)?rpmu::(\w+(?:::\w+)*)", rpmu_path, text)
    if ctx == "kernel":
        # `kernel::` is the crate itself; in a macro body, `$crate::`.
        out, pos = [], 0
        for m in re.finditer(r"macro_rules!\s*\w+\s*\{", text):
            end = _item_end(text, m.start())
            out.append(re.sub(r"(?<![\w:$])(::)?kernel::", "crate::", text[pos : m.start()]))
            out.append(re.sub(r"(?<![\w:$])(::)?kernel::", "$crate::", text[m.start() : end]))
            pos = end
        out.append(re.sub(r"(?<![\w:$])(::)?kernel::", "crate::", text[pos:]))
        # Doc comments keep `kernel::`: their examples are a driver's code.
        new = "".join(out).split("\n")
        for i, line in enumerate(text.split("\n")):
            if line.lstrip().startswith("//"):
                new[i] = line
        text = "\n".join(new)
    return text


def driver_calls(text):
    """The out-of-tree spellings a driver uses, in their 7.3 in-tree form."""
    text = re.sub(r"(?<![\w:])this_module\(\)", "kernel::module::this_module::<crate::LocalModule>()", text)
    text = re.sub(r"(?<![\w:])eopnotsupp\(\)", "EOPNOTSUPP", text)
    text = re.sub(
        r"rpmu::compat::(of|acpi)_device_table!\(\s*(\w+),\s*\w+,",
        r"kernel::\1_device_table!(\n    \2,",
        text,
    )
    # The library and the logic crate are modules of the driver crate only
    # out of tree; in-tree the library is the kernel crate's.
    text = re.sub(r'^#\[path = "[./]*rust/rpmu/mod.rs"\]\n(pub )?mod rpmu;\n\n?', "", text, flags=re.M)
    text = re.sub(r'^#\[path = "logic/src/lib.rs"\]\n', "", text, flags=re.M)
    # A KUnit module's own copies of the driver's files: in-tree, the files
    # beside it.
    text = re.sub(
        r'^#\[path = "\.\./(logic/src/lib|\w+)\.rs"\]\n((?:pub )?mod (\w+);)',
        lambda m: m.group(2) if m.group(1) in ("logic/src/lib", m.group(3)) else m.group(0),
        text,
        flags=re.M,
    )
    # A file of the library a no_std logic crate shares: in-tree, its
    # module in the kernel crate.
    text = re.sub(
        r'^(#\[allow\(clippy::duplicate_mod\)\]\n)?#\[path = "[./]*rust/rpmu/([\w/]+)\.rs"\]\n(pub )?mod (\w+);',
        lambda m: "pub use %s;" % "::".join(map_path(tuple(["rpmu"] + m.group(2).split("/")), "driver")),
        text,
        flags=re.M,
    )
    return text


def doc_examples(text):
    """Code examples in doc comments are written as a driver writes code."""

    def one(m):
        prefix = m.group(1)
        lines = [l[len(prefix) :] for l in m.group(3).split("\n")[:-1]]
        body = "".join((l[1:] if l.startswith(" ") else l) + "\n" for l in lines)
        body = rewrite_paths(rewrite_uses(driver_calls(body), "driver"), "driver")
        out = "".join((prefix + " " + l).rstrip() + "\n" for l in body.split("\n")[:-1])
        return prefix + " " + m.group(2) + "\n" + out + prefix + " ```\n"

    return re.sub(
        r"^([ \t]*//[/!]) (```(?:ignore|rust|no_run)?)\n((?:\1.*\n)*?)\1 ```\n", one, text, flags=re.M
    )


def transform(text, ctx):
    """The in-tree text of a Rust source; ctx is "kernel" or "driver"."""
    text = doc_examples(text)
    text = strip_compat_cfgs(text)
    text = expand_no_panic(text)
    if ctx == "driver":
        text = driver_calls(text)
    text = rewrite_uses(text, ctx)
    text = rewrite_paths(text, ctx)
    if ctx == "kernel":
        text = text.replace("pub(in crate::rpmu)", "pub(crate)")
    return text


# --- C helpers ----------------------------------------------------------------


def helpers_c(text, drop_includes):
    """rust/helpers/rpmu_*.c in the kernel's helper form: each exported
    helper `rpmu_x` becomes `__rust_helper ... rust_helper_rpmu_x`, which the
    kernel binds as `bindings::rpmu_x`, the name the Rust code calls."""
    for inc in drop_includes:
        text = re.sub(r'^#include "%s"\n' % re.escape(inc), "", text, flags=re.M)
    names = re.findall(r"^(?!static)[a-z][\w \t]*?[ \t*](rpmu_\w+)\(", text, flags=re.M)
    for n in sorted(set(names), key=len, reverse=True):
        text = re.sub(r"(?<![\w])%s(?=\()" % n, "rust_helper_" + n, text)
    # `__rust_helper` lets the kernel inline a helper into Rust; not one
    # that uses this file's static functions or data (which an inline
    # function with external linkage may not use).
    statics = set(re.findall(r"^static\b[^(;=]*?\b(\w+)\s*[(;=]", text, flags=re.M))
    statics |= set(re.findall(r"^static DEFINE_\w+\((\w+)\)", text, flags=re.M))

    def uses_statics(name):
        body = re.search(r"rust_helper_%s\(.*?\n\}" % name, text, flags=re.S).group(0)
        return any(re.search(r"\b%s\b" % s, body) for s in statics)

    def mark(m):
        name = re.search(r"rust_helper_(rpmu_\w+)\(", m.group(1)).group(1)
        return m.group(1) if uses_statics(name) else "__rust_helper " + m.group(1)

    text = re.sub(r"^(?!static)([a-z][\w \t]*?[ \t*]rust_helper_rpmu_\w+\()", mark, text, flags=re.M)
    text = re.sub(r"^(__rust_helper |)([a-z][^\n;{]*rust_helper_rpmu_\w+\([^{;]*?\))\n\{", _reflow, text, flags=re.M)
    # Dropped includes leave blank lines next to each other.
    return re.sub(r"\n{3,}", "\n\n", text)


def _reflow(m):
    """A helper's signature, its arguments aligned with the parenthesis
    (tabs of 8 columns), in at most 100 columns: without the inlining
    marker if it only fits so (setup calls with function-pointer
    arguments, which gain nothing from inlining)."""
    out = _reflow_sig(m.group(1) + " ".join(m.group(2).split()))
    if m.group(1) and max(len(l.expandtabs(8)) for l in out.split("\n")) > 100:
        out = _reflow_sig(" ".join(m.group(2).split()))
    return out


def _reflow_sig(sig):
    sig = sig.replace("( ", "(").replace(" )", ")")
    if len(sig) <= 100:
        return sig + "\n{"
    head, _, args = sig.partition("(")
    args = _split_top(args[:-1].replace("(", "{").replace(")", "}"))
    args = [a.replace("{", "(").replace("}", ")") for a in args]
    col = len(head) + 1
    indent = "\t" * (col // 8) + " " * (col % 8)
    lines, cur = [], head + "(" + args[0]
    for a in args[1:]:
        if len((cur + ", " + a + "),").expandtabs(8)) <= 100:
            cur += ", " + a
        else:
            lines.append(cur + ",")
            cur = indent + a
    lines.append(cur + ")")
    return "\n".join(lines) + "\n{"

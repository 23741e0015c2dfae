#!/usr/bin/env python3
"""Checks that the files of each driver crate import each other without a
circle. A node is a top-level file of a driver directory (its modules); an
edge is a `crate::NAME` (or `super::NAME` at the top level) path, including
the names inside `use crate::{...}`, where NAME is a module or an item of the
crate root (the `*_main.rs` file). Prints the graph; exits 1 on a cycle.
    scripts/modgraph.py DRIVER_DIR...
"""
import pathlib
import re
import sys


def crate_refs(text):
    text = re.sub(r"//[^\n]*", "", text)
    refs = set()
    for m in re.finditer(r"\b(?:crate|super)::(\{|\w+)", text):
        if m.group(1) != "{":
            refs.add(m.group(1))
            continue
        depth, i, start = 1, m.end(), m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        top, depth = text[start:i - 1], 0
        for tok in re.finditer(r"[{}]|\b\w+\b(?=\s*(::|,|}|$| as))", top):
            t = tok.group(0)
            if t in "{}":
                depth += 1 if t == "{" else -1
            elif depth == 0 and top[tok.start() - 2:tok.start()] != "::":
                refs.add(t)
    return refs


def cycle(graph):
    state = {}

    def visit(n, path):
        state[n] = "open"
        for m in sorted(graph[n]):
            if state.get(m) == "open":
                return path[path.index(m):] + [m]
            if m not in state and (c := visit(m, path + [m])):
                return c
        state[n] = "done"
        return None

    for n in sorted(graph):
        if n not in state and (c := visit(n, [n])):
            return c
    return None


bad = False
for d in map(pathlib.Path, sys.argv[1:]):
    files = {f.stem: f for f in d.glob("*.rs")}
    root = next(n for n in files if n.endswith("_main"))
    items = re.findall(r"^(?:pub(?:\(crate\))? )?(?:struct|enum|fn|const|static|type|trait) (\w+)",
                       files[root].read_text(), re.M)
    graph = {}
    for n, f in files.items():
        refs = crate_refs(f.read_text())
        graph[n] = (refs & files.keys()) | ({root} if refs & set(items) else set())
        graph[n].discard(n)
    for n in sorted(graph):
        print(f"  {d.name}: {n} -> {' '.join(sorted(graph[n])) or '(nothing)'}")
    if c := cycle(graph):
        print(f"  {d}: circle {' -> '.join(c)}")
        bad = True
sys.exit(1 if bad else 0)

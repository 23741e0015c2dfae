#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reset values of the simulated X-Gene discovery registers, as a raw blob
for QEMU's generic loader.

A built-in X-Gene PMU driver reads CSW CSWCR and MCBA/MCBB MCBADDRMR at
boot, before any module (the register model, tools/testing/xgene_sim) can
load, so the silicon's reset values must already be in guest RAM:

    make-regs.py GUEST.dtb OUT.bin  -> prints the load address; boot with
    -device loader,file=OUT.bin,addr=<address>,force-raw=on

The windows are found in the device tree: the apm,xgene-pmu[-v2] node's
regmap-csw / regmap-mcba / regmap-mcbb phandles and their reg. Values
(NOTES.md section 6): CSWCR bit 0 = dual MCB, MCBADDRMR bit 2 = dual MCU.
The defaults give the largest v1/v2 topology (mcb0, mcb1, mc0..mc3); set
RPMU_XGENE_CSWCR / RPMU_XGENE_MCBA / RPMU_XGENE_MCBB to override.
"""
import os
import struct
import sys

FDT_BEGIN_NODE, FDT_END_NODE, FDT_PROP, FDT_NOP, FDT_END = 1, 2, 3, 4, 9


def parse(blob):
    """Nodes as dicts: path, props (name -> bytes), parent."""
    magic, _tot, off_struct, off_strings = struct.unpack_from(">IIII", blob, 0)
    if magic != 0xD00DFEED:
        sys.exit("not a flattened device tree")

    def string(off):
        end = blob.index(b"\0", off_strings + off)
        return blob[off_strings + off:end].decode()

    nodes, stack, pos = [], [], off_struct
    while True:
        (tok,) = struct.unpack_from(">I", blob, pos)
        pos += 4
        if tok == FDT_BEGIN_NODE:
            end = blob.index(b"\0", pos)
            name = blob[pos:end].decode()
            pos = (end + 4) & ~3
            parent = stack[-1] if stack else None
            path = "/" if parent is None else (parent["path"].rstrip("/") + "/" + name)
            node = {"path": path, "props": {}, "parent": parent}
            nodes.append(node)
            stack.append(node)
        elif tok == FDT_END_NODE:
            stack.pop()
        elif tok == FDT_PROP:
            length, nameoff = struct.unpack_from(">II", blob, pos)
            pos += 8
            stack[-1]["props"][string(nameoff)] = blob[pos:pos + length]
            pos = (pos + length + 3) & ~3
        elif tok == FDT_NOP:
            continue
        elif tok == FDT_END:
            return nodes
        else:
            sys.exit(f"bad FDT token {tok:#x}")


def cells(node, name, default):
    v = node["props"].get(name) if node else None
    return struct.unpack(">I", v)[0] if v else default


def reg0(node):
    """First (address, size) of node's reg, in its parent's cell sizes."""
    parent = node["parent"]
    ac, sc = cells(parent, "#address-cells", 2), cells(parent, "#size-cells", 1)
    words = struct.unpack(f">{ac + sc}I", node["props"]["reg"][:4 * (ac + sc)])

    def num(ws):
        n = 0
        for w in ws:
            n = (n << 32) | w
        return n

    return num(words[:ac]), num(words[ac:])


def main():
    dtb, out = sys.argv[1:3]
    nodes = parse(open(dtb, "rb").read())
    compat = lambda n: n["props"].get("compatible", b"").split(b"\0")
    pmu = next((n for n in nodes if {b"apm,xgene-pmu-v2", b"apm,xgene-pmu"} & set(compat(n))), None)
    if pmu is None:
        sys.exit(f"{dtb}: no apm,xgene-pmu[-v2] node")
    by_phandle = {cells(n, "phandle", None): n for n in nodes if "phandle" in n["props"]}
    values = {
        "regmap-csw": int(os.environ.get("RPMU_XGENE_CSWCR", "0x1"), 0),
        "regmap-mcba": int(os.environ.get("RPMU_XGENE_MCBA", "0x4"), 0),
        "regmap-mcbb": int(os.environ.get("RPMU_XGENE_MCBB", "0x4"), 0),
    }
    regs = []
    for prop, value in values.items():
        if prop not in pmu["props"]:
            sys.exit(f"{pmu['path']}: no {prop}")
        node = by_phandle[struct.unpack(">I", pmu["props"][prop][:4])[0]]
        addr, _ = reg0(node)
        regs.append((addr, value))  # CSWCR and MCBADDRMR are at offset 0
    base = min(a for a, _ in regs)
    size = max(a for a, _ in regs) + 4 - base
    if size > 1 << 20:
        sys.exit("discovery registers more than 1 MiB apart")
    img = bytearray(size)
    for addr, value in regs:
        struct.pack_into("<I", img, addr - base, value)  # little-endian guest
    open(out, "wb").write(img)
    print(f"{base:#x}")


if __name__ == "__main__":
    main()

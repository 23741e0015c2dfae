#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An SSDT describing a simulated X-Gene PMU, for an ACPI boot of QEMU virt.

    make-acpi.py VERSION OUTDIR   (VERSION 1, 2 or 3)

writes OUTDIR/xgene.asl, compiles it with iasl, packs the table as
kernel/firmware/acpi/xgene.aml in an uncompressed cpio (OUTDIR/acpi.cpio,
to be prepended to the initrd: CONFIG_ACPI_TABLE_UPGRADE installs it), and
writes the discovery registers' reset values (OUTDIR/regs.bin, for QEMU's
generic loader, as make-regs.py does for the device tree). It prints

    REGS_ADDR RAM_START RAM_SIZE

The windows lie in a MiB of guest RAM the kernel is kept from with mem=1G
(-m 2G: RAM 0x40000000-0xbfffffff; the kernel uses 0x40000000-0x7fffffff);
xgene_sim maps it as the silicon (acpi_ram_start/acpi_ram_size).

The layout is the one upstream's driver reads (drivers/perf/xgene_pmu.c):
the top-level device (_HID APMC0D5B X-Gene 1, APMC0D5C X-Gene 2, APMC0D83
X-Gene 3) has in _CRS the PCP CSR window, the CSW window, on X-Gene 1/2 the
MCB A and MCB B windows, then a level-high SPI; each child one window and a
_DSD "enable-bit-index" (device-properties UUID). The children listed are
those CSWCR/MCBADDRMR make active (NOTES.md section 6), so that every child
is a registered PMU:

  v1: CSWCR 0 (one MCB), MCBA 0x4 (dual MCU): l3c0 iob0 mcb0 mc0 mc1
  v2: CSWCR 1 (two MCBs), MCBA/B 0x4:         l3c0 iob0 mcb0-1 mc0-3
  v3: CSWCR 0x15 (two MCBs, routing 1/1):     l3c0-3 iob0 iob_slow0 mcb0-1
                                              mc0 mc1 mc4 mc5
RPMU_XGENE_CSWCR / RPMU_XGENE_MCBA / RPMU_XGENE_MCBB override the values
(the children listed stay the same).
"""
import os
import subprocess
import sys

RAM_START, RAM_SIZE = 0x90000000, 0x100000
CSW, MCBA, MCBB, PCP = RAM_START, RAM_START + 0x1000, RAM_START + 0x2000, RAM_START + 0x10000
BASE = {"l3c": 0x20000, "iob": 0x30000, "iob_slow": 0x31000, "mcb": 0x40000, "mc": 0x50000}
GSI = 132  # GIC SPI 100, as in the device trees
DSD_UUID = "daffd814-6eba-4d8c-8a91-bc9bbf4aa301"

TOP_HID = {1: "APMC0D5B", 2: "APMC0D5C", 3: "APMC0D83"}
CHILD_HID = {
    1: {"l3c": "APMC0D5D", "iob": "APMC0D5E", "mcb": "APMC0D5F", "mc": "APMC0D60"},
    3: {"l3c": "APMC0D84", "iob": "APMC0D85", "iob_slow": "APMC0D86", "mcb": "APMC0D87", "mc": "APMC0D88"},
}
CHILD_HID[2] = CHILD_HID[1]
TOPOLOGY = {
    1: ([("l3c", 0), ("iob", 0), ("mcb", 0), ("mc", 0), ("mc", 1)], 0x0, 0x4, 0x0),
    2: ([("l3c", 0), ("iob", 0), ("mcb", 0), ("mcb", 1)] + [("mc", i) for i in range(4)], 0x1, 0x4, 0x4),
    3: ([("l3c", i) for i in range(4)] + [("iob", 0), ("iob_slow", 0), ("mcb", 0), ("mcb", 1)]
        + [("mc", i) for i in (0, 1, 4, 5)], 0x15, None, None),
}


def mem(addr):
    return f"Memory32Fixed (ReadWrite, 0x{addr:08X}, 0x00001000)"


def asl(version):
    children, _, _, _ = TOPOLOGY[version]
    top_windows = [PCP, CSW] + ([MCBA, MCBB] if version < 3 else [])
    out = [
        'DefinitionBlock ("", "SSDT", 2, "RPMU", "XGENEPMU", 1)',
        "{",
        "    Scope (\\_SB)",
        "    {",
        "        Device (XPMU)",
        "        {",
        f'            Name (_HID, "{TOP_HID[version]}")',
        "            Name (_UID, 0)",
        "            Name (_CRS, ResourceTemplate () {",
    ]
    out += [f"                {mem(a)}" for a in top_windows]
    out += [
        f"                Interrupt (ResourceConsumer, Level, ActiveHigh, Exclusive) {{ {GSI} }}",
        "            })",
    ]
    for n, (kind, idx) in enumerate(children):
        addr = RAM_START + BASE[kind] + 0x1000 * idx
        out += [
            f"            Device (C{n:03X})",
            "            {",
            f'                Name (_HID, "{CHILD_HID[version][kind]}")',
            f"                Name (_UID, {idx})",
            f"                Name (_CRS, ResourceTemplate () {{ {mem(addr)} }})",
            "                Name (_DSD, Package () {",
            f'                    ToUUID ("{DSD_UUID}"),',
            f'                    Package () {{ Package () {{ "enable-bit-index", {idx} }} }}',
            "                })",
            "            }",
        ]
    out += ["        }", "    }", "}"]
    return "\n".join(out) + "\n"


def cpio_newc(entries):
    """An uncompressed newc archive of (path, data or None for a directory)."""
    blob = bytearray()
    for ino, (path, data) in enumerate(entries + [("TRAILER!!!", b"")], start=1):
        mode = 0o040755 if data is None else 0o100644
        data = data or b""
        name = path.encode() + b"\0"
        hdr = "070701" + "".join(
            f"{x:08X}" for x in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name), 0))
        blob += hdr.encode() + name
        blob += b"\0" * (-len(blob) % 4)
        blob += data
        blob += b"\0" * (-len(blob) % 4)
    return bytes(blob)


def main():
    version, outdir = int(sys.argv[1]), sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    src = os.path.join(outdir, "xgene.asl")
    with open(src, "w") as f:
        f.write(asl(version))
    subprocess.run(["iasl", "-p", os.path.join(outdir, "xgene"), src], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(outdir, "xgene.aml"), "rb") as f:
        aml = f.read()
    dirs = ["kernel", "kernel/firmware", "kernel/firmware/acpi"]
    with open(os.path.join(outdir, "acpi.cpio"), "wb") as f:
        f.write(cpio_newc([(d, None) for d in dirs] + [("kernel/firmware/acpi/xgene.aml", aml)]))

    _, cswcr, mcba, mcbb = TOPOLOGY[version]
    env = lambda k, d: int(os.environ[k], 0) if os.environ.get(k) else d
    regs = [(CSW, env("RPMU_XGENE_CSWCR", cswcr))]
    if version < 3:
        regs += [(MCBA, env("RPMU_XGENE_MCBA", mcba)), (MCBB, env("RPMU_XGENE_MCBB", mcbb))]
    img = bytearray(regs[-1][0] + 4 - CSW)
    for addr, value in regs:
        img[addr - CSW:addr - CSW + 4] = value.to_bytes(4, "little")
    with open(os.path.join(outdir, "regs.bin"), "wb") as f:
        f.write(img)
    print(f"{CSW:#x} {RAM_START:#x} {RAM_SIZE:#x}")


if __name__ == "__main__":
    main()

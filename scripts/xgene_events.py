#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The X-Gene PMU event tables, defined once in drivers/perf/xgene/events/*.json
(perf pmu-events style), turned into what other parts of the project need.

    xgene_events.py text VERSIONS   "<type> <event> <code>" lines, for tests;
                                    VERSIONS is v1v2 or v3
"""
import json
import pathlib
import sys

EVENTS = pathlib.Path(__file__).resolve().parent.parent / "drivers/perf/xgene/events"


def tables(versions):
    """(pmu type, [events]) for one version group, in a stable order."""
    for f in sorted(EVENTS.glob(f"*-{versions}.json")):
        yield f.name[: -len(f"-{versions}.json")], json.loads(f.read_text())


def main():
    mode, versions = sys.argv[1:3]
    if mode != "text":
        sys.exit(f"unknown mode {mode}")
    for pmu, events in tables(versions):
        for e in events:
            print(pmu, e["EventName"], int(e["EventCode"], 16))


if __name__ == "__main__":
    main()

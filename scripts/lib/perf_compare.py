"""The table of scripts/perf-compare.sh: medians over its rounds, per phase and per client.

Usage: perf_compare.py DIR [--json-out FILE] [--setting key=value]...

DIR holds one file per run, r<round>-<position>-<client>.jsonl, as the script wrote them: the
stdout of `reconsume perf --json` (one object) or of the Java harness (one object per JVM round;
the last one counts, which for java-warm is the warm-JIT round). Standard library only: it runs
with Debian's /usr/bin/python3.
"""

import json
import os
import re
import statistics
import sys

CLIENTS = [("reconsume", "reconsume"), ("java-fresh", "Java fresh"), ("java-warm", "Java warm")]
PHASES = ["publish", "consume + ack", "reconsumeLater"]
FILE_NAME = re.compile(r"^r(\d+)-(\d+)-([a-z-]+)\.jsonl$")


def results_of(path):
    """Every JSON object with "phases" in the file (other lines, e.g. errors, are skipped)."""
    found = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and "phases" in value:
                found.append(value)
    return found


def load(directory):
    """{round: {"order": [client...], "results": {client: [objects]}}}"""
    rounds = {}
    for name in sorted(os.listdir(directory)):
        match = FILE_NAME.match(name)
        if not match:
            continue
        number, position, client = int(match[1]), int(match[2]), match[3]
        entry = rounds.setdefault(number, {"order": {}, "results": {}})
        entry["order"][position] = client
        entry["results"][client] = results_of(os.path.join(directory, name))
    for entry in rounds.values():
        entry["order"] = [entry["order"][p] for p in sorted(entry["order"])]
    return rounds


def phase_samples(rounds, client, phase):
    """The phase's figures of the client's counted run (its last object) in every round."""
    samples = []
    for entry in rounds.values():
        runs = entry["results"].get(client) or []
        if not runs:
            continue
        for p in runs[-1]["phases"]:
            if p["name"] == phase:
                samples.append(p)
    return samples


def summarize(samples):
    # A phase that stopped before any operation completed has no rate or CPU per message (null):
    # its failures count, its figures cannot.
    failed = sum(s["failed"] for s in samples)
    samples = [s for s in samples if s.get("messagesPerSecond") is not None]
    if not samples:
        return None

    def values(get):
        return [get(s) for s in samples]

    rate = values(lambda s: s["messagesPerSecond"])
    cpu = values(lambda s: s["cpuMicrosPerMessage"])
    # Of that, the kernel's part (sockets; on loopback also the broker's TCP receive): the same
    # bytes cost both clients about the same there. Absent from results of older builds.
    kernel = [s["cpuSystemSeconds"] / s["messages"] * 1e6 for s in samples
              if "cpuSystemSeconds" in s]
    # Entries the broker read back from its bookies during the phase (not from its cache); absent
    # from older builds' results, null when the broker's metrics could not be read.
    bookie = [s["bookieEntryReads"] for s in samples if s.get("bookieEntryReads") is not None]
    return {
        "runs": len(samples),
        "rate": (statistics.median(rate), min(rate), max(rate)),
        "cpu": (statistics.median(cpu), min(cpu), max(cpu)),
        "kernel": statistics.median(kernel) if len(kernel) == len(samples) else None,
        "bookie": ((statistics.median(bookie), min(bookie), max(bookie))
                   if len(bookie) == len(samples) else None),
        "rssMiB": statistics.median(values(lambda s: s["peakRssBytes"] / 1048576)),
        "p50ms": statistics.median(values(lambda s: s["latency"]["p50"] * 1e3)),
        "p99ms": statistics.median(values(lambda s: s["latency"]["p99"] * 1e3)),
        "latencyOf": samples[0]["latency"]["of"],
        "failed": failed,
    }


def ratio(numerator, denominator):
    return f"x{numerator / denominator:.2f}" if denominator else "n/a"


def user_ratio(ours, theirs):
    """The CPU ratio outside the kernel (medians of each), when both runs measured the kernel."""
    if ours["kernel"] is None or theirs["kernel"] is None:
        return ""
    return f", outside the kernel {ratio(theirs['cpu'][0] - theirs['kernel'], ours['cpu'][0] - ours['kernel'])}"


def table(rounds):
    lines = []
    summary = {}
    header = (f"  {'client':<11} {'messages/s  [min-max]':>26} {'CPU us/msg  [min-max]':>23}"
              f" {'kernel':>7} {'RSS MiB':>8} {'p50 ms':>9} {'p99 ms':>9}")
    for phase in PHASES:
        figures = {c: summarize(phase_samples(rounds, c, phase)) for c, _ in CLIENTS}
        summary[phase] = figures
        of = next((f["latencyOf"] for f in figures.values() if f), "?")
        lines += ["", f"{phase} (latency of {of}; medians over rounds)", header]
        for client, label in CLIENTS:
            f = figures[client]
            if f is None:
                lines.append(f"  {label:<11} (no results)")
                continue
            rate = f"{f['rate'][0]:.0f} [{f['rate'][1]:.0f}-{f['rate'][2]:.0f}]"
            cpu = f"{f['cpu'][0]:.1f} [{f['cpu'][1]:.1f}-{f['cpu'][2]:.1f}]"
            kernel = "n/a" if f["kernel"] is None else f"{f['kernel']:.1f}"
            failed = f"  ({f['failed']} failed)" if f["failed"] else ""
            lines.append(f"  {label:<11} {rate:>26} {cpu:>23} {kernel:>7} {f['rssMiB']:8.1f}"
                         f" {f['p50ms']:9.3f} {f['p99ms']:9.3f}{failed}")
        reads = [f"{label} {f['bookie'][0]:.0f} [{f['bookie'][1]}-{f['bookie'][2]}]"
                 for client, label in CLIENTS
                 if (f := figures[client]) and f["bookie"] is not None]
        if reads:
            lines.append("  entries read back from the bookies, not the broker's cache: "
                         + ", ".join(reads))
        ours = figures["reconsume"]
        for client, label in reversed(CLIENTS[1:]):  # against the warm JVM first
            theirs = figures[client]
            if ours and theirs:
                lines.append(f"  reconsume vs {label}: rate {ratio(ours['rate'][0], theirs['rate'][0])}"
                             f" (ours / Java), CPU per message {ratio(theirs['cpu'][0], ours['cpu'][0])}"
                             f" (Java / ours){user_ratio(ours, theirs)}")
    return "\n".join(lines), summary


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    directory, json_out, settings = argv[0], None, {}
    rest = argv[1:]
    while rest:
        if rest[0] == "--json-out" and len(rest) > 1:
            json_out = rest[1]
        elif rest[0] == "--setting" and len(rest) > 1 and "=" in rest[1]:
            key, value = rest[1].split("=", 1)
            settings[key] = value
        else:
            sys.exit(f"perf_compare.py: unexpected argument '{rest[0]}'\n{__doc__}")
        rest = rest[2:]
    rounds = load(directory)
    if not rounds:
        sys.exit(f"perf_compare.py: no results in {directory}")
    text, summary = table(rounds)
    print(text)
    if json_out:
        document = {
            "settings": settings,
            "rounds": [{"round": n, **rounds[n]} for n in sorted(rounds)],
            "summary": summary,
        }
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""The table of scripts/perf-ab.sh: builds of `reconsume perf` against the first one.

Usage: perf_ab.py DIR PHASES BUILD...

PHASES: the phases of `reconsume perf` to show, comma-separated (e.g. "publish,reconsumeLater").

DIR holds one `reconsume perf --json` result per run, named b<broker>-r<round>-<index>.json, where
<index> is the build's position among BUILD... A round is one broker's round: every build ran once
in it. Standard library only (Debian's python3).
"""
import json
import math
import os
import re
import statistics
import sys

NAME = re.compile(r"^b(\d+)-r(\d+)-(\d+)\.json$")


def load(directory):
    """{(broker, round): {index: {phase name: phase}}}: every run's result, read once."""
    rounds = {}
    for name in sorted(os.listdir(directory)):
        match = NAME.match(name)
        if not match:
            continue
        broker, round_, index = (int(part) for part in match.groups())
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            result = json.load(f)
        rounds.setdefault((broker, round_), {})[index] = {
            p.get("name"): p for p in result.get("phases", [])}
    return rounds


def figures(phases, phase, where):
    """(rate, cpu_us, kernel_us, failed) of `phase` in one run's phases."""
    p = phases.get(phase)
    if p is None:
        sys.exit(f"perf_ab.py: {where} has no phase '{phase}'")
    if p["messagesPerSecond"] is None:
        sys.exit(f"perf_ab.py: {where}: phase '{phase}' completed no operation "
                 f"({p.get('failed', 0)} failed or not started)")
    kernel = p["cpuSystemSeconds"] / p["messages"] * 1e6 if p["messages"] else 0.0
    return p["messagesPerSecond"], p["cpuMicrosPerMessage"], kernel, p.get("failed", 0)


def fit_at(points, rate):
    """CPU per message at `rate` on the least-squares line through (rate, cpu) points."""
    if len(points) < 2:
        return None
    mean_rate = statistics.fmean(r for r, _ in points)
    mean_cpu = statistics.fmean(c for _, c in points)
    spread = sum((r - mean_rate) ** 2 for r, _ in points)
    if spread == 0:
        return mean_cpu
    slope = sum((r - mean_rate) * (c - mean_cpu) for r, c in points) / spread
    return mean_cpu + slope * (rate - mean_rate)


def sign_test(cheaper, rounds):
    """One-sided: the chance of `cheaper` or more cheaper rounds of `rounds` if the builds cost
    the same (each round a coin toss)."""
    return sum(math.comb(rounds, k) for k in range(cheaper, rounds + 1)) / 2**rounds


def span(values, fmt):
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}-{fmt(max(values))}]"


def table(rounds, phase, builds):
    complete = [(key, runs) for key, runs in sorted(rounds.items()) if len(runs) == len(builds)]
    if not complete:
        sys.exit("perf_ab.py: no complete round")
    # by_build[i][k]: build i's figures in the k-th complete round
    by_build = [[figures(runs[i], phase, f"broker {key[0]} round {key[1]} build {i + 1}")
                 for key, runs in complete] for i in range(len(builds))]
    common_rate = statistics.median(run[0] for build in by_build for run in build)
    failed = sum(run[3] for build in by_build for run in build)

    print(f"\n  {phase}: {len(complete)} paired rounds; CPU per message of the whole process, "
          f"microseconds; 'at {common_rate:,.0f}/s': read off each build's line of CPU against "
          f"rate at the median rate of all runs")
    header = ("build", "rate/s", "CPU us/msg", "kernel", f"at {common_rate:,.0f}/s",
              "CPU vs build 1, per round")
    rows = []
    for i, build in enumerate(by_build):
        fitted = fit_at([(r[0], r[1]) for r in build], common_rate)
        if i == 0:
            paired = "-"
        else:
            ratios = [run[1] / first[1] for run, first in zip(build, by_build[0])]
            cheaper = sum(ratio < 1 for ratio in ratios)
            paired = (f"{span(ratios, lambda v: f'{v:.3f}')}, cheaper in {cheaper} of "
                      f"{len(ratios)} (sign test p {sign_test(cheaper, len(ratios)):.2g})")
        rows.append((f"{i + 1} {builds[i]}", span([r[0] for r in build], lambda v: f"{v:,.0f}"),
                     span([r[1] for r in build], lambda v: f"{v:.2f}"),
                     f"{statistics.median(r[2] for r in build):.2f}",
                     "-" if fitted is None else f"{fitted:.2f}", paired))
    widths = [max(len(str(row[c])) for row in rows + [header]) for c in range(len(header))]
    for row in [header] + rows:
        print("  " + "  ".join(str(cell).ljust(widths[c]) for c, cell in enumerate(row)).rstrip())
    if failed:
        print(f"  warning: {failed} operations failed across the runs (see each build's output)")


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    directory, phases, builds = argv[1], argv[2].split(","), argv[3:]
    rounds = load(directory)
    for phase in phases:
        table(rounds, phase, builds)
    print("\n  p: the chance of that many cheaper rounds if the builds cost the same. A change shows "
          "as a small p (under 0.05) with the fitted figures agreeing; about half the rounds "
          "cheaper is noise, whatever the median.")


if __name__ == "__main__":
    main(sys.argv)

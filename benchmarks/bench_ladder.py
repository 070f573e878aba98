"""Mis-copied real edits: how many land exactly, land wrong, or are refused (and how helpfully).

Every real edit of ``tests/mistakes.py`` (the release hunks of ``tests/corpus/`` and edits of
real blocks of ``tests/symbol_samples/`` in a dozen languages) is sent to ``Workspace.edit_file``
on a real file as a model mis-copies it: CRLF, trailing whitespace, typographic punctuation,
line-number prefixes, one indentation level off, tabs for spaces, combinations; and traps (a
letter, a digit, a name, a blank line, an end line, inner spaces that differ), which must never
land. Per kind of mistake it counts the edits that landed exactly (the exact edit's bytes), wrong
(any other bytes), and the refusals, split by whether the error shows the intended lines (a
``similar_content`` region or a ``match_locations`` entry that overlaps the block the edit
meant). The edits run in ``interactive`` mode, so that the syntax guard does not hide what the
matching did. Goal, once edit_file tolerates such mistakes ("match ladder"): at least 90% of the
tolerable mistakes land exactly, none lands wrong, no trap lands, and every refusal shows the
intended lines.

It also times the path that every failing edit takes, the search for similar lines: the median
of a failing ``edit_file`` call (a three-line block with a typo) on a ~10 MB file, with the
default matching and, when ``edit_file`` has it, with ``exact=True``, in the same run.

    python benchmarks/bench_ladder.py [--quick] [--strict] [--show N]

Exits 1 when an edit lands wrong or a trap lands; with --strict also when a goal is missed.
"""

from __future__ import annotations

import argparse
import inspect
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the real edits and the mistakes live in tests/mistakes.py

from sample_code import SEED, code_line  # noqa: E402

from editguard import EditError, Workspace  # noqa: E402
from tests.mistakes import (  # noqa: E402
    MISTAKES,
    Case,
    Mistake,
    attempt,
    mistake_cases,
    real_edits,
    shows_intended_lines,
)

GOAL_EXACT = 0.90
QUICK_EVERY = 6  # --quick tries every 6th real edit


@dataclass
class Tally:
    """What happened to the cases of one kind of mistake."""

    cases: int = 0
    exact: int = 0
    wrong: int = 0
    shown: int = 0
    not_shown: int = 0
    rungs: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.cases += other.cases
        self.exact += other.exact
        self.wrong += other.wrong
        self.shown += other.shown
        self.not_shown += other.not_shown
        self.rungs.update(other.rungs)
        self.codes.update(other.codes)

    @property
    def refused(self) -> int:
        return self.shown + self.not_shown


def run_kind(ws: Workspace, folder: Path, mistake: Mistake, cases: list[Case]) -> Tally:
    """Send every case of ``mistake`` and count the outcomes."""
    tally = Tally(cases=len(cases))
    for case in cases:
        outcome = attempt(ws, folder, case)
        where = (
            f"{mistake.kind}: {case.edit.source} "
            f"(lines {case.edit.first_line}-{case.edit.last_line})"
        )
        if outcome.verdict == "exact":
            tally.exact += 1
            tally.rungs[outcome.match or "exact"] += 1
            if mistake.trap:
                tally.failures.append(f"trap landed: {where}")
        elif outcome.verdict == "wrong":
            tally.wrong += 1
            tally.failures.append(f"wrong: {where}")
        else:
            assert outcome.error is not None
            tally.codes[outcome.error.code] += 1
            if shows_intended_lines(outcome.error, case.edit):
                tally.shown += 1
            else:
                tally.not_shown += 1
                tally.failures.append(f"refused, lines not shown ({outcome.error.code}): {where}")
    return tally


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


HEADER = (
    f"{'mistake':<38} {'cases':>5} {'exact':>6} {'wrong':>5} {'refused':>7} {'shown':>5} "
    f"{'hidden':>6} {'exact %':>7}  landed via / refused as"
)


def row(name: str, t: Tally) -> str:
    """One line of the table."""
    via = t.rungs.most_common(2) if t.exact else t.codes.most_common(2)
    how = ", ".join(f"{k} {v}" for k, v in via) or "-"
    return (
        f"{name:<38} {t.cases:>5} {t.exact:>6} {t.wrong:>5} {t.refused:>7} {t.shown:>5} "
        f"{t.not_shown:>6} {_percent(t.exact, t.cases):>7}  {how}"
    )


def no_match_cost(lines_count: int, runs: int) -> tuple[float, float | None]:
    """Median seconds of a failing edit_file (a three-line block with a typo) on a large file:
    with the default matching, and with ``exact=True`` (None when edit_file has no such flag)."""
    rng = random.Random(SEED)
    lines = [code_line(n, rng) for n in range(lines_count)]
    middle = lines_count // 2
    block = "\n".join(lines[middle : middle + 3]) + "\n"
    typo_at = block.index("_")  # every line holds "{word}_{n}": change the letter before it
    old_text = block[: typo_at - 1] + "Q" + block[typo_at:]
    edits = [{"old_text": old_text, "new_text": "pass\n"}]
    has_exact = "exact" in inspect.signature(Workspace.edit_file).parameters
    variants: list[dict[str, Any]] = [{}, {"exact": True}] if has_exact else [{}]
    medians: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "big.py").write_text("\n".join(lines) + "\n")
        ws = Workspace([folder], prewarm=False)
        for options in variants:
            times: list[float] = []
            for _ in range(runs):
                start = time.perf_counter()
                try:
                    ws.edit_file("big.py", edits, **options)
                except EditError:
                    pass
                else:
                    raise AssertionError("the edit with a typo landed")
                times.append(time.perf_counter() - start)
            medians.append(statistics.median(times))
    return medians[0], (medians[1] if has_exact else None)


def main(argv: list[str] | None = None) -> int:
    """Print the outcome table of the mis-copied real edits and the cost of a failing edit."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="every 6th edit, ~1 MB (smoke run)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="list N failures a kind")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    edits = real_edits()
    if args.quick:
        edits = edits[::QUICK_EVERY]
    print(
        f"{len(edits)} real edits ({len({e.source.split(' ')[0] for e in edits})} files), "
        f"{len(MISTAKES)} kinds of mistake; edit_file in interactive mode"
    )
    print(HEADER)
    totals = {False: Tally(), True: Tally()}
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        ws = Workspace([folder], prewarm=False)
        for trap in (False, True):
            if trap:
                print(row("tolerable mistakes, total", totals[False]))
                print("traps (must be refused):")
            for mistake in (m for m in MISTAKES if m.trap == trap):
                tally = run_kind(ws, Path(folder), mistake, mistake_cases(mistake, edits))
                totals[trap].add(tally)
                print(row(mistake.kind, tally))
                failures += tally.failures[: args.show]
        print(row("traps, total", totals[True]))
    elapsed = time.perf_counter() - started
    print(f"({sum(t.cases for t in totals.values())} calls in {elapsed:.1f} s)")
    if failures:
        print("\nsome failures:")
        for failure in failures:
            print(f"  {failure}")

    tolerable, traps = totals[False], totals[True]
    refusals = tolerable.refused + traps.refused
    hidden = tolerable.not_shown + traps.not_shown
    goals = [
        (
            f"at least {GOAL_EXACT:.0%} of the tolerable mistakes land exactly",
            tolerable.exact >= GOAL_EXACT * tolerable.cases,
            f"{tolerable.exact} of {tolerable.cases} "
            f"({_percent(tolerable.exact, tolerable.cases).strip()})",
        ),
        (
            "no edit lands wrong",
            tolerable.wrong + traps.wrong == 0,
            f"{tolerable.wrong + traps.wrong} wrong",
        ),
        ("no trap lands", traps.exact == 0, f"{traps.exact} of {traps.cases} landed"),
        (
            "every refusal shows the intended lines",
            hidden == 0,
            f"{refusals - hidden} of {refusals} show them",
        ),
    ]
    print("\nrequirement (once edit_file tolerates such mistakes):")
    for goal, met, figure in goals:
        print(f"  {'ok  ' if met else 'FAIL'} {goal}: {figure}")

    lines_count, runs = (17_000, 2) if args.quick else (170_000, 5)
    default, exact = no_match_cost(lines_count, runs)
    size = "~1 MB" if args.quick else "~10 MB"
    print(f"\nNO_MATCH path, {size} file, 3-line block with a typo, median of {runs}:")
    print(f"  default matching: {default * 1000:8.1f} ms")
    if exact is None:
        print("  exact=True:       (edit_file has no exact flag yet)")
    else:
        ratio = default / exact
        print(f"  exact=True:       {exact * 1000:8.1f} ms  (default / exact: {ratio:.2f}x)")

    broken = not goals[1][1] or not goals[2][1]
    return 1 if broken or (args.strict and not all(met for _, met, _ in goals)) else 0


if __name__ == "__main__":
    raise SystemExit(main())

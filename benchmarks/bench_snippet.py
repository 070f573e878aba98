"""Snippets with elision markers, as models write them: how often the merge lands exactly, lands
wrong, or is refused.

Every case of ``tests/snippets.py`` is merged by edit_snippet's merger (``compile_snippet``, pure:
text in, plan out): snippets built from real changes (the release pairs of ``tests/corpus/`` and
edits of real code of ``tests/symbol_samples/`` in a dozen languages), of whole files and of one
definition, with 1 to 3 lines of context around each change and every other stretch elided by a
marker in the file's comment syntax; clean, without markers at the edges (starting and ending
mid-block), with a marker where only one line stays, and with the match ladder's slips on the
anchor lines (trailing whitespace, typographic quotes, the whole snippet one indentation level
off). Each case means one text, the file after the change: the merge must give exactly that text
or refuse. Anything else (a third text) is a wrong landing, the number this tool exists to keep
at zero.

It prints, per language, per kind and per scope, how many cases landed exactly, wrong, and were
refused; for the wrong ones, how many gave the file unchanged (a no-op: the change lost) and how
many the ``edit_snippet`` tool writes too (each wrong merge is also sent to the tool on a real
file: its check of removed definitions and its syntax guard may still refuse it); for the
refusals, how many had an anchor line that is not unique (a merger must refuse those); the
median time of one merge; and the requirements. A snippet without any marker is, by the rules,
the whole new text (of the file, or of the symbol): its merge is the fragment itself, and only
the tool's checks stand between it and the file, so for that kind the tool's verdict counts.

    python benchmarks/bench_snippet.py [--quick] [--strict] [--show N]

With --strict, exits 1 when a requirement is missed: a case lands wrong (through the tool, or
in the merge outside ``no_markers``), or fewer than 90% of the clean cases with unique anchors
land. Without it a miss is printed as FAIL (``tests/test_snippet_corpus.py`` is what fails on a
wrong landing that is not yet a known one).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the generator lives in tests/snippets.py

from tests.snippets import (  # noqa: E402
    KINDS,
    Outcome,
    SnippetCase,
    merge,
    reproduction,
    sample,
    snippet_cases,
    through_tool,
)

GOAL_CLEAN = 0.90
QUICK_CASES = 60


@dataclass
class Tally:
    cases: int = 0
    exact: int = 0
    wrong: int = 0
    refused: int = 0
    refused_ambiguous: int = 0  # refusals of cases whose anchors are not unique
    noop: int = 0  # wrong landings that gave the file unchanged (the change lost)
    tool_wrong: int = 0  # wrong landings that the edit_snippet tool writes too (the rest its
    # check of removed definitions or its syntax guard refuses)
    seconds: list[float] = field(default_factory=list)

    def add(self, case: SnippetCase, outcome: Outcome, tool: str) -> None:
        """One case: the merge's verdict, but for a snippet without markers (the whole text by
        the rules) the tool's, which stands between that merge and the file."""
        self.cases += 1
        self.tool_wrong += tool == "wrong"
        self.seconds.append(outcome.seconds)
        verdict = tool if case.kind == "no_markers" and tool else outcome.verdict
        if verdict == "exact":
            self.exact += 1
        elif verdict == "wrong":
            self.wrong += 1
            self.noop += outcome.got == case.old
        else:
            self.refused += 1
            self.refused_ambiguous += not case.anchors_unique


HEADER = (
    f"{'':28} {'cases':>6} {'exact':>6} {'wrong':>6} {'(no-op)':>8} {'tool':>5} "
    f"{'refused':>8} {'(ambig.)':>9} {'median':>9}"
)


def _row(label: str, t: Tally) -> str:
    median = statistics.median(t.seconds) * 1000 if t.seconds else 0.0
    exact = f"{t.exact / t.cases:.0%}" if t.cases else "-"
    return (
        f"  {label:26} {t.cases:6} {t.exact:6} {t.wrong:6} {t.noop:8} {t.tool_wrong:5} "
        f"{t.refused:8} {t.refused_ambiguous:9} {median:7.2f}ms  ({exact} exact)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_CASES} cases spread evenly")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--show", type=int, default=5, help="wrong landings to print in full")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    every = snippet_cases()
    cases = sample(every, QUICK_CASES) if args.quick else list(every)
    generated = time.perf_counter() - started
    by_language: dict[str, Tally] = defaultdict(Tally)
    by_kind: dict[str, Tally] = defaultdict(Tally)
    by_scope: dict[str, Tally] = defaultdict(Tally)
    total, clean_unique = Tally(), Tally()
    wrong: list[str] = []
    started = time.perf_counter()
    merger_wrong = 0  # wrong merges outside no_markers (whose whole replacement is the rule)
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            outcome = merge(case)
            # A wrong merge is sent to the tool too: its definition check and syntax guard may
            # still refuse it; what it writes is what a user gets.
            tool = through_tool(case, Path(folder)) if outcome.verdict == "wrong" else ""
            scope = "one definition (symbol)" if case.span else "whole file"
            for tally in (by_language[case.language], by_kind[case.kind], by_scope[scope], total):
                tally.add(case, outcome, tool)
            if case.kind == "clean" and case.anchors_unique:
                clean_unique.add(case, outcome, tool)
            counted = case.kind != "no_markers" or tool == "wrong"
            if outcome.verdict == "wrong" and counted:
                merger_wrong += case.kind != "no_markers"
                wrong.append(reproduction(case, outcome) + f"\n(the edit_snippet tool: {tool})")
    elapsed = time.perf_counter() - started

    load = ", ".join(f"{x:.2f}" for x in _loadavg())
    print(
        f"edit_snippet's merge on {len(cases)} generated snippets of real changes "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {load}, "
        f"Python {platform.python_version()})"
    )
    print(HEADER)
    print("by language:")
    for language in sorted(by_language, key=lambda x: -by_language[x].cases):
        print(_row(language, by_language[language]))
    print("by kind of snippet:")
    for kind in KINDS:
        if kind in by_kind:
            print(_row(kind, by_kind[kind]))
    print("by scope:")
    for scope in sorted(by_scope):
        print(_row(scope, by_scope[scope]))
    print(_row("total", total))
    print(_row("clean, unique anchors", clean_unique))
    print(f"({len(cases)} merges in {elapsed:.1f} s; generating the corpus took {generated:.1f} s)")
    for text in wrong[: args.show]:
        print("\nWRONG LANDING " + text)

    goals = [
        (
            "no snippet lands wrong through the edit_snippet tool",
            total.tool_wrong == 0,
            f"{total.tool_wrong} wrong of {total.cases}",
        ),
        (
            "the merge lands none wrong (but a snippet without markers, which is the whole text)",
            merger_wrong == 0,
            f"{merger_wrong} wrong",
        ),
        (
            f"at least {GOAL_CLEAN:.0%} of the clean snippets with unique anchors land",
            clean_unique.exact >= GOAL_CLEAN * clean_unique.cases,
            f"{clean_unique.exact} of {clean_unique.cases}",
        ),
    ]
    median = statistics.median(total.seconds) * 1000 if total.seconds else 0.0
    print(
        f"\nsummary: {total.cases} snippets, {total.exact} landed exactly, {total.wrong} landed "
        f"wrong ({total.noop} of them no-ops, the change lost; {total.tool_wrong} written wrong "
        f"through the edit_snippet tool), {total.refused} refused; median {median:.2f} ms a merge"
    )
    print("requirement:")
    for goal, met, figure in goals:
        print(f"  {'ok  ' if met else 'FAIL'} {goal}: {figure}")
    return 1 if args.strict and not all(met for _, met, _ in goals) else 0


def _loadavg() -> tuple[float, float, float]:
    try:
        import os

        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


if __name__ == "__main__":
    raise SystemExit(main())

"""The Python guard's cost for one edit of a 5,000-line file, and whether background parsing
slows the next call.

* **guard**: the whole-module ``compile()`` the guard ran before issue 14, against
  ``validate.python.check_edit`` (the region the edit touched, the old text known to compile, as
  it is after the previous edit), and ``editguard.validate.validate`` end to end. Median of
  repeated edits, each on the text the previous one made.
* **edit_file back-to-back vs spaced**: in-process ``Workspace.edit_file`` on a real 5,000-line
  ``.py`` file (atomic write, history, background parse after each write), one call right after
  the other, then with 50 ms between calls (a model's pause). Medians; the two should match.
* **comparison run**: random breakages and valid edits of real Python (``tests/corpus/``,
  editguard's source and the largest installed modules, see ``tests/python_breakages.py``),
  each judged by the region check and by the whole compile: how often they agree (must be
  every time: the script exits 1 otherwise) and the time each took.

    python benchmarks/bench_guard.py [--quick] [--strict]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the random edits live in tests/python_breakages.py

from editguard import Workspace, prewarm  # noqa: E402
from editguard.core.plan import Plan, Replacement  # noqa: E402
from editguard.validate import python, validate  # noqa: E402
from tests.python_breakages import (  # noqa: E402
    compile_whole,
    python_sources,
    random_edit,
    seeded,
)

GOAL_GUARD_MS = 5.0  # the whole MCP round trip's budget; the guard must be a small part of it
# Pauses between calls: shorter than prewarm.QUIET (nothing is parsed between the calls), and
# long enough for the background parse of the written text to run and finish between them.
SPACINGS = (0.05, 0.25)


def python_file(lines: int) -> str:
    return "".join(
        f"def f{i}(a, b):\n    x = a + b * {i}\n    return x - {i}\n\n" for i in range(lines // 4)
    )


def toggled(text: str, k: int) -> tuple[str, Plan, str, str]:
    """Edit ``k``: ``a + b`` <-> ``b + a`` in one function (spread over the file); the new text,
    the plan, and the line before and after (as edit_file's old_text and new_text)."""
    n = k * 37 % 1250
    end = text.index(f" * {n}\n") + len(f" * {n}\n")
    start = text.rindex("\n", 0, end - 1) + 1
    line = text[start:end]
    new_line = line.replace("a + b", "b + a") if "a + b" in line else line.replace("b + a", "a + b")
    plan = Plan((Replacement(start, end, new_line),))
    return plan.apply_to_text(text), plan, line, new_line


def guard_times(repeats: int) -> dict[str, float]:
    """Median ms per edit: whole compile, region check, validate() end to end."""
    text = python_file(5000)
    assert python.check(text) is None
    samples: dict[str, list[float]] = {"whole": [], "region": [], "validate": []}
    for k in range(repeats):
        new, plan, _, _ = toggled(text, k)
        start = time.perf_counter()
        assert compile_whole(new) is None
        samples["whole"].append(time.perf_counter() - start)
        start = time.perf_counter()
        assert python.check_edit(text, new, plan) is None
        samples["region"].append(time.perf_counter() - start)
        newer, plan, _, _ = toggled(new, k + 1)
        start = time.perf_counter()
        report = validate("m.py", new, newer, plan)
        samples["validate"].append(time.perf_counter() - start)
        assert not report.findings
        text = newer
    return {key: statistics.median(v) * 1000 for key, v in samples.items()}


def edit_file_times(calls: int) -> dict[tuple[float, bool], float]:
    """Median ms of Workspace.edit_file by (pause between calls, background parsing on).

    The machine is shared and its disk noisy: each configuration edits its own file, and the
    configurations take turns in rounds of 10 calls, so that a slow minute hits all of them."""
    configs = [(pause, warm) for pause in (0.0, *SPACINGS) for warm in (True, False)]
    samples: dict[tuple[float, bool], list[float]] = {c: [] for c in configs}
    with tempfile.TemporaryDirectory() as folder:
        texts: dict[tuple[float, bool], str] = {}
        spaces: dict[tuple[float, bool], Workspace] = {}
        for n, config in enumerate(configs):
            (Path(folder) / f"m{n}.py").write_text(python_file(5000))
            spaces[config] = Workspace([folder], prewarm=config[1])
            spaces[config].read_file(f"m{n}.py", 1, 1)  # as an agent does before it edits
            texts[config] = python_file(5000)
        k = 0
        for _ in range(max(1, calls // 10)):
            for n, config in enumerate(configs):
                pause = config[0]
                prewarm.SHARED.wait_idle(5)
                for _ in range(10):
                    new, _, line, new_line = toggled(texts[config], k)
                    k += 1
                    start = time.perf_counter()
                    spaces[config].edit_file(f"m{n}.py", [{"old_text": line, "new_text": new_line}])
                    samples[config].append(time.perf_counter() - start)
                    texts[config] = new
                    time.sleep(pause)
    return {c: statistics.median(v) * 1000 for c, v in samples.items()}


def comparison(edits: int, installed: int) -> dict[str, float]:
    """Counts (edits, agree, valid, region) and seconds (whole and guard, on valid edits)."""
    out = dict.fromkeys(("edits", "agree", "valid", "region", "whole_s", "guard_s"), 0.0)
    for name, text in python_sources(installed=installed):
        rng = seeded(name, 7)
        old = text
        python.check(old)
        for _ in range(edits):
            _kind, plan = random_edit(old, rng)
            new = plan.apply_to_text(old)
            start = time.perf_counter()
            expected = compile_whole(new)
            middle = time.perf_counter()
            region = python.region_accepts(old, new, plan)
            got = None if region else python.check(new)
            end = time.perf_counter()
            out["edits"] += 1
            out["agree"] += got == expected
            out["region"] += region
            if expected is None:
                out["valid"] += 1
                out["whole_s"] += middle - start
                out["guard_s"] += end - middle
                old = new
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the guard's cost, edit_file back-to-back vs spaced, and the comparison run."""
    parser = argparse.ArgumentParser(description="Python guard cost")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args(argv)
    repeats, calls = (5, 10) if args.quick else (60, 80)
    edits, installed = (3, 0) if args.quick else (20, 10)

    guard = guard_times(repeats)
    print(f"one edit of a 5,000-line Python file; median of {repeats} edits")
    print(f"{'case':<52} {'median':>9}  requirement")
    print(f"{'guard before issue 14: compile() of the whole module':<52} {guard['whole']:>6.2f} ms")
    ok_guard = guard["region"] < GOAL_GUARD_MS
    print(
        f"{'guard now: the region the edit touched':<52} {guard['region']:>6.2f} ms"
        f"  < {GOAL_GUARD_MS:g} ms {'' if ok_guard else 'FAIL'}"
    )
    print(f"{'validate() end to end (valid edit)':<52} {guard['validate']:>6.2f} ms")

    edit = edit_file_times(calls)
    ratio = edit[0.0, True] / min(edit[p, True] for p in SPACINGS)
    ok_spacing = ratio < 1.5
    print(f"\nWorkspace.edit_file on the file (atomic write, history); median of {calls}")
    print(f"{'calls':<40} {'parse ahead':>12} {'no parse ahead':>15}")
    for p in (0.0, *SPACINGS):
        label = f"spaced {p * 1000:g} ms apart" if p else "back-to-back"
        print(f"{label:<40} {edit[p, True]:>9.2f} ms {edit[p, False]:>12.2f} ms")
    print(
        f"requirement: back-to-back within 1.5x of spaced (parse ahead): {ratio:.2f}x"
        f" {'' if ok_spacing else 'FAIL'}"
    )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # random edits make odd but valid code
        run = comparison(edits, installed)
    total, agree = int(run["edits"]), int(run["agree"])
    print(f"\ncomparison run: {total} random edits of real Python ({edits} a file, seed 7)")
    print(f"{'agree with the whole compile (refused or not, same line)':<58} {agree} of {total}")
    print(
        f"{'valid edits / judged by their region alone':<58} "
        f"{run['valid']:.0f} / {run['region']:.0f}"
    )
    print(
        f"{'valid edits, time: whole compile / guard':<58} {run['whole_s'] * 1000:.0f} / "
        f"{run['guard_s'] * 1000:.0f} ms = {run['whole_s'] / max(run['guard_s'], 1e-9):.1f}x"
    )
    print("requirement: every edit agrees (exit 1 otherwise)")
    if agree != total:
        return 1
    return 1 if args.strict and not (ok_guard and ok_spacing) else 0


if __name__ == "__main__":
    raise SystemExit(main())

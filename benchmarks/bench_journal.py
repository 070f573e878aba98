"""What the journal costs, and what it guarantees under kill -9.

(a) The overhead of the journal on one edit: the median time of a one-line ``edit_file`` through
``Workspace`` (the single-file path: atomic write, no journal), of the same edit as the only call
of a ``batch`` (the journal), and of a ``batch`` editing two files. (b) A 20-file commit (8
updates, 6 creations, 6 deletions) started in a forked child and killed with SIGKILL at a random
instant within its duration, N times: after the recovery a new Workspace runs, how many runs were
all-old, all-new or mixed, and how many left files behind. (c) A 100-file ``batch`` (write_file
and edit_file over real source files, copies of tests/corpus) and its median time. (d) One
``apply_patch`` and one ``apply_diff`` changing those 100 files, median time.

    python benchmarks/bench_journal.py [--quick] [--kills N] [--strict]
"""

from __future__ import annotations

import argparse
import difflib
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the 20-file commit and the kill machinery: tests/crashes.py

from editguard import PatchResult, Workspace  # noqa: E402
from tests.crashes import TWENTY, commit_time, kill_at_random, leftovers, outcome  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"


def _median_ms(run: Callable[[int], Any], runs: int) -> float:
    times = []
    for n in range(runs):
        start = time.perf_counter()
        run(n)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _edit(path: str, n: int) -> dict[str, Any]:
    """A one-line edit that flips the line back and forth, so that every run changes it."""
    old, new = ("value = 0", "value = 1") if n % 2 == 0 else ("value = 1", "value = 0")
    return {"path": path, "edits": [{"old_text": old, "new_text": new}]}


def overhead(folder: Path, runs: int) -> dict[str, float]:
    """(a): median milliseconds of one edit without and with the journal."""
    root, journals = folder / "overhead", folder / "overhead-journal"
    root.mkdir()
    lines = [f"line_{n} = {n}\n" for n in range(200)]
    for name in ("a.py", "b.py"):
        (root / name).write_text("".join(lines[:100]) + "value = 0\n" + "".join(lines[100:]))
    ws = Workspace([root], journal=journals, prewarm=False)
    return {
        "edit_file (no journal)": _median_ms(lambda n: ws.edit_file(**_edit("a.py", n)), runs),
        "batch, 1 call (journal)": _median_ms(
            lambda n: ws.batch([{"tool": "edit_file", "arguments": _edit("a.py", n)}]), runs
        ),
        "batch, 2 files (journal)": _median_ms(
            lambda n: ws.batch(
                [
                    {"tool": "edit_file", "arguments": _edit("a.py", n)},
                    {"tool": "edit_file", "arguments": _edit("b.py", n)},
                ]
            ),
            runs,
        ),
    }


def kills(folder: Path, count: int, seed: int) -> tuple[dict[str, int], float]:
    """(b): outcomes of ``count`` 20-file commits killed at random instants; and the length of
    one commit that nobody kills (ms)."""
    scratch = folder / "reference"
    new = TWENTY.reference(scratch / "root", scratch / "journal")
    root, journals = folder / "timing", folder / "timing-journal"
    TWENTY.setup(root)

    def commit_in(root: Path, journals: Path) -> Callable[[], Any]:
        return lambda: TWENTY.commit(Workspace([root], journal=journals, prewarm=False))

    duration = commit_time(commit_in(root, journals))
    rng = random.Random(seed)
    seen = {"old": 0, "new": 0, "mixed": 0, "killed": 0, "left behind": 0}
    for run in range(count):
        root, journals = folder / f"kill-{run}", folder / f"kill-{run}-journal"
        old = TWENTY.setup(root)
        if kill_at_random(commit_in(root, journals), 1.2 * duration, rng):
            seen["killed"] += 1
        Workspace([root], journal=journals, prewarm=False)  # recovery at start
        seen[outcome(root, old, new)] += 1
        seen["left behind"] += bool(leftovers(root, journals))
        shutil.rmtree(root)
        shutil.rmtree(journals, ignore_errors=True)
    return seen, duration * 1000


def _sources() -> list[tuple[str, str, str | None]]:
    """(name, text, changed text or None) of the corpus's text files."""
    out = []
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix == ".new" or path.name == "MANIFEST.md":
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        new_path = path.with_suffix(".new") if path.suffix == ".old" else None
        new = None
        if new_path is not None and new_path.exists():
            try:
                new = new_path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                new = None
        name = f"{path.parent.name}/{path.name.removesuffix('.old')}"
        out.append((name, text, new))
    return out


def hundred(folder: Path, files: int, runs: int) -> tuple[float, int]:
    """(c): median milliseconds of one batch over ``files`` real files, and its total bytes."""
    root, journals = folder / "hundred", folder / "hundred-journal"
    sources = _sources()
    calls: list[dict[str, Any]] = []
    originals: dict[Path, bytes] = {}
    size = 0
    for n in range(files):
        name, text, new = sources[n % len(sources)]
        rel = f"copy{n // len(sources)}/{name}"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        originals[path] = text.encode("utf-8")
        size += len(text)
        lines = [line for line in text.removeprefix("\ufeff").splitlines() if line.strip()]
        unique = next((line for line in lines if text.count(line) == 1), None)
        if (new is not None and n % 2 == 0) or unique is None:
            content = new if new is not None else text + "# appended\n"
            calls.append({"tool": "write_file", "arguments": {"path": rel, "content": content}})
        else:
            # A trailing space: a change that every language's syntax check lets through.
            edit = {"old_text": unique, "new_text": unique + " "}
            calls.append({"tool": "edit_file", "arguments": {"path": rel, "edits": [edit]}})
    ws = Workspace([root], journal=journals, prewarm=False)
    times = []
    for _ in range(runs):
        for path, data in originals.items():  # restored, untimed
            path.write_bytes(data)
        start = time.perf_counter()
        result = ws.batch(calls)
        times.append(time.perf_counter() - start)
        assert result.written
    return statistics.median(times) * 1000, size


def patches(folder: Path, files: int, runs: int) -> dict[str, float]:
    """(d): median milliseconds of one apply_patch and one apply_diff changing ``files`` real
    files (the release changes of tests/corpus where a file has one, else one line)."""
    root, journals = folder / "patches", folder / "patches-journal"
    sources = _sources()
    originals: dict[Path, bytes] = {}
    diff_parts: list[str] = []
    patch_parts: list[str] = ["*** Begin Patch\n"]
    for n in range(files):
        name, text, new = sources[n % len(sources)]
        text = text.removeprefix("\ufeff").replace("\r\n", "\n")
        text += "" if text.endswith("\n") else "\n"
        lines = text.splitlines(keepends=True)
        if new is not None:
            new = new.removeprefix("\ufeff").replace("\r\n", "\n")
            new += "" if new.endswith("\n") else "\n"
        else:
            at = next(i for i, line in enumerate(lines) if line.strip() and text.count(line) == 1)
            new = "".join([*lines[:at], lines[at].rstrip("\n") + " \n", *lines[at + 1 :]])
        rel = f"copy{n // len(sources)}/{name}"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        originals[path] = text.encode("utf-8")
        diff = "".join(
            difflib.unified_diff(lines, new.splitlines(keepends=True), f"a/{rel}", f"b/{rel}")
        )
        diff_parts.append(diff)
        patch_parts.append(f"*** Update File: {rel}\n")
        patch_parts += [
            "@@\n" if line.startswith("@@") else line for line in diff.splitlines(keepends=True)[2:]
        ]
    patch_parts.append("*** End Patch\n")
    ws = Workspace([root], journal=journals, prewarm=False)
    calls: dict[str, Callable[[], PatchResult]] = {
        "apply_patch": lambda: ws.apply_patch("".join(patch_parts)),
        "apply_diff": lambda: ws.apply_diff("".join(diff_parts)),
    }
    out = {}
    for label, call in calls.items():
        times = []
        for _ in range(runs):
            for path, data in originals.items():  # restored, untimed
                path.write_bytes(data)
            start = time.perf_counter()
            result = call()
            times.append(time.perf_counter() - start)
            assert result.written
            assert len(result.files) == files
        out[label] = statistics.median(times) * 1000
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the journal's overhead, the outcomes of killed commits and a 100-file batch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="few runs and kills (a smoke run)")
    parser.add_argument("--kills", type=int, default=None, help="killed commits (default 200)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a requirement fails")
    args = parser.parse_args(argv)
    # Even numbers of runs: each edit flips the line back.
    runs, count, batch_runs = (6, 10, 1) if args.quick else (50, 200, 5)
    if args.kills is not None:
        count = args.kills
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        print(f"(a) one one-line edit in a 200-line file, median of {runs} runs")
        for label, ms in overhead(folder, runs).items():
            print(f"    {label:<28} {ms:>7.2f} ms")
        seen, duration = kills(folder, count, seed=20261123)
        print(
            f"(b) a 20-file commit ({duration:.1f} ms unkilled) killed at a random instant, "
            f"{count} times; recovered by a new Workspace"
        )
        print(
            f"    killed before it ended: {seen['killed']}; all-old: {seen['old']}; "
            f"all-new: {seen['new']}; mixed: {seen['mixed']}; left files behind: "
            f"{seen['left behind']}"
        )
        ms, size = hundred(folder, 100, batch_runs)
        print(f"(c) one batch over 100 real source files ({size:,} chars): {ms:.0f} ms")
        for label, ms in patches(folder, 100, batch_runs).items():
            print(f"(d) one {label} changing 100 real source files: {ms:.0f} ms")
    ok = seen["mixed"] == 0 and seen["left behind"] == 0
    print(
        "requirement: no killed commit is mixed, none leaves a file behind: "
        + ("PASS" if ok else "FAIL")
    )
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    raise SystemExit(main())

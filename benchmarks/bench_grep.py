"""grep over a large tree: editguard's ``grep`` (through :class:`~editguard.Workspace`) beside
ripgrep run by hand on the same tree, in the same run.

The tree: 50,000 code-like Python files (``sample_code``: unique lines, ~30 a file) in 500
folders, a ``.gitignore`` that hides one ``build/`` folder of 1,000 more files, and a few files
holding a rare marker. Searched for:

(a) a rare literal (``FIXME(bench-marker)``, in 25 files): the cost of walking the tree;
(b) a common literal (``return``, in most files): editguard shows 100 lines and counts the rest;
(c) a regex (``def \\w+_2\\d?\\(``).

ripgrep by hand is ``rg --line-number PATTERN TREE`` (``--fixed-strings`` for a literal), its
output read to the end by this script. editguard runs the same ``rg`` with ``--json`` and parses
what it prints. Each figure is the median of several runs; the requirement (issue 15) is the same
order of magnitude: editguard within 10 times ripgrep by hand. The Python scan (no ripgrep) is
timed once on (a), for scale.

    python benchmarks/bench_grep.py [--quick] [--strict]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from sample_code import SEED, code_line

from editguard import Workspace
from editguard.fs import ripgrep

RATIO_LIMIT = 10.0
MARKER = "FIXME(bench-marker)"
SEARCHES: tuple[tuple[str, str, bool], ...] = (
    ("rare literal", MARKER, False),
    ("common literal", "return", False),
    ("regex", r"def \w+_2\d?\(", True),
)


def build_tree(root: Path, files: int, lines: int) -> None:
    """``files`` source files in folders of 100, a gitignored build folder, a rare marker."""
    rng = random.Random(SEED)
    marked = set(rng.sample(range(files), 25))
    for n in range(files):
        folder = root / f"pkg{n // 100:03}"
        if n % 100 == 0:
            folder.mkdir(parents=True)
        body = [code_line(i, rng) for i in range(lines)]
        if n in marked:
            body.insert(rng.randrange(lines), f"    # {MARKER}: look at this")
        (folder / f"mod{n % 100:02}.py").write_text("\n".join(body) + "\n")
    (root / ".gitignore").write_text("build/\n")
    build = root / "build"
    build.mkdir()
    for n in range(files // 50):
        (build / f"gen{n}.py").write_text(f"# {MARKER}\nreturn {n}\n")


def median_time(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small tree, few runs (smoke)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a requirement fails")
    args = parser.parse_args(argv)
    files, lines, repeats = (2_000, 10, 2) if args.quick else (50_000, 30, 7)
    rg = ripgrep.find_rg()
    if rg is None:
        print("rg not found (install the ripgrep wheel): nothing to compare; requirement: n/a")
        return 1 if args.strict else 0
    folder = Path(tempfile.mkdtemp(prefix="editguard-bench-grep-"))
    failed = False
    try:
        start = time.perf_counter()
        build_tree(folder / "tree", files, lines)
        tree = folder / "tree"
        size = sum(p.stat().st_size for p in tree.rglob("*.py"))
        print(
            f"tree: {files:,} files ({size / 1e6:.0f} MB) + {files // 50:,} gitignored, "
            f"built in {time.perf_counter() - start:.1f} s; {rg}"
        )
        ws = Workspace([tree], history=False, prewarm=False)
        # Warm the page cache (and both code paths) once before timing.
        subprocess.run([rg, "-n", "x", str(tree)], capture_output=True, check=False)
        ws.grep("x")
        print(f"{'search':<16}{'matches':>9}{'rg by hand':>12}{'grep':>10}{'ratio':>8}")
        for label, pattern, regex in SEARCHES:
            flags = [] if regex else ["--fixed-strings"]
            command = [rg, "--line-number", "--case-sensitive", *flags, "--", pattern, str(tree)]
            by_hand = median_time(partial(subprocess.run, command, capture_output=True), repeats)
            search = partial(ws.grep, pattern, regex=regex, case="sensitive")
            result = search()
            ours = median_time(search, repeats)
            ratio = ours / by_hand
            failed = failed or ratio > RATIO_LIMIT
            print(
                f"{label:<16}{result.matches:>9,}{by_hand * 1000:>10.0f} ms"
                f"{ours * 1000:>8.0f} ms{ratio:>7.1f}x"
            )
        os.environ[ripgrep.RG_ENV] = ""
        try:
            start = time.perf_counter()
            slow = ws.grep(MARKER, case="sensitive")
            took = time.perf_counter() - start
        finally:
            del os.environ[ripgrep.RG_ENV]
        print(
            f"Python scan (no rg), rare literal, one run: {took:.2f} s, {slow.matches} matches"
            + (f" ({slow.note})" if slow.note else "")
        )
        verdict = "FAIL" if failed else "ok"
        print(f"requirement: grep within {RATIO_LIMIT:g}x of rg by hand on every search: {verdict}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())

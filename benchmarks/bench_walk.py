"""What the listing tools cost on a large tree: ``directory_tree``, ``find_files`` and
``list_directory`` over a generated tree of 50,000 files (50 packages x 20 modules x 50 files,
with a .gitignore), against the floor of a bare ``os.scandir`` walk with one ``lstat`` an entry
(what any walker has to do) and ``find`` run by hand.

Each figure is the best of a few runs (the machine is shared; the best run is the least
disturbed). Nothing is judged: the figures are printed.

    python benchmarks/bench_walk.py [--quick] [--runs N] [--strict]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from editguard import Workspace


def make_tree(root: Path, packages: int, modules: int, files: int) -> int:
    """Write the tree; return how many files it holds."""
    (root / ".gitignore").write_text("*.pyc\nbuild/\n")
    count = 0
    for p in range(packages):
        for m in range(modules):
            folder = root / f"pkg{p}" / f"mod{m}"
            folder.mkdir(parents=True)
            for f in range(files):
                (folder / f"f{f}.py").write_text("x = 1\n")
                count += 1
    return count


def bare_walk(path: str) -> int:
    """The floor: scandir and one lstat an entry, no rules."""
    seen = 0
    stack = [path]
    while stack:
        with os.scandir(stack.pop()) as scan:
            for entry in scan:
                seen += 1
                entry.stat(follow_symlinks=False)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return seen


def best(runs: int, call: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 2,000-file tree, one run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--strict", action="store_true", help="accepted; no requirement here")
    args = parser.parse_args(argv)
    shape = (4, 10, 50) if args.quick else (50, 20, 50)
    runs = 1 if args.quick else args.runs
    folder = Path(tempfile.mkdtemp(prefix="editguard-bench-walk-"))
    try:
        files = make_tree(folder, *shape)
        ws = Workspace([folder], history=False, prewarm=False)
        print(f"tree: {files:,} files in {shape[0] * shape[1]:,} folders")
        print("requirement: none; figures only (issue 15 asks for them beside find by hand)")
        rows = [
            ("bare scandir + lstat (floor)", lambda: bare_walk(str(folder))),
            (
                "find -name '*.py' (by hand)",
                lambda: subprocess.run(
                    ["find", str(folder), "-name", "*.py"], capture_output=True, check=True
                ),
            ),
            ("directory_tree depth 3", lambda: ws.directory_tree(".")),
            ("find_files '*.py' (newest first)", lambda: ws.find_files("*.py")),
            ("find_files 'f7.py', sort name", lambda: ws.find_files("f7.py", sort="name")),
            ("list_directory of a 50-file folder", lambda: ws.list_directory("pkg0/mod0")),
        ]
        for name, call in rows:
            print(f"{name:40} {best(runs, call) * 1000:9.1f} ms")
    finally:
        shutil.rmtree(folder)
    print("done")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

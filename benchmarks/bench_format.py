"""The time ``format: true`` adds to one edit (requirement: none stated; formatting is opt-in and
runs before the write, so it is the formatter's own start-up plus its run on the range).

One edit_file call inserting a badly formatted function into a 5,000-line file, through the
Python API, with ``format`` off and on, each the median of repeated calls (the file is put back
between them; no analyzer runs):

* Python: ``ruff format --range`` (the ruff that comes with editguard);
* TypeScript: the project's prettier (``--range-start/--range-end``), when a node_modules folder
  with prettier is given (``--prettier DIR``, e.g. the one tests/test_format.py installs in
  ``~/.cache/editguard-test-prettier/node_modules``).

    python benchmarks/bench_format.py [--quick] [--prettier DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from editguard import Workspace


def python_file(lines: int) -> str:
    return "".join(
        f"def f{i}(a, b):\n    x = a + b * {i}\n    return x - {i}\n\n" for i in range(lines // 4)
    )


def typescript_file(lines: int) -> str:
    return "".join(
        f"export function f{i}(a: number, b: number): number {{\n  return a + b * {i};\n}}\n\n"
        for i in range(lines // 4)
    )


def timed(ws: Workspace, path: Path, text: str, edit: dict[str, str], fmt: bool, n: int) -> float:
    samples = []
    for _ in range(n):
        path.write_text(text)
        start = time.perf_counter()
        result = ws.call("edit_file", path=path.name, edits=[edit], format=fmt)
        samples.append(time.perf_counter() - start)
        note = getattr(result, "format_note", None)
        if note:
            raise SystemExit(f"formatting failed: {note}")
    return statistics.median(samples) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few runs only (a smoke test)")
    parser.add_argument("--strict", action="store_true", help="(no requirement to miss)")
    parser.add_argument("--prettier", type=Path, help="a node_modules folder holding prettier")
    args = parser.parse_args(argv)
    n = 3 if args.quick else 15
    lines = 5_000
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
        ws = Workspace([root], history=False, analyzers=(), formatters=["ruff", "prettier"])
        rows = []
        py = root / "big.py"
        edit = {
            "old_text": "    return x - 1000\n",
            "new_text": "    return x - 1000\n\n\ndef  g(a,b):\n    return {  'a':a,'b' :b}\n",
        }
        text = python_file(lines)
        off = timed(ws, py, text, edit, False, n)
        on = timed(ws, py, text, edit, True, n)
        rows.append(("Python, ruff format --range", off, on))
        if args.prettier is not None:
            (root / "package.json").write_text('{"name": "bench"}\n')
            (root / "node_modules").symlink_to(args.prettier.resolve())
            ts = root / "big.ts"
            edit = {
                "old_text": "  return a + b * 1000;\n}\n",
                "new_text": "  return a + b * 1000;\n}\nexport const  g={a:1,b:[1,2]}\n",
            }
            text = typescript_file(lines)
            off = timed(ws, ts, text, edit, False, n)
            on = timed(ws, ts, text, edit, True, n)
            rows.append(("TypeScript, prettier --range-start/--range-end", off, on))
    print(f"one edit_file call on a {lines:,}-line file, median of {n} (ms)")
    print(f"{'formatter':48} {'format off':>10} {'format on':>10} {'added':>8}")
    for name, off, on in rows:
        print(f"{name:48} {off:10.1f} {on:10.1f} {on - off:8.1f}")
    if args.prettier is None:
        print("prettier: not measured (pass --prettier DIR, a node_modules holding prettier)")
    print("requirement: none (opt-in); reported so a user knows what format: true costs")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The time each analyzer adds to an edit, cold and warm, beside the edit alone, in one run.

For each analyzer (ruff; basedpyright when installed; typescript when npm can install the
project's TypeScript) a real project on disk, edited through the Python API exactly as a model
edits it (``Workspace.call("edit_file", ...)``), each edit writing a new text:

- the edit alone (``analyzers=[]``), median;
- cold: the first edit of a new Workspace, the analyzer's start included (a language server's
  start-up and first analysis of the project);
- warm: the median of the next edits, minus the edit alone: what the problems cost;
- DESIGN.md's budgets: the fast analyzers within about 50 ms of the edit on a 5,000-line file,
  type-level ones within about 2 s warm.

The budget every answer waits (``analysis_budget``) is set high here (120 s), so that the full
time of each analysis is measured, not cut at the budget.

TypeScript comes from the npm registry (``typescript@5``), installed the first time into
``~/.cache/editguard-bench/typescript`` (``--cache`` for another folder); it is left out, with a
line saying so, when npm is missing or the analyzer is not part of this editguard.

Run: ``python benchmarks/bench_analyze.py`` (``--quick``: a few edits, a smoke run, which
installs nothing).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_history import python_module

from editguard import Workspace
from editguard.analyze import KNOWN

DEFAULT_CACHE = Path.home() / ".cache" / "editguard-bench" / "typescript"
BUDGET = 120.0
FAST_MS = 50.0  # DESIGN.md: the fast analyzers' problems within about 50 ms of the edit
TYPE_S = 2.0  # and type-level ones within about 2 s warm


def ts_module(functions: int) -> tuple[str, str]:
    """A valid TypeScript module of ``functions`` seven-line functions, and one of its lines."""
    parts = [
        f"export function func{n}(a: number, b: number): number | null {{\n"
        f"  // Return something about {n}.\n"
        f"  const value{n} = a + b * {n};\n"
        f"  if (value{n} > {n}) {{\n"
        f"    return value{n};\n"
        "  }\n"
        "  return null;\n}\n"
        for n in range(functions)
    ]
    return "".join(parts), f"  const value{functions // 2} = a + b * {functions // 2};"


def install_typescript(cache: Path, install: bool) -> Path | None:
    """``node_modules`` with typescript@5 in ``cache`` (installed there the first time, when
    ``install``), or ``None`` when it is not there and npm is missing or the install fails."""
    modules = cache / "node_modules"
    if (modules / "typescript" / "lib" / "tsserver.js").exists():
        return modules
    if shutil.which("npm") is None or not install:
        return None
    cache.mkdir(parents=True, exist_ok=True)
    print(f"[setup] npm install typescript@5 into {cache}")
    done = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(cache), "typescript@5"],
        capture_output=True,
        timeout=600,
        check=False,
    )
    return modules if done.returncode == 0 else None


def python_project(folder: Path, functions: int) -> tuple[str, str]:
    """A Python package with one large module (and a caller), and the line to edit."""
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "1"\n')
    pkg = folder / "bench"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    content, line = python_module(functions)
    (pkg / "module.py").write_text(content)
    (pkg / "caller.py").write_text("from bench.module import func_1\n\nprint(func_1(1, 2))\n")
    return "bench/module.py", line


def ts_project(folder: Path, functions: int, modules: Path) -> tuple[str, str]:
    """A TypeScript project (tsconfig.json, the installed typescript) with one large module
    and a caller, and the line to edit."""
    folder.mkdir(parents=True)
    (folder / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020"}}\n'
    )
    (folder / "node_modules").symlink_to(modules, target_is_directory=True)
    content, line = ts_module(functions)
    (folder / "module.ts").write_text(content)
    (folder / "caller.ts").write_text('import { func1 } from "./module";\n\nfunc1(1, 2);\n')
    return "module.ts", line


def measure(
    folder: Path, path: str, line: str, analyzers: list[str], edits: int
) -> tuple[float, list[float], list[str]]:
    """(first edit's seconds, the next edits' seconds, problems_pending seen) in a new
    Workspace with these analyzers."""
    times: list[float] = []
    pending: list[str] = []
    target = folder / path
    original = target.read_bytes()
    ws = Workspace([folder], analyzers=analyzers, analysis_budget=BUDGET, history=False)
    try:
        old = line
        for k in range(edits + 1):
            new = line.replace(" b * ", f" b * {k + 2} * ", 1)
            start = time.perf_counter()
            out = ws.call("edit_file", path=path, edits=[{"old_text": old, "new_text": new}])
            times.append(time.perf_counter() - start)
            pending += getattr(out, "problems_pending", None) or []
            old = new
    finally:
        ws.close()
        target.write_bytes(original)
    return times[0], times[1:], pending


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a few edits (a smoke run)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a budget is not met")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="typescript's folder")
    args = parser.parse_args(argv)
    edits = 3 if args.quick else 20
    functions = 100 if args.quick else 715  # 715 seven-line functions: 5,005 lines
    print(f"editguard analyzer benchmark (python {sys.version.split()[0]}, quick={args.quick})")
    rows: list[tuple[str, str, str, str, str, str]] = []
    checks: list[bool] = []
    with tempfile.TemporaryDirectory(prefix="editguard-bench-analyze-") as tmp:
        cases: list[tuple[str, Callable[[Path], tuple[str, str]], list[str], float]] = [
            ("ruff", lambda f: python_project(f, functions), ["ruff"], FAST_MS / 1000),
        ]
        if "basedpyright" in KNOWN:
            cases.append(
                ("basedpyright", lambda f: python_project(f, functions), ["basedpyright"], TYPE_S)
            )
        else:
            print("[basedpyright] left out: not part of this editguard")
        modules = (
            install_typescript(args.cache, install=not args.quick)
            if "typescript" in KNOWN
            else None
        )
        if modules is not None:  # eight-line functions: as many lines as the Python module
            ts_functions = functions * 7 // 8
            cases.append(
                (
                    "typescript",
                    lambda f: ts_project(f, ts_functions, modules),
                    ["typescript"],
                    TYPE_S,
                )
            )
        else:
            print("[typescript] left out: no analyzer of that name, or npm/typescript missing")
        for n, (name, make, analyzers, bound) in enumerate(cases):
            folder = Path(tmp, f"{n}-{name}")
            path, line = make(folder)
            lines = (folder / path).read_text().count("\n")
            _, alone, _ = measure(folder, path, line, [], edits)
            cold, warm, pending = measure(folder, path, line, analyzers, edits)
            base = statistics.median(alone)
            added = statistics.median(warm) - base
            ok = added <= bound
            checks.append(ok)
            limit = f"<= {bound * 1000:.0f} ms" if bound < 1 else f"<= {bound:g} s"
            rows.append(
                (
                    f"{name} ({path}, {lines:,} lines)",
                    f"{base * 1000:.1f} ms",
                    f"{cold * 1000:.0f} ms",
                    f"{statistics.median(warm) * 1000:.1f} ms",
                    f"{added * 1000:.1f} ms",
                    f"{limit}  {'PASS' if ok else 'FAIL'}"
                    + ("  (pending seen)" if pending else ""),
                )
            )
    header = (
        "analyzer (file)",
        "edit alone",
        "cold edit",
        "warm edit",
        "warm added",
        "requirement",
    )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(6)]
    print()
    print(f"Per edit, medians of {edits} warm edits (one run; the cold edit is one)")
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print(
            "  ".join(
                [
                    r[0].ljust(widths[0]),
                    *(c.rjust(w) for c, w in zip(r[1:5], widths[1:5], strict=True)),
                    r[5],
                ]
            )
        )
    return 1 if args.strict and not all(checks) else 0


if __name__ == "__main__":
    raise SystemExit(main())

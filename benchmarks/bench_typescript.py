"""Time the "typescript" analyzer adds to an edit: cold (a new workspace, tsserver started and the
project loaded, to the first problems) and warm (each further edit), beside the edit alone, on a
small project and on one with a 5,000-line ``.ts`` file.

    python benchmarks/bench_typescript.py [--edits N] [--quick]

TypeScript is installed from the npm registry into a cache folder (``--cache``, default
``~/.cache/editguard-bench/typescript-VERSION``) on first use.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from editguard import Workspace

VERSION = "5.9.3"
TSCONFIG = '{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs", '
TSCONFIG += '"noEmit": true, "types": []}, "include": ["src"]}\n'


def install(cache: Path) -> Path:
    modules = cache / "node_modules"
    if not (modules / "typescript" / "lib" / "tsserver.js").is_file():
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "package.json").write_text('{"private": true}\n')
        npm = shutil.which("npm") or "npm"
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock",
             f"typescript@{VERSION}"],
            cwd=cache, check=True, capture_output=True,
        )  # fmt: skip
    return modules


def big_file(lines: int) -> str:
    out = []
    for i in range(lines // 5):
        out += [
            f"export function f{i}(a: number, b: string): string {{",
            f"  const c = a * {i} + b.length;",
            "  return b + String(c);",
            "}",
            "",
        ]
    return "\n".join(out) + "\n"


def project(folder: Path, modules: Path, lines: int) -> Path:
    (folder / "src").mkdir(parents=True)
    (folder / "tsconfig.json").write_text(TSCONFIG)
    (folder / "node_modules").symlink_to(modules, target_is_directory=True)
    (folder / "src/main.ts").write_text(big_file(lines))
    (folder / "src/use1.ts").write_text('import { f1 } from "./main";\nf1(1, "x");\n')
    (folder / "src/use2.ts").write_text('import { f2 } from "./main";\nf2(2, "y");\n')
    return folder


def run(folder: Path, analyzers: list[str], edits: int) -> tuple[float, list[float]]:
    """The first edit's time and each further edit's, in a new workspace."""
    times = []
    with Workspace(roots=[folder], analyzers=analyzers, analysis_budget=60.0) as ws:
        middle = "const c = a * 1 + b.length;"
        for n in range(edits + 1):
            old, new = (middle, middle.replace("+", "-")) if n % 2 == 0 else (
                middle.replace("+", "-"), middle)  # fmt: skip
            start = time.perf_counter()
            result = ws.call(
                "edit_file", path="src/main.ts", edits=[{"old_text": old, "new_text": new}]
            )
            times.append(time.perf_counter() - start)
            assert result.model_dump().get("problems_pending") is None
    return times[0], times[1:]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--quick", action="store_true")
    home = Path(os.path.expanduser("~/.cache/editguard-bench"))
    parser.add_argument("--cache", type=Path, default=home / f"typescript-{VERSION}")
    args = parser.parse_args()
    edits = 4 if args.quick else args.edits
    modules = install(args.cache)
    print(f"typescript {VERSION}, {edits} warm edits each; times in ms (median, p90)")
    for lines in (50, 5000):
        with tempfile.TemporaryDirectory() as tmp:
            plain = project(Path(tmp) / "plain", modules, lines)
            _, alone = run(plain, [], edits)
            checked = project(Path(tmp) / "ts", modules, lines)
            cold, warm = run(checked, ["typescript"], edits)
            p90 = statistics.quantiles(warm, n=10)[-1] if len(warm) > 1 else warm[0]
            print(
                f"main.ts {lines:>5} lines: edit alone {statistics.median(alone) * 1e3:7.1f}  "
                f"cold first edit {cold * 1e3:7.1f}  warm {statistics.median(warm) * 1e3:7.1f}"
                f" (p90 {p90 * 1e3:.1f})"
            )


if __name__ == "__main__":
    main()

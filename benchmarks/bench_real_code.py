"""Parse, symbol location and syntax guard on real code, per language, at about 5,000 lines.

The synthetic files of bench_symbols.py and bench_validate.py are denser than real code. Here
each real source file of ``tests/symbol_samples/`` is repeated to about 5,000 lines and timed
cold (nothing cached): tree-sitter's parse alone, locating a symbol (parse included), and the
syntax guard for a valid one-line edit (parse of the new text, plus compile() for Python).
Requirement (issues 4 and 5): well under 50 ms. The parse alone is tree-sitter's own cost, the
floor for the other two columns.

    python benchmarks/bench_real_code.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from editguard.core.plan import Plan, Replacement
from editguard.symbols import find_symbol, locate, symbols_of
from editguard.validate import syntax, validate

SAMPLES = Path(__file__).resolve().parent.parent / "tests" / "symbol_samples"
FILES = {
    "python": ("python/base_user.py.txt", ".py"),
    "javascript": ("javascript/index.js.txt", ".js"),
    "typescript": ("typescript/Notification.ts.txt", ".ts"),
    "tsx": ("tsx/QueryErrorResetBoundary.tsx.txt", ".tsx"),
    "go": ("go/errors.go.txt", ".go"),
    "rust": ("rust/lib.rs.txt", ".rs"),
    "java": ("java/Parser.java.txt", ".java"),
    "c": ("c/proc.c.txt", ".c"),
    "c++ (templates)": ("cpp/chrono.h.txt", ".cpp"),
    "c#": ("csharp/Interop.cs.txt", ".cs"),
    "ruby": ("ruby/cookie.rb.txt", ".rb"),
    "php": ("php/LazyString.php.txt", ".php"),
}


def cold_ms(run: Callable[[int], object], repeats: int) -> float:
    samples = []
    for i in range(repeats):
        locate._CACHE.clear()
        syntax._TREES.clear()
        start = time.perf_counter()
        run(i)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def measure(
    name: str, ext: str, text: str, plan: Plan, line: int, repeats: int
) -> tuple[float, float, float]:
    """Cold medians: tree-sitter's parse alone, locating the symbol at ``line``, the guard."""
    parser = syntax._parser(ext)
    data = text.encode()
    new = plan.apply_to_text(text)
    return (
        cold_ms(lambda _i: parser.parse(data), repeats),
        cold_ms(lambda _i: find_symbol(symbols_of(name, text), line=line), repeats),
        cold_ms(lambda _i: validate(name, text, new, plan), repeats),
    )


def main(argv: list[str] | None = None) -> int:
    """Print per-language cold figures on real code."""
    parser = argparse.ArgumentParser(description="real code at 5,000 lines")
    parser.add_argument("--quick", action="store_true", help="three languages, 3 runs")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 11
    chosen = list(FILES.items())[:3] if args.quick else list(FILES.items())
    print(f"real files repeated to ~5,000 lines; cold medians of {repeats} runs")
    print(
        f"{'language':<16} {'lines':>6} {'symbols':>8} {'parse':>9} {'locate':>9} "
        f"{'guard':>9}  requirement"
    )
    for label, (sample, ext) in chosen:
        one = (SAMPLES / sample).read_text(encoding="utf-8")
        text = "\n".join([one] * (5000 // max(one.count("\n"), 1) + 1))
        name = "file" + ext
        found = symbols_of(name, text)
        target = found[len(found) // 2]
        # A valid edit: a blank line added at the start of the middle symbol.
        plan = Plan((Replacement(target.start, target.start, "\n"),))
        parse_ms, locate_ms, guard_ms = measure(name, ext, text, plan, target.start_line, repeats)
        print(
            f"{label:<16} {text.count(chr(10)):>6} {len(found):>8} {parse_ms:>6.1f} ms "
            f"{locate_ms:>6.1f} ms {guard_ms:>6.1f} ms  < 50 ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The syntax guard's cost on a 5,000-line file (requirement: well under 50 ms).

Times ``editguard.validate.validate`` for one small edit on a 5,000-line Python file
(``compile()``; tree-sitter only when it fails), on TypeScript and JSON files of similar size,
and the failure path (an edit that breaks the syntax: the errors before and after are compared).
Two columns, each the median of repeated runs from empty caches:

* cold: nothing parsed before (a full parse of the old text, the new one reparsed from it);
* after a read: the old text parsed ahead, as ``read_file`` does in the background (the guard
  then reparses only the change).

    python benchmarks/bench_validate.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from editguard import languages, prewarm
from editguard.core.plan import Plan, Replacement
from editguard.symbols import locate
from editguard.validate import python, validate


def python_file(lines: int) -> str:
    return "".join(
        f"def f{i}(a, b):\n    x = a + b * {i}\n    return x - {i}\n\n" for i in range(lines // 4)
    )


def typescript_file(lines: int) -> str:
    return "".join(
        f"export function f{i}(a: number, b: number): number {{\n  return a + b * {i};\n}}\n\n"
        for i in range(lines // 4)
    )


def json_file(lines: int) -> str:
    return (
        json.dumps({f"key{i}": {"value": i, "name": f"n{i}"} for i in range(lines // 4)}, indent=2)
        + "\n"
    )


def timed(run: Callable[[], object], repeats: int, setup: Callable[[], object]) -> float:
    run()  # warm-up: loads the grammar
    samples = []
    for _ in range(repeats):
        languages.TREES.clear()
        locate._CACHE.clear()
        python._KNOWN.clear()  # no text known to compile: the guard compiles the whole module
        setup()
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


Case = tuple[Callable[[], object], Callable[[], object]]


def case(name: str, text: str, old: str, new: str) -> Case:
    """(the guard for this edit, what read_file leaves cached for the old text)."""
    at = text.index(old, len(text) // 2)
    plan = Plan((Replacement(at, at + len(old), new),))
    after = plan.apply_to_text(text)
    return (lambda: validate(name, text, after, plan)), (lambda: prewarm.warm(name, text))


def main(argv: list[str] | None = None) -> int:
    """Print the syntax guard's median cost per file type."""
    parser = argparse.ArgumentParser(description="syntax guard cost")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 25
    py, ts, js = python_file(5000), typescript_file(5000), json_file(5000)
    rows = [
        (
            "python, valid edit (compile; tree-sitter only on failure)",
            case("m.py", py, "a + b", "b + a"),
        ),
        ("python, breaking edit (both parsed, compared)", case("m.py", py, "a + b", "(a + b")),
        ("typescript, valid edit", case("m.ts", ts, "a + b", "b + a")),
        ("typescript, breaking edit", case("m.ts", ts, "return a + b", "return (a + b")),
        ("json, valid edit (tree-sitter + json)", case("d.json", js, '"value"', '"val"')),
    ]
    print(f"5,000-line files; median of {repeats} runs from empty caches")
    print(f"{'case':<58} {'cold':>9} {'after read':>11}  requirement")
    for name, (run, read) in rows:
        valid = "breaking" not in name
        cold = timed(run, repeats, lambda: None)
        warm = timed(run, repeats, read)
        print(f"{name:<58} {cold:>6.1f} ms {warm:>8.1f} ms  {'< 50 ms' if valid else '(info)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

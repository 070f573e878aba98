"""Locating a symbol in a 5,000-line file (requirement: well under 50 ms, the parse included).

Times ``symbols_of`` + ``find_symbol`` cold (a text not seen before: the tree-sitter parse and the
walk) and warm (the same version again: the parse cache answers), for Python, TypeScript, Go and
Java files of about 5,000 lines. Median of repeated runs.

    python benchmarks/bench_symbols.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from editguard import Workspace
from editguard.symbols import find_symbol, symbols_of

N = 5000


def python_source(salt: int) -> tuple[str, str]:
    parts = [f"# version {salt}\n"]
    parts += [
        f"class C{i}:\n    def run(self, x):\n        return x + {i}\n\n" for i in range(N // 4)
    ]
    return "".join(parts), f"C{N // 8}/run"


def typescript_source(salt: int) -> tuple[str, str]:
    parts = [f"// version {salt}\n"]
    parts += [
        f"export class C{i} {{\n  run(x: number): number {{ return x + {i}; }}\n}}\n\n"
        for i in range(N // 4)
    ]
    return "".join(parts), f"C{N // 8}/run"


def go_source(salt: int) -> tuple[str, str]:
    parts = [f"// version {salt}\npackage main\n"]
    parts += [
        f"type T{i} struct{{}}\n\nfunc (t *T{i}) Run(x int) int {{\n\treturn x + {i}\n}}\n"
        for i in range(N // 6)
    ]
    return "".join(parts), f"T{N // 12}"


def java_source(salt: int) -> tuple[str, str]:
    parts = [f"// version {salt}\nclass Outer {{\n"]
    parts += [
        f"  @Override\n  public int run{i}(int x) {{\n    return x + {i};\n  }}\n\n"
        for i in range(N // 5)
    ]
    parts.append("}\n")
    return "".join(parts), f"Outer/run{N // 10}"


def median_ms(run: Callable[[int], object], repeats: int) -> float:
    samples = []
    for salt in range(repeats):
        start = time.perf_counter()
        run(salt)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def edit_symbol_ms(name: str, source: tuple[str, str], repeats: int) -> float:
    """edit_symbol on a real file: locate, edit, reparse (incrementally), validate, write."""
    text, path = source
    comment = "#" if name.endswith(".py") else "//"
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, name).write_text(text)
        ws = Workspace([folder])
        return median_ms(
            lambda i: ws.edit_symbol(
                name, path, insert_before=f"{comment} note {i}", mode="interactive"
            ),
            repeats,
        )


def main(argv: list[str] | None = None) -> int:
    """Print cold and warm medians of locating a symbol."""
    parser = argparse.ArgumentParser(description="symbol location cost")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 15
    sources: dict[str, Callable[[int], tuple[str, str]]] = {
        "python (.py)": python_source,
        "typescript (.ts)": typescript_source,
        "go (.go)": go_source,
        "java (.java)": java_source,
    }
    names = {
        "python (.py)": "m.py",
        "typescript (.ts)": "m.ts",
        "go (.go)": "m.go",
        "java (.java)": "M.java",
    }
    print(f"~{N:,}-line files; median of {repeats} runs")
    print(
        f"{'file':<20} {'cold (parse)':>14} {'warm (cached)':>15}  requirement"
        f"   edit_symbol end to end (info)"
    )
    for label, make in sources.items():
        name = names[label]
        texts = [make(salt) for salt in range(repeats)]
        symbols_of(name, texts[0][0])  # load the grammar once

        def cold(salt: int, name: str = name, texts: list[tuple[str, str]] = texts) -> object:
            text, path = texts[salt]
            return find_symbol(symbols_of(name, text + f"\n// {salt}\n" * 0), name_path=path)

        def warm(salt: int, name: str = name, texts: list[tuple[str, str]] = texts) -> object:
            text, path = texts[0]
            return find_symbol(symbols_of(name, text), name_path=path)

        cold_ms = median_ms(cold, repeats)
        warm_ms = median_ms(warm, repeats)
        edit_ms = edit_symbol_ms(name, texts[0], repeats)
        print(f"{label:<20} {cold_ms:>11.1f} ms {warm_ms:>12.2f} ms  < 50 ms   {edit_ms:>9.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Parse, symbol location and syntax guard on real code, per language, at about 5,000 lines.

The synthetic files of bench_symbols.py and bench_validate.py are denser than real code. Here
each real source file of ``tests/symbol_samples/`` is repeated to about 5,000 lines, and timed
two ways:

* cold (nothing cached): tree-sitter's parse alone, locating a symbol (parse included), and the
  syntax guard for a valid one-line edit (parse of the new text, plus compile() for Python).
  The parse alone is tree-sitter's own cost, the floor for the other two columns.
* after a read, as an agent meets it: ``Workspace.read_file`` on the real file (which parses it
  in the background), a pause until that parse is done (the agent writing its edit), then the
  same two operations: the lookup finds the symbols cached, and the guard reparses the new text
  incrementally from the cached tree. Last, ``edit_symbol`` end to end in verify_only mode
  (read, locate, edit, guard, structure check; nothing written).

Each repeat starts from empty caches. Requirement (issues 4 and 5): well under 50 ms.

    python benchmarks/bench_real_code.py [--quick] [--strict]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from editguard import languages, prewarm
from editguard.core.plan import Plan, Replacement
from editguard.symbols import find_symbol, locate, symbols_of
from editguard.validate import validate
from editguard.workspace import Workspace

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


REQUIREMENT_MS = 50.0


def clear() -> None:
    locate._CACHE.clear()
    languages.TREES.clear()


def median_ms(run: Callable[[], object], repeats: int, setup: Callable[[], object]) -> float:
    samples = []
    for _ in range(repeats):
        clear()
        setup()
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def measure(
    folder: Path, name: str, ext: str, text: str, line: int, repeats: int
) -> dict[str, float]:
    """Medians in ms: cold parse, locate, guard; then after a read: locate, guard, edit_symbol."""
    parser = languages.parser_for(ext)
    data = text.encode()
    path = folder / name
    path.write_text(text, encoding="utf-8")
    workspace = Workspace([folder], prewarm=True)
    target = find_symbol(symbols_of(name, text), line=line)
    # A valid edit: a blank line added at the start of the symbol.
    plan = Plan((Replacement(target.start, target.start, "\n"),))
    new = plan.apply_to_text(text)

    def read() -> None:
        workspace.read_file(name)
        prewarm.SHARED.wait_idle()  # the agent writing its edit meanwhile

    def nothing() -> None:
        return None

    return {
        "parse": median_ms(lambda: parser.parse(data), repeats, nothing),
        "locate": median_ms(
            lambda: find_symbol(symbols_of(name, text), line=line), repeats, nothing
        ),
        "guard": median_ms(lambda: validate(name, text, new, plan), repeats, nothing),
        "read_locate": median_ms(
            lambda: find_symbol(symbols_of(name, text), line=line), repeats, read
        ),
        "read_guard": median_ms(lambda: validate(name, text, new, plan), repeats, read),
        "read_edit_symbol": median_ms(
            lambda: workspace.edit_symbol(
                name, line=line, column=1, insert_before="\n", mode="verify_only"
            ),
            repeats,
            read,
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """Print per-language figures on real code."""
    parser = argparse.ArgumentParser(description="real code at 5,000 lines")
    parser.add_argument("--quick", action="store_true", help="three languages, 3 runs")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a requirement fails")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 11
    chosen = list(FILES.items())[:3] if args.quick else list(FILES.items())
    print(f"real files repeated to ~5,000 lines; medians of {repeats} runs, in ms")
    print(f"{'':<16} {'':>6} {'':>8} {'cold':^22} {'after read_file':^26}")
    print(
        f"{'language':<16} {'lines':>6} {'symbols':>8} {'parse':>6} {'locate':>7} {'guard':>7}"
        f" {'locate':>7} {'guard':>7} {'edit_symbol':>11}"
    )
    worst = {"locate": 0.0, "guard": 0.0, "read_locate": 0.0, "read_guard": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        for label, (sample, ext) in chosen:
            one = (SAMPLES / sample).read_text(encoding="utf-8")
            text = "\n".join([one] * (5000 // max(one.count("\n"), 1) + 1))
            name = "file" + ext
            found = symbols_of(name, text)
            target = found[len(found) // 2]
            f = measure(Path(tmp), name, ext, text, target.start_line, repeats)
            worst = {key: max(value, f[key]) for key, value in worst.items()}
            print(
                f"{label:<16} {text.count(chr(10)):>6} {len(found):>8} {f['parse']:>6.1f}"
                f" {f['locate']:>7.1f} {f['guard']:>7.1f} {f['read_locate']:>7.1f}"
                f" {f['read_guard']:>7.1f} {f['read_edit_symbol']:>11.1f}"
            )
    failed = False
    for key, label in (
        ("locate", "cold locate"),
        ("guard", "cold guard"),
        ("read_locate", "locate after a read"),
        ("read_guard", "guard after a read"),
    ):
        ok = worst[key] < REQUIREMENT_MS
        failed |= not ok
        print(
            f"{label:<20} worst language {worst[key]:6.1f} ms; requirement < "
            f"{REQUIREMENT_MS:.0f} ms: " + ("ok" if ok else "FAIL")
        )
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())

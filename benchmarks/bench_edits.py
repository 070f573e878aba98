"""Speed of editguard's edits.

Two figures, each checked against a requirement:

1. A batch of 1,000 single-occurrence edits on a ~10 MB file, applied by one
   ``Workspace.edit_file`` call on a real file (read, compile, write with fsync, diff), against
   the naive loop ``text.count(old) == 1; text = text.replace(old, new, 1)`` over the whole text
   in memory. Requirement: editguard takes less than 10% of the naive loop's time, and both
   give the same bytes.
2. One edit on a 5,000-line Python-like file: the pure engine (decode, compile, render) and the
   full ``Workspace.edit_file`` with disk. Requirement: well under 10 ms.

Run: ``python benchmarks/bench_edits.py`` (``--quick`` for a few-second smoke run).
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sample_code import SEED, code_line

from editguard import Workspace, languages, prewarm
from editguard.core.document import decode
from editguard.core.formats.search_replace import SearchReplace, compile_search_replace
from editguard.core.plan import render
from editguard.symbols import locate


def code_lines(count: int, rng: random.Random) -> list[str]:
    """``count`` unique, code-like lines (without line breaks)."""
    return [code_line(n, rng) for n in range(count)]


def lines_for_size(target_bytes: int, rng: random.Random) -> list[str]:
    """Code-like lines whose text (with LF breaks) is about ``target_bytes`` long."""
    lines: list[str] = []
    size = 0
    while size < target_bytes:
        line = code_line(len(lines), rng)
        lines.append(line)
        size += len(line) + 1
    return lines


@dataclass(frozen=True, slots=True)
class Edit:
    old: str
    new: str


def make_edits(lines: list[str], count: int, rng: random.Random) -> list[Edit]:
    """``count`` edits of distinct lines spread through the file, in a shuffled order."""
    step = len(lines) // count
    picks = [i * step + rng.randrange(step) for i in range(count)]
    rng.shuffle(picks)
    edits: list[Edit] = []
    for i in picks:
        old = lines[i]
        new = old.replace(f"_{i}", f"_{i}_renamed", 1) + "  # edited"
        edits.append(Edit(old, new))
    return edits


def naive(text: str, edits: Sequence[Edit]) -> str:
    """The baseline: count, then replace, on the whole text, edit after edit."""
    for e in edits:
        assert text.count(e.old) == 1
        text = text.replace(e.old, e.new, 1)
    return text


def median_ms(samples: Sequence[float]) -> float:
    return statistics.median(samples) * 1000.0


def timed(
    fn: Callable[[], Any], repeats: int, reset: Callable[[], None] | None = None
) -> list[float]:
    """Wall times (s) of ``repeats`` calls of ``fn``; ``reset`` runs untimed before each."""
    samples: list[float] = []
    for _ in range(repeats):
        if reset is not None:
            reset()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


def read_all(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def fmt_samples(samples: Sequence[float]) -> str:
    return ", ".join(f"{s * 1000:.1f}" for s in samples)


# -- 1. the batch -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BatchResult:
    size: int
    lines: int
    edits: int
    naive_ms: float
    editguard_ms: float
    engine_ms: float
    identical: bool

    @property
    def ratio(self) -> float:
        return self.editguard_ms / self.naive_ms


def bench_batch(
    folder: str, size: int, n_edits: int, naive_repeats: int, eg_repeats: int
) -> BatchResult:
    rng = random.Random(SEED)
    lines = lines_for_size(size, rng)
    text = "\n".join(lines) + "\n"
    data = text.encode("utf-8")
    edits = make_edits(lines, n_edits, rng)
    print(
        f"[batch] file: {len(data):,} bytes, {len(lines):,} lines; "
        f"{len(edits)} edits, each one unique line, shuffled order"
    )

    # (b) the naive loop, on the text already in memory.
    naive_out: list[str] = []
    naive_samples = timed(lambda: naive_out.append(naive(text, edits)), naive_repeats)
    expected = naive_out[-1].encode("utf-8")
    print(f"[batch] naive loop          runs (ms): {fmt_samples(naive_samples)}")

    # (a) editguard: one edit_file call on a real file, read and write included.
    path = os.path.join(folder, "big.py")
    ws = Workspace([folder], max_file_bytes=max(len(data) * 2, 1 << 20), max_edits=n_edits)
    requests = [{"old_text": e.old, "new_text": e.new, "occurrences": 1} for e in edits]
    results: list[Any] = []
    eg_samples = timed(
        lambda: results.append(ws.edit_file("big.py", requests)),
        eg_repeats,
        reset=lambda: write_bytes(path, data),
    )
    got = read_all(path)
    print(f"[batch] editguard edit_file runs (ms): {fmt_samples(eg_samples)}")
    assert results[-1].written
    assert len(results[-1].edits_applied) == n_edits

    # For the record: the pure engine on the same batch (no disk, no diff, no validation).
    specs = [SearchReplace(e.old, e.new, 1) for e in edits]

    def engine() -> bytes:
        doc = decode(data)
        compiled = compile_search_replace(doc, specs)
        return b"".join(render(doc, compiled.plan))

    engine_out: list[bytes] = []
    engine_samples = timed(lambda: engine_out.append(engine()), eg_repeats)
    print(f"[batch] engine in-process   runs (ms): {fmt_samples(engine_samples)}")

    identical = got == expected and engine_out[-1] == expected
    return BatchResult(
        size=len(data),
        lines=len(lines),
        edits=n_edits,
        naive_ms=median_ms(naive_samples),
        editguard_ms=median_ms(eg_samples),
        engine_ms=median_ms(engine_samples),
        identical=identical,
    )


# -- 2. one edit on a 5,000-line file -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SingleResult:
    size: int
    lines: int
    runs: int
    engine_ms: float
    engine_p90_ms: float
    full_ms: float
    full_p90_ms: float
    guarded_ms: float
    identical: bool


def p90(samples: Sequence[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))] * 1000.0


def bench_single(folder: str, n_lines: int, runs: int) -> SingleResult:
    rng = random.Random(SEED + 1)
    lines = code_lines(n_lines, rng)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    target = n_lines // 2
    old = lines[target]
    new = old.replace(f"_{target}", f"_{target}_renamed", 1)
    expected = data.replace(old.encode(), new.encode(), 1)
    print(f"[single] file: {len(data):,} bytes, {n_lines:,} lines; one edit of line {target + 1}")

    specs = [SearchReplace(old, new, 1)]

    def engine() -> bytes:
        doc = decode(data)
        compiled = compile_search_replace(doc, specs)
        return b"".join(render(doc, compiled.plan))

    engine()  # warm up imports and caches
    engine_samples = timed(engine, runs)

    # The engine plus the atomic write: the same text as a .txt file, which has no syntax guard.
    path = os.path.join(folder, "module.txt")
    ws = Workspace([folder])
    request = [{"old_text": old, "new_text": new, "occurrences": 1}]
    write_bytes(path, data)
    ws.edit_file("module.txt", request)  # warm up
    full_samples = timed(
        lambda: ws.edit_file("module.txt", request), runs, reset=lambda: write_bytes(path, data)
    )
    identical = engine() == expected and read_all(path) == expected
    # For information: the same edit on a .py file also runs the syntax guard. These code-like
    # lines are not valid Python (compile() stops at the indented line 2), so the guard compares
    # tree-sitter's errors before and after: a full parse of the old text, an incremental one
    # of the new. Each run starts from empty parse caches.
    py_path = os.path.join(folder, "module.py")
    write_bytes(py_path, data)
    ws.edit_file("module.py", request)

    def reset_py() -> None:
        write_bytes(py_path, data)
        prewarm.SHARED.wait_idle()
        languages.TREES.clear()
        locate._CACHE.clear()

    guarded_samples = timed(lambda: ws.edit_file("module.py", request), runs, reset=reset_py)
    return SingleResult(
        size=len(data),
        lines=n_lines,
        runs=runs,
        engine_ms=median_ms(engine_samples),
        engine_p90_ms=p90(engine_samples),
        full_ms=median_ms(full_samples),
        full_p90_ms=p90(full_samples),
        guarded_ms=median_ms(guarded_samples),
        identical=identical,
    )


# -- the report ------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats (smoke)")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when a speed requirement is not met"
    )
    args = parser.parse_args(argv)

    if args.quick:
        size, n_edits, naive_reps, eg_reps, single_lines, runs = 1_000_000, 100, 1, 1, 5000, 5
    else:
        size, n_edits, naive_reps, eg_reps, single_lines, runs = 10_000_000, 1000, 3, 5, 5000, 50

    print(f"editguard edit benchmark (python {sys.version.split()[0]}, quick={args.quick})")
    with tempfile.TemporaryDirectory(prefix="editguard-bench-") as folder:
        batch = bench_batch(folder, size, n_edits, naive_reps, eg_reps)
        single = bench_single(folder, single_lines, runs)

    batch_ok = batch.ratio < 0.10
    single_ok = single.engine_ms < 10.0 and single.full_ms < 10.0
    identical = batch.identical and single.identical
    rows = [
        (
            f"batch: naive loop, median of {naive_reps}",
            f"{batch.naive_ms:,.1f} ms",
            "",
        ),
        (
            f"batch: editguard edit_file (disk), median of {eg_reps}",
            f"{batch.editguard_ms:,.1f} ms",
            "",
        ),
        (
            "batch: editguard / naive",
            f"{batch.ratio * 100:.2f} %",
            f"< 10 %  {verdict(batch_ok)}",
        ),
        (
            f"batch: engine only (decode+compile+render), median of {eg_reps}",
            f"{batch.engine_ms:,.1f} ms",
            "(info)",
        ),
        (
            "batch: output identical to naive",
            str(batch.identical),
            verdict(batch.identical),
        ),
        (
            f"single: engine only, median of {runs} (p90)",
            f"{single.engine_ms:.3f} ms ({single.engine_p90_ms:.3f})",
            f"< 10 ms  {verdict(single.engine_ms < 10.0)}",
        ),
        (
            f"single: edit_file (disk, .txt), median of {runs} (p90)",
            f"{single.full_ms:.3f} ms ({single.full_p90_ms:.3f})",
            f"< 10 ms  {verdict(single.full_ms < 10.0)}",
        ),
        (
            f"single: edit_file (disk, .py + syntax guard), median of {runs}",
            f"{single.guarded_ms:.3f} ms",
            "(info)",
        ),
        (
            "single: output identical to str.replace",
            str(single.identical),
            verdict(single.identical),
        ),
    ]
    print()
    print(
        f"Summary: batch = {batch.edits} edits on {batch.size:,} bytes ({batch.lines:,} lines); "
        f"single = 1 edit on {single.lines:,} lines ({single.size:,} bytes)"
    )
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    print(f"{'measure':<{w0}}  {'figure':>{w1}}  requirement")
    print(f"{'-' * w0}  {'-' * w1}  {'-' * 16}")
    for name, figure, requirement in rows:
        print(f"{name:<{w0}}  {figure:>{w1}}  {requirement}".rstrip())

    if not identical:
        print("ERROR: editguard's output differs from the naive result")
        return 1
    if args.strict and not (batch_ok and single_ok):
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

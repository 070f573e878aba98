"""What the history costs: bytes stored, time added to an edit, and how fast it answers.

(a) **Bytes stored** for one one-line ``edit_file`` in a ~100 MB text file (LF, CRLF, and one
with non-ASCII text on every tenth line): how much the database files grow (``.sqlite3`` and
``-wal`` together, and the ``.sqlite3`` alone after a checkpoint), the ``.sqlite3``'s growth per
entry over 1,000 copies of the record (it grows by whole pages), what ``History.stats()``
counts, and the sizes of the entry's restore data and diff. Goal: under 10 KB.
(b) **Time added to one edit**: the median time of the same one-line ``edit_file`` with the
history on and with ``history=False``, alternating on and off so that drift cancels, on a
5,005-line Python file and a 1 MB text file, and on a ``batch`` editing two such Python files;
the difference of the medians, the median of the paired differences (judged), and the time of
the database's work. Goal: under 1 ms.
(c) **The history with 10,000 entries**: the ``history`` tool for the latest 10 (and 100)
changes, the latest 10 of one path, and one change in full; a real ``edit_file`` (each one
prunes the oldest entry) and ``undo`` of it.
(d) **Undo** of a one-line edit: in a 210-line file (kept whole) and a 5,005-line one (a
delta), and five in a row in each 100 MB file of (a) (the stored delta is taken back from the
file as it is now).

Every undo is checked: the file's bytes must be back exactly as they were.

    python benchmarks/bench_history.py [--quick] [--size-mb N] [--runs N] [--entries N] [--strict]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sample_code import SEED, code_line

from editguard import Workspace
from editguard.history import Entry, FileRecord, History

MB = 1_000_000
KB = 1000
GOAL_BYTES = 10 * KB
GOAL_MS = 1.0
NON_ASCII = "  # état → prêt"  # on every tenth line of the non-ASCII file: 2 bytes a character


# -- helpers ---------------------------------------------------------------------------------


def _ms(seconds: float) -> float:
    return seconds * 1000


def _timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _median_ms(samples: Sequence[float]) -> float:
    return _ms(statistics.median(samples))


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            sha.update(block)
    return sha.hexdigest()


def _workspace(root: Path, state: Path, history: History | bool = True) -> Workspace:
    """A Workspace whose journal and (unless ``history`` is False) history are in ``state``."""
    given: Any = history if history is not True else state / "history"
    return Workspace([root], journal=state / "journal", history=given, prewarm=False)


def _db_files(history: History) -> tuple[int, int]:
    """The sizes of the database file and of its write-ahead log."""
    sizes = []
    for path in (history.path, history.path + "-wal"):
        try:
            sizes.append(os.path.getsize(path))
        except FileNotFoundError:
            sizes.append(0)
    return sizes[0], sizes[1]


def _checkpoint(history: History) -> None:
    """Move the write-ahead log into the database file and empty it."""
    db = sqlite3.connect(history.path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        db.close()


class Flip:
    """A one-line edit of ``path`` that flips a line between two texts, so that every call
    changes the file."""

    def __init__(self, path: str, old: str, new: str) -> None:
        self.path, self.texts, self.state = path, (old, new), 0

    def arguments(self) -> dict[str, Any]:
        old, new = self.texts[self.state], self.texts[1 - self.state]
        self.state = 1 - self.state
        return {"path": self.path, "edits": [{"old_text": old, "new_text": new}]}


def python_module(functions: int, tag: str = "") -> tuple[str, str]:
    """A valid Python module of ``functions`` seven-line functions, and one of its lines."""
    parts = [
        f"def {tag}func_{n}(a, b):\n"
        f'    """Return something about {n}."""\n'
        f"    value_{n} = a + b * {n}\n"
        f"    if value_{n} > {n}:\n"
        f"        return value_{n}\n"
        "    return None\n\n"
        for n in range(functions)
    ]
    return "".join(parts), f"    value_{functions // 2} = a + b * {functions // 2}"


def text_file(target: int, rng: random.Random) -> tuple[str, str]:
    """Code-like text of about ``target`` bytes, and its middle line."""
    lines: list[str] = []
    size = 0
    while size < target:
        lines.append(code_line(len(lines), rng))
        size += len(lines[-1]) + 1
    return "\n".join(lines) + "\n", lines[len(lines) // 2]


# -- (a) bytes stored, and (d) undo in a 100 MB file -----------------------------------------


@dataclass(frozen=True, slots=True)
class Big:
    name: str
    newline: str
    non_ascii: bool


BIGS = (Big("LF", "\n", False), Big("CRLF", "\r\n", False), Big("non-ASCII", "\n", True))


def generate(path: Path, size: int, big: Big, picks: int) -> list[str]:
    """Write a code-like file of about ``size`` bytes a block at a time; returns ``picks``
    of its lines, evenly spread through it."""
    rng = random.Random(SEED)
    eol = big.newline.encode("ascii")
    marks = [size * (2 * i + 1) // (2 * picks) for i in range(picks)]
    chosen: list[str] = []
    written = n = 0
    with open(path, "wb") as handle:
        while written < size:
            block = []
            for _ in range(10_000):
                text = code_line(n, rng)
                if big.non_ascii and n % 10 == 0:
                    text += NON_ASCII
                line = text.encode("utf-8") + eol
                block.append(line)
                written += len(line)
                n += 1
                if len(chosen) < picks and written >= marks[len(chosen)]:
                    chosen.append(text)
                if written >= size:
                    break
            handle.write(b"".join(block))
    return chosen


def _changed(line: str, big: Big) -> str:
    """A one-line change of ``line`` (with non-ASCII text in the non-ASCII file)."""
    found = re.search(r"_\d+", line)
    assert found is not None
    new = line.replace(found[0], found[0] + "_renamed", 1)
    return new + (" # déjà vu" if big.non_ascii else "")


@dataclass(slots=True)
class Stored:
    """What one edit of a big file added to the history, and the undo times."""

    size: int = 0
    edit_ms: float = 0.0
    db_and_wal: int = 0  # the growth of .sqlite3 + -wal
    wal: int = 0  # of which -wal
    db_after_checkpoint: int = 0  # the growth of .sqlite3 once the log is moved into it
    amortised: float = 0.0  # the growth of .sqlite3 per copy of the record, over many copies
    counted: int = 0  # History.stats()
    restore: int = 0
    diff: int = 0
    undo_ms: list[float] = field(default_factory=list)
    restored: bool = False


def stored_bytes(folder: Path, big: Big, size: int, edits: int, copies: int) -> Stored:
    """(a) and (d) for one kind of big file: ``edits`` one-line edits (the first measured),
    then as many undos."""
    root, state = folder / f"big-{big.name}", folder / f"big-{big.name}-state"
    root.mkdir()
    path = root / "big.txt"
    lines = generate(path, size, big, edits)
    out = Stored(size=path.stat().st_size)
    original = _digest(path)
    ws = _workspace(root, state)
    history = ws.context.history
    assert history is not None
    (root / "small.txt").write_text("warm = 0\n")
    ws.edit_file("small.txt", [{"old_text": "warm = 0", "new_text": "warm = 1"}])  # the schema
    for n, line in enumerate(lines):
        edit: dict[str, Any] = {
            "path": "big.txt",
            "edits": [{"old_text": line, "new_text": _changed(line, big)}],
        }
        if n == 0:
            record = _first_edit(ws, history, edit, out)
        else:
            ws.edit_file(**edit)
    out.amortised = _amortised(history.roots, state / "copies", record, copies)
    for _ in lines:
        out.undo_ms.append(_ms(_timed(ws.undo)))
    out.restored = _digest(path) == original
    path.unlink()
    return out


def _first_edit(ws: Workspace, history: History, edit: dict[str, Any], out: Stored) -> FileRecord:
    """Make ``edit`` and note in ``out`` what it added to the history; returns its record."""
    _checkpoint(history)
    db0, wal0 = _db_files(history)
    bytes0 = history.stats()[1]
    out.edit_ms = _ms(_timed(lambda: ws.edit_file(**edit)))
    db1, wal1 = _db_files(history)
    entry = history.entry(history.entries(limit=1)[0].id)
    assert entry is not None
    record = entry.files[0]
    out.db_and_wal = db1 + wal1 - db0 - wal0
    out.wal = wal1 - wal0
    out.counted = history.stats()[1] - bytes0
    out.restore = len(record.restore or b"")
    out.diff = len(record.diff.encode("utf-8"))
    _checkpoint(history)
    out.db_after_checkpoint = _db_files(history)[0] - db0
    return record


def _amortised(roots: Sequence[str], folder: Path, record: FileRecord, copies: int) -> float:
    """What ``record`` costs on disk once pages are full: the growth of the database file
    (checkpointed) over ``copies`` copies of it, per copy, in a history of its own."""
    history = History(roots, str(folder))
    history.record("edit_file", [record])
    _checkpoint(history)
    db0 = _db_files(history)[0]
    for _ in range(copies):
        history.record("edit_file", [record])
    _checkpoint(history)
    grew = _db_files(history)[0] - db0
    history.close()
    return grew / copies


# -- (b) the time history adds to one edit ---------------------------------------------------


class TimedHistory(History):
    """A History that notes the time its database work takes for each recorded change: a
    single file's ``record``, or a transaction's ``recording`` (the entry written before the
    change is made and settled after it; the change itself, made inside, is not counted)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spent: list[float] = []

    def record(
        self,
        tool: str,
        files: Sequence[FileRecord],
        undoes: Sequence[int] = (),
        *,
        client: str = "",
    ) -> int:
        start = time.perf_counter()
        try:
            return super().record(tool, files, undoes, client=client)
        finally:
            self.spent.append(time.perf_counter() - start)

    @contextmanager
    def recording(
        self,
        tool: str,
        files: Sequence[FileRecord],
        undoes: Sequence[int] = (),
        *,
        client: str = "",
    ) -> Iterator[int]:
        start = time.perf_counter()
        with super().recording(tool, files, undoes, client=client) as change:
            inserted = time.perf_counter()
            yield change
            made = time.perf_counter()
        self.spent.append(inserted - start + time.perf_counter() - made)


@dataclass(frozen=True, slots=True)
class Overhead:
    label: str
    on_ms: float
    off_ms: float
    paired_ms: float  # the median of (on - off) over the pairs
    record_ms: float  # the median time of the database work (TimedHistory)

    @property
    def added_ms(self) -> float:
        return self.on_ms - self.off_ms


def _pairs(
    on: Callable[[], Any], off: Callable[[], Any], runs: int
) -> tuple[list[float], list[float]]:
    """Times of ``on`` and ``off`` called in turn, ``runs`` pairs, the first of each pair
    alternating."""
    for _ in range(3):  # warm-up
        on()
        off()
    ons, offs = [], []
    for n in range(runs):
        if n % 2 == 0:
            ons.append(_timed(on))
            offs.append(_timed(off))
        else:
            offs.append(_timed(off))
            ons.append(_timed(on))
    return ons, offs


def _editing(ws: Workspace, flip: Flip) -> Callable[[], Any]:
    return lambda: ws.edit_file(**flip.arguments())


def overhead(folder: Path, runs: int, quick: bool) -> list[Overhead]:
    """(b): one edit with the history on and off, on the same files."""
    root, state = folder / "overhead", folder / "overhead-state"
    root.mkdir()
    functions = 100 if quick else 715  # 7 lines each: ~5,000 lines
    flips = {}
    for name in ("module.py", "other.py"):
        text, line = python_module(functions, tag=name[0])
        (root / name).write_text(text)
        flips[name] = Flip(name, line, line + "  # changed")
    text, line = text_file(MB // 10 if quick else MB, random.Random(SEED))
    (root / "large.txt").write_text(text)
    flips["large.txt"] = Flip("large.txt", line, line + "  # changed")
    history = TimedHistory([str(root.resolve())], str(state / "history"))
    ws_on = _workspace(root, state, history)
    ws_off = _workspace(root, state, False)
    lines = (root / "module.py").read_text().count("\n")
    out = []
    for name, label in (
        ("module.py", f"edit_file, {lines:,}-line .py"),
        ("large.txt", f"edit_file, {(root / 'large.txt').stat().st_size / MB:.1f} MB .txt"),
    ):
        flip = flips[name]
        history.spent.clear()
        ons, offs = _pairs(_editing(ws_on, flip), _editing(ws_off, flip), runs)
        out.append(_overhead(label, ons, offs, history.spent))

    def batch(ws: Workspace) -> None:
        ws.batch(
            [
                {"tool": "edit_file", "arguments": flips["module.py"].arguments()},
                {"tool": "edit_file", "arguments": flips["other.py"].arguments()},
            ]
        )

    history.spent.clear()
    ons, offs = _pairs(lambda: batch(ws_on), lambda: batch(ws_off), runs)
    out.append(_overhead(f"batch, 2 x {lines:,}-line .py", ons, offs, history.spent))
    return out


def _overhead(label: str, ons: list[float], offs: list[float], spent: list[float]) -> Overhead:
    paired = [a - b for a, b in zip(ons, offs, strict=True)]
    return Overhead(
        label,
        _median_ms(ons),
        _median_ms(offs),
        _median_ms(paired),
        _median_ms(spent) if spent else 0.0,
    )


# -- (c) the history with 10,000 entries -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Full:
    entries: int
    stored: int
    db_bytes: int
    fill_s: float
    timings: dict[str, float]  # label: median ms


def _fill(history: History, templates: list[FileRecord], count: int) -> None:
    """Record ``count`` entries, copies of the real records in ``templates`` (one file each,
    every tenth a two-file batch)."""
    for n in range(count):
        rec = templates[n % len(templates)]
        if n % 10 == 9:
            other = templates[(n + 1) % len(templates)]
            history.record("batch", [rec, other])
        else:
            history.record("edit_file", [rec])


def full_history(folder: Path, entries: int, files: int, runs: int) -> Full:
    """(c): the history tool, an edit and an undo with ``entries`` entries present."""
    root, state = folder / "full", folder / "full-state"
    (root / "pkg").mkdir(parents=True)
    ws = _workspace(root, state)
    history = ws.context.history
    assert history is not None
    flips = []
    for n in range(files):
        text, line = python_module(30, tag=f"m{n}_")
        name = f"pkg/mod_{n:03}.py"
        (root / name).write_text(text)
        flips.append(Flip(name, line, line + "  # changed"))
        ws.edit_file(**flips[-1].arguments())  # a real record of a small file
    templates = [f for e in history.entries(limit=files) for f in _full(history, e.id).files]
    took = _timed(lambda: _fill(history, templates, max(0, entries - files)))
    count, stored = history.stats()
    db, wal = _db_files(history)
    middle = history.entries(limit=count // 2)[-1].id
    path = flips[files // 2].path
    queries: dict[str, Callable[[], Any]] = {
        "history: latest 10": lambda: ws.history(limit=10),
        "history: latest 100": lambda: ws.history(limit=100),
        "history: latest 10 of one path": lambda: ws.history(path, limit=10),
        "history: one change in full (change_id)": lambda: ws.history(change_id=middle),
    }
    timings = {
        label: _median_ms([_timed(call) for _ in range(runs)]) for label, call in queries.items()
    }
    lines = (root / flips[0].path).read_text().count("\n")
    edit_ms, undo_ms = _edit_and_undo(ws, root, flips[0], runs)
    pruning = " (each prunes the oldest entry)" if count >= history.max_entries else ""
    timings[f"edit_file, {lines}-line .py{pruning}"] = edit_ms
    timings["undo of the latest change"] = undo_ms
    return Full(count, stored, db + wal, took, timings)


def _edit_and_undo(ws: Workspace, root: Path, flip: Flip, runs: int) -> tuple[float, float]:
    """Median ms of a one-line edit and of the undo that follows it."""
    edits, undos = [], []
    for _ in range(runs):
        before = _digest(root / flip.path)
        edits.append(_timed(lambda: ws.edit_file(**flip.arguments())))
        undos.append(_timed(ws.undo))
        flip.state = 1 - flip.state  # the undo flipped it back
        assert _digest(root / flip.path) == before
    return _median_ms(edits), _median_ms(undos)


def _full(history: History, change: int) -> Entry:
    entry = history.entry(change)
    assert entry is not None
    return entry


# -- (d) undo in small files -----------------------------------------------------------------


def undo_small(folder: Path, runs: int, quick: bool) -> dict[str, float]:
    """(d): median ms of ``undo`` after a one-line edit, in a file kept whole and in one kept
    as a delta."""
    root, state = folder / "undo", folder / "undo-state"
    root.mkdir()
    ws = _workspace(root, state)
    out = {}
    for functions, kind in ((30, "kept whole"), (100 if quick else 715, "a delta")):
        text, line = python_module(functions)
        name = f"m{functions}.py"
        (root / name).write_text(text)
        flip = Flip(name, line, line + "  # changed")
        lines = text.count("\n")
        times = []
        for _ in range(runs):
            ws.edit_file(**flip.arguments())
            times.append(_timed(ws.undo))
            flip.state = 0
            assert (root / name).read_text() == text
        out[f"undo, {lines:,}-line .py ({kind})"] = _median_ms(times)
    return out


# -- the report ------------------------------------------------------------------------------


@contextmanager
def _section(title: str) -> Iterator[None]:
    print(title)
    start = time.perf_counter()
    yield
    print(f"    ({time.perf_counter() - start:.1f} s)")


def _row(label: str, value: str, goal: str = "") -> None:
    print(f"    {label:<58} {value:>22}  {goal}")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report_stored(big: dict[str, Stored], copies: int) -> bool:
    """Print (a); ``True`` if every kind of file meets the goal."""
    ok = True
    for kind, s in big.items():
        met = s.amortised <= GOAL_BYTES and s.counted <= GOAL_BYTES
        ok &= met
        _row(f"{kind} ({s.size:,} bytes): .sqlite3 + -wal grew", f"{s.db_and_wal:,} B")
        _row("    of which -wal (whole pages, reused after a checkpoint)", f"{s.wal:,} B")
        _row(
            f"    .sqlite3 after a checkpoint / per copy of {copies:,}",
            f"{s.db_after_checkpoint:,} / {s.amortised:,.0f} B",
            f"< 10 KB: {verdict(met)}",
        )
        _row(
            "    History.stats() bytes / restore data / diff",
            f"{s.counted:,} / {s.restore:,} / {s.diff:,} B",
        )
        _row("    the edit itself (info)", f"{s.edit_ms:,.0f} ms")
    return ok


def report_overhead(rows: list[Overhead]) -> bool:
    """Print (b); ``True`` if the paired medians meet the goal."""
    ok = True
    for o in rows:
        met = o.paired_ms < GOAL_MS
        ok &= met
        _row(o.label + ": on / off", f"{o.on_ms:.2f} / {o.off_ms:.2f} ms")
        _row(
            "    added: medians' difference / paired median",
            f"{o.added_ms:+.2f} / {o.paired_ms:+.2f} ms",
            f"< 1 ms: {verdict(met)}",
        )
        _row("    of which the database's work", f"{o.record_ms:.2f} ms")
    return ok


def report_full(full: Full) -> None:
    """Print (c)."""
    _row(
        f"entries / stored / database files (filled in {full.fill_s:.1f} s)",
        f"{full.entries:,} / {full.stored / MB:.1f} / {full.db_bytes / MB:.1f} MB",
    )
    for label, ms in full.timings.items():
        _row(label, f"{ms:.2f} ms")


def report_undo(small: dict[str, float], big: dict[str, Stored], size_mb: float) -> bool:
    """Print (d); ``True`` if every big file was restored exactly."""
    for label, ms in small.items():
        _row(label, f"{ms:.2f} ms")
    for kind, s in big.items():
        _row(
            f"undo, {size_mb:g} MB {kind} (a delta): median / 1st / last of {len(s.undo_ms)}",
            f"{statistics.median(s.undo_ms):,.0f} / {s.undo_ms[0]:,.0f} / {s.undo_ms[-1]:,.0f} ms",
            "restored exactly" if s.restored else "NOT RESTORED",
        )
    return all(s.restored for s in big.values())


def main(argv: list[str] | None = None) -> int:
    """Print what the history stores and costs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, few runs (a smoke run)")
    parser.add_argument("--size-mb", type=float, default=None, help="big files' size (100)")
    parser.add_argument("--runs", type=int, default=None, help="pairs of edits in (b) (200)")
    parser.add_argument("--entries", type=int, default=None, help="entries in (c) (10,000)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a goal is not met")
    args = parser.parse_args(argv)
    size_mb, runs, entries, big_edits, small_runs, copies = (
        (2, 10, 300, 2, 3, 50) if args.quick else (100, 200, 10_000, 5, 30, 1000)
    )
    size_mb = args.size_mb if args.size_mb is not None else size_mb
    runs = args.runs if args.runs is not None else runs
    entries = args.entries if args.entries is not None else entries
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        with _section(f"(a) one one-line edit_file in a {size_mb:g} MB file: what history stores"):
            size = int(size_mb * MB)
            big = {b.name: stored_bytes(folder, b, size, big_edits, copies) for b in BIGS}
            ok = report_stored(big, copies)
        with _section(f"(b) the time history adds to one edit: {runs} pairs, on and off in turn"):
            ok &= report_overhead(overhead(folder, runs, args.quick))
        with _section(f"(c) with {entries:,} entries in the history, median of {small_runs}"):
            report_full(full_history(folder, entries, min(100, entries // 3), small_runs))
        with _section(f"(d) undo of a one-line edit, median of {small_runs}"):
            ok &= report_undo(undo_small(folder, small_runs, args.quick), big, size_mb)
    print(
        "requirement: under 10 KB stored for a one-line edit in a big file, under 1 ms added to "
        "an edit (paired median), every undo restores the bytes: " + verdict(ok)
    )
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The history over many ``editguard call`` processes: its disk use and the time to open it.

Each call is a process of its own, as an agent's shell calls are: in turn a one-line
``edit_file`` of a 2,000-line file and a ``write_file`` of a new ~100 KB content of it (random
text, so that it does not compress), under a history limit of 1 MB (``--history-bytes``). After
every tenth of the calls, the history's files on disk (database, ``-wal``, ``-shm``) are
measured, and a new process times opening the database and reading its counts (the median of
three).

**Requirements:** the disk use stays within the limit plus a constant (the free pages kept for
the next entries, a write-ahead log at most ``WAL_LIMIT`` long, its index: 1 MB here), and the
time to open after the last calls is within twice the time after the first tenth (plus 5 ms
for noise): it does not grow with the number of calls.

    python benchmarks/bench_history_calls.py [--quick] [--calls N] [--strict]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from editguard.history import History, database

LIMIT = 1_000_000
SLACK = database.FREE_RESERVE * 4096 + database.WAL_LIMIT + 64 * 1024

OPEN = """
import sys, time
from editguard.history import History
history = History([sys.argv[1]], sys.argv[2])
start = time.perf_counter()
history.stats()
print(time.perf_counter() - start)
"""


def disk(folder: Path) -> int:
    """The bytes of every file in the history folder."""
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


def open_ms(root: Path, folder: Path) -> float:
    """The median time, in a new process each time, to open the history and read its counts."""
    times = []
    for _ in range(3):
        proc = subprocess.run(
            [sys.executable, "-c", OPEN, str(root), str(folder)],
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(float(proc.stdout) * 1000)
    return statistics.median(times)


def call(root: Path, folder: Path, args: Path, tool: str, arguments: dict[str, object]) -> None:
    args.write_text(json.dumps(arguments))
    flags = ["--root", str(root), "--history", str(folder), "--history-bytes", str(LIMIT)]
    subprocess.run(
        [sys.executable, "-m", "editguard", "call", tool, "--args-file", str(args), *flags],
        cwd=root,
        capture_output=True,
        check=True,
    )


def main(argv: list[str] | None = None) -> int:
    """Print the history's disk use and open time as the calls add up."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="20 calls (a smoke run)")
    parser.add_argument("--calls", type=int, default=None, help="how many calls (default 500)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a requirement fails")
    args = parser.parse_args(argv)
    calls = args.calls or (20 if args.quick else 500)
    rng = random.Random(20261127)
    with tempfile.TemporaryDirectory() as name:
        root, folder = Path(name) / "root", Path(name) / "history"
        root.mkdir()
        folder.mkdir(mode=0o700)
        root = root.resolve()
        target = root / "a.txt"
        print(f"{calls} `editguard call` processes under a {LIMIT:,}-byte history limit")
        print(f"{'calls':>7} {'disk (bytes)':>14} {'-wal (bytes)':>14} {'open (ms)':>10}")
        worst, opens = 0, []
        step = max(1, calls // 10)
        for n in range(1, calls + 1):
            if n % 2:
                lines = [f"{n} {rng.getrandbits(200):050x}\n" for _ in range(2000)]
                call(root, folder, Path(name) / "args.json", "write_file",
                     {"path": "a.txt", "content": "".join(lines)})  # fmt: skip
            else:
                line = target.read_text().splitlines()[n % 2000]
                edits = [{"old_text": line, "new_text": line + " edited"}]
                call(root, folder, Path(name) / "args.json", "edit_file",
                     {"path": "a.txt", "edits": edits})  # fmt: skip
            used = disk(folder)
            worst = max(worst, used)
            if n % step == 0 or n == calls:
                wal = Path(History([str(root)], str(folder)).path + "-wal")
                log = wal.stat().st_size if wal.exists() else 0
                opens.append(open_ms(root, folder))
                print(f"{n:>7} {used:>14,} {log:>14,} {opens[-1]:>10.2f}")
    fits = worst <= LIMIT + SLACK
    steady = opens[-1] <= 2 * opens[0] + 5
    print(f"most disk used: {worst:,} bytes (limit {LIMIT:,} + {SLACK:,})")
    print(f"requirement: disk within the limit plus a constant: {'PASS' if fits else 'FAIL'}")
    print(f"requirement: opening does not slow down with the calls: {'PASS' if steady else 'FAIL'}")
    return 1 if args.strict and not (fits and steady) else 0


if __name__ == "__main__":
    raise SystemExit(main())

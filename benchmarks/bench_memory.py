"""Peak memory of one edit on a large file.

The parent writes a ~100 MB code-like file to a temporary folder (streaming, so it never holds
the file itself), then runs each measurement in a fresh Python process that imports editguard,
records its peak resident set size (``ru_maxrss``), calls ``Workspace.edit_file`` with one edit
near the middle of the file, and records the peak again. The growth of the peak, divided by the
file's size, is the figure. Requirement: at most 3x the file size, whatever its text. Measured
for an LF file and a CRLF file, each also with one arrow (U+2192) or one emoji on its first line
(CPython then stores the whole text at 2 or 4 bytes a character), and an LF file with the arrow
on its last line instead (the text read so far is copied once into the wider kind).

Linux carries ``ru_maxrss`` over fork and exec, so a child starts with its parent's peak as its
own; when that peak is above the child's, the ``ru_maxrss`` growth understates. On Linux the
child therefore also reports ``VmHWM`` (peak since exec) minus ``VmRSS`` (now) from
/proc/self/status, which has no such bias. A second child per file reports tracemalloc's peak of
Python allocations during the call. The requirement is judged on the worst of the figures.

Run: ``python benchmarks/bench_memory.py`` (``--quick`` for ~10 MB files).
"""

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from sample_code import SEED, code_line

MB = 1_000_000
# CPython stores a str with 1, 2 or 4 bytes a character, by its widest character (PEP 393): one
# arrow makes the decoded text of an otherwise ASCII file 2 bytes a character, one emoji 4.
# Each is measured too (unless --ascii-only): the requirement holds for any text.
NON_ASCII_COMMENTS = (
    ("arrow", "state A \N{RIGHTWARDS ARROW} state B"),
    ("emoji", "status: done \N{GRINNING FACE}"),
)


@dataclass(frozen=True, slots=True)
class Generated:
    path: str
    size: int
    lines: int
    middle_index: int  # the code line (0-based, after any comment) at the middle of the file
    middle_text: str


def generate(
    path: str, target_bytes: int, newline: str, first_comment: str = "", last_comment: str = ""
) -> Generated:
    """Write a code-like file of about ``target_bytes`` bytes, a block of lines at a time.

    ``first_comment`` and ``last_comment`` (if any) are written as comment lines before and
    after the code.
    """
    rng = random.Random(SEED)
    eol = newline.encode("ascii")
    size = 0
    n = 0
    middle_index, middle_text = -1, ""
    with open(path, "wb") as handle:
        if first_comment:
            head = f"# {first_comment}{newline}".encode()
            handle.write(head)
            size += len(head)
        while size < target_bytes:
            block: list[bytes] = []
            for _ in range(10_000):
                text = code_line(n, rng)
                line = text.encode("ascii") + eol
                block.append(line)
                size += len(line)
                if middle_index < 0 and size >= target_bytes // 2:
                    middle_index, middle_text = n, text
                n += 1
                if size >= target_bytes:
                    break
            handle.write(b"".join(block))
        if last_comment:
            tail = f"# {last_comment}{newline}".encode()
            handle.write(tail)
            size += len(tail)
    extra = (1 if first_comment else 0) + (1 if last_comment else 0)
    return Generated(path, size, n + extra, middle_index, middle_text)


def file_contains(path: str, needle: bytes) -> bool:
    """Whether the file holds ``needle``, read a small block at a time (the parent stays small)."""
    tail = b""
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            if needle in tail + block[: len(needle)] or needle in block:
                return True
            tail = block[-len(needle) :]
    return False


# -- the child: one measurement in a fresh process --------------------------------------------


def maxrss_bytes() -> int:
    """This process's ``ru_maxrss``, in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB


def proc_status() -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (bytes) from /proc/self/status; empty where there is none."""
    out: dict[str, int] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0]) * 1024
    except OSError:
        return {}
    return out


def child(path: str, old: str, new: str, mode: str) -> int:
    """Run one edit and print the figures as JSON (``mode``: ``rss`` or ``tracemalloc``)."""
    import gc
    import tracemalloc

    from editguard import Workspace

    folder, name = os.path.split(path)
    # Room for the file and what the edit adds to it (the limit holds for the result too).
    ws = Workspace([folder], max_file_bytes=2 * os.path.getsize(path) + 1_000_000)
    edits = [{"old_text": old, "new_text": new, "occurrences": 1}]
    gc.collect()
    figures: dict[str, int] = {}
    if mode == "tracemalloc":
        tracemalloc.start()
        base, _ = tracemalloc.get_traced_memory()
        result = ws.edit_file(name, edits)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        figures = {"trace_base": base, "trace_peak": peak}
    else:
        status = proc_status()
        before = maxrss_bytes()
        result = ws.edit_file(name, edits)
        after = maxrss_bytes()
        figures = {"maxrss_before": before, "maxrss_after": after}
        if status:
            figures["rss_before"] = status["VmRSS"]
            figures["hwm_before"] = status["VmHWM"]
            figures["hwm_after"] = proc_status()["VmHWM"]
    assert result.written
    assert result.total_replacements == 1
    print(json.dumps(figures))
    return 0


def run_child(path: str, old: str, new: str, mode: str) -> dict[str, int]:
    """Run :func:`child` in a fresh interpreter and return its figures."""
    # The edit texts travel by environment, not argv, so that nothing needs quoting.
    env = {**os.environ, "EDITGUARD_BENCH_OLD": old, "EDITGUARD_BENCH_NEW": new}
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", path, "--mode", mode],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child failed ({proc.returncode}):\n{proc.stderr}")
    figures: dict[str, int] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


# -- the parent -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    size: int
    maxrss_delta: int  # ru_maxrss after - before (the brief's figure)
    hwm_delta: int | None  # VmHWM after - VmRSS before (Linux; immune to inherited maxrss)
    trace_peak: int | None  # tracemalloc peak during the call
    inherited: bool  # the child's ru_maxrss baseline was the parent's peak, not its own

    def figures(self) -> list[int]:
        return [f for f in (self.maxrss_delta, self.hwm_delta, self.trace_peak) if f is not None]

    @property
    def worst_ratio(self) -> float:
        return max(self.figures()) / self.size


def measure(
    folder: str,
    label: str,
    newline: str,
    target: int,
    trace: bool,
    first_comment: str = "",
    last_comment: str = "",
) -> Row:
    path = os.path.join(folder, f"big_{label.lower().replace('+', '_').replace(' ', '_')}.py")
    original = path + ".orig"
    gen = generate(original, target, newline, first_comment, last_comment)
    shutil.copyfile(original, path)
    index, old = gen.middle_index, gen.middle_text
    new = old.replace(f"_{index}", f"_{index}_renamed", 1) + "  # edited"
    line_no = index + 1 + (1 if first_comment else 0)
    print(f"[{label}] file: {gen.size:,} bytes, {gen.lines:,} lines; one edit of line {line_no}")

    parent_peak = maxrss_bytes()
    rss = run_child(path, old, new, "rss")
    maxrss_delta = rss["maxrss_after"] - rss["maxrss_before"]
    print(
        f"[{label}] ru_maxrss: {rss['maxrss_before'] / MB:.1f} MB after imports -> "
        f"{rss['maxrss_after'] / MB:.1f} MB after the edit; delta {maxrss_delta / MB:.1f} MB "
        f"(parent's own peak at spawn: {parent_peak / MB:.1f} MB)"
    )
    hwm_delta: int | None = None
    inherited = False
    if "hwm_after" in rss:
        hwm_delta = rss["hwm_after"] - rss["rss_before"]
        # Linux keeps ru_maxrss across fork+exec: a child starts with its parent's peak.
        inherited = rss["maxrss_before"] > rss["hwm_before"] + MB
        print(
            f"[{label}] /proc/self/status: VmRSS {rss['rss_before'] / MB:.1f} MB after imports "
            f"-> VmHWM {rss['hwm_after'] / MB:.1f} MB after the edit; delta {hwm_delta / MB:.1f} MB"
        )
        if inherited:
            print(
                f"[{label}] note: the child's ru_maxrss baseline is the parent's peak, so the "
                "ru_maxrss delta understates; the VmHWM figure does not have this bias"
            )
    assert file_contains(path, new.encode("ascii")), "the edit is not in the written file"

    trace_peak: int | None = None
    if trace:
        shutil.copyfile(original, path)
        tm = run_child(path, old, new, "tracemalloc")
        trace_peak = tm["trace_peak"] - tm["trace_base"]
        print(f"[{label}] tracemalloc peak: {trace_peak / MB:.1f} MB")
    os.remove(original)
    os.remove(path)
    return Row(label, gen.size, maxrss_delta, hwm_delta, trace_peak, inherited)


def _cell(value: int | None, size: int) -> str:
    if value is None:
        return "-"
    return f"{value / MB:,.1f} MB ({value / size:.3f}x)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="~10 MB files instead of ~100 MB")
    parser.add_argument("--size-mb", type=float, default=None, help="file size in MB (10^6 B)")
    parser.add_argument(
        "--ascii-only",
        action="store_true",
        help="leave out the files whose first line holds an arrow (U+2192) or an emoji",
    )
    parser.add_argument("--no-tracemalloc", action="store_true", help="skip the third figure")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when the 3x requirement is not met"
    )
    parser.add_argument("--child", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument(
        "--mode", default="rss", choices=("rss", "tracemalloc"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)

    if args.child:
        return child(
            args.child,
            os.environ["EDITGUARD_BENCH_OLD"],
            os.environ["EDITGUARD_BENCH_NEW"],
            args.mode,
        )

    size_mb = args.size_mb if args.size_mb is not None else (10.0 if args.quick else 100.0)
    target = int(size_mb * MB)
    print(f"editguard memory benchmark (python {sys.version.split()[0]}, {size_mb:g} MB files)")
    with tempfile.TemporaryDirectory(prefix="editguard-bench-") as folder:
        cases = [("LF", "\n", "", ""), ("CRLF", "\r\n", "", "")]
        if not args.ascii_only:
            cases += [
                (f"{eol_name}+{name}", eol, comment, "")
                for name, comment in NON_ASCII_COMMENTS
                for eol_name, eol in (("LF", "\n"), ("CRLF", "\r\n"))
            ]
            cases.append(("LF+arrow last", "\n", "", NON_ASCII_COMMENTS[0][1]))
        rows = [
            measure(folder, label, newline, target, not args.no_tracemalloc, first, last)
            for label, newline, first, last in cases
        ]

    print()
    print(
        "Summary: peak memory growth of one edit_file call (fresh process per figure; MB = 10^6 B)"
    )
    table = [
        (
            row.label,
            f"{row.size / MB:,.1f} MB",
            _cell(row.maxrss_delta, row.size) + (" *" if row.inherited else ""),
            _cell(row.hwm_delta, row.size),
            _cell(row.trace_peak, row.size),
            f"<= 3x  {'PASS' if row.worst_ratio <= 3.0 else 'FAIL'} (worst {row.worst_ratio:.3f}x)",
        )
        for row in rows
    ]
    head = ("file", "size", "ru_maxrss delta", "VmHWM - VmRSS", "tracemalloc peak", "requirement")
    widths = [max(len(r[i]) for r in [head, *table]) for i in range(len(head))]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    if any(row.inherited for row in rows):
        print("* baseline inherited from the parent process's peak: this figure understates")
    ok = all(row.worst_ratio <= 3.0 for row in rows)
    if args.strict and not ok:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

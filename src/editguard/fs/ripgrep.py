"""Content search with ripgrep (the ``rg`` binary the ``ripgrep`` wheel installs): fast on large
trees, and with ripgrep's own rules for ``.gitignore``, hidden and binary files.

ripgrep runs with ``--json`` (paths and lines come back exactly, non-UTF-8 ones as bytes) and
``--no-config``, under a timeout and a cap on what it prints, and is killed when either runs
out. It is given only paths the sandbox resolved, and never follows a symbolic link.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Literal

from editguard.core.hits import LONG_LINE, FileHits, Hits, decode_line
from editguard.errors import InvalidRegex, InvalidRequest

Case = Literal["smart", "sensitive", "insensitive"]

RG_ENV = "EDITGUARD_RG"  # the rg to run; a path that is no executable turns ripgrep off
TIMEOUT = 30.0  # seconds a search may take; then it stops with what it found
MAX_OUTPUT = 64 * 1024 * 1024  # bytes of ripgrep's output read; then it is killed
MAX_MESSAGE = LONG_LINE  # bytes of one JSON message (one line); a longer one is only counted
MAX_STDERR = 64 * 1024


def find_rg() -> str | None:
    """The ``rg`` to run: ``$EDITGUARD_RG`` if set (nothing, if that is no executable file),
    else the one beside this Python (the ``ripgrep`` wheel puts it in the environment's
    scripts folder), else one on ``PATH``."""
    given = os.environ.get(RG_ENV)
    if given is not None:
        return given if _executable(given) else None
    name = "rg.exe" if os.name == "nt" else "rg"
    for folder in (os.path.dirname(sys.executable), sysconfig.get_path("scripts")):
        candidate = os.path.join(folder, name)
        if _executable(candidate):
            return candidate
    return shutil.which(name)


def _executable(path: str) -> bool:
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


@dataclass(frozen=True, slots=True)
class Query:
    """What to search for, and where (paths the sandbox resolved)."""

    pattern: str
    regex: bool
    case: Case
    glob: str | None
    include_ignored: bool
    paths: tuple[str, ...]


@dataclass(slots=True)
class Outcome:
    """How a search ended: ``stopped`` says why it ended early, if it did."""

    stopped: str | None = None


def command(rg: str, query: Query, context: int, path: str) -> list[str]:
    """The ripgrep command line for one path. The pattern goes after ``--regexp`` and the path
    after ``--``, so that neither is ever read as a flag, whatever it starts with."""
    args = [rg, "--json", "--no-config", "--no-messages", "--no-require-git"]
    args.append({"smart": "--smart-case", "sensitive": "--case-sensitive"}.get(query.case, "-i"))
    args.append("--crlf" if query.regex else "--fixed-strings")
    if context:
        args.append(f"--context={context}")
    if query.include_ignored:
        args += ["--no-ignore", "--hidden", "--glob=!.git"]
    if query.glob is not None:
        args.append(f"--glob={query.glob}")
    return [*args, "--regexp", query.pattern, "--", path]


def search(
    rg: str,
    query: Query,
    hits: Hits,
    display: Callable[[str], str],
    *,
    timeout: float = TIMEOUT,
    max_output: int = MAX_OUTPUT,
) -> Outcome:
    """Run ripgrep on each of the query's paths and add what it finds to ``hits``
    (``display(real) -> shown path``). A glob is relative to the path searched: ripgrep runs
    in that folder.

    Raises:
        OSError: ``rg`` could not be started (the caller falls back to the Python scan).
        InvalidRegex: ripgrep refused the pattern.
        InvalidRequest: ripgrep refused another argument (the glob).
    """
    outcome = Outcome()
    deadline = time.monotonic() + timeout
    budget = max_output
    for path in query.paths:
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        budget -= _run(
            command(rg, query, hits.context, path),
            folder,
            query,
            hits,
            display,
            outcome,
            (max(0.0, deadline - time.monotonic()), timeout),
            (budget, max_output),
        )
        if outcome.stopped is not None:
            break
    return outcome


def _run(
    args: list[str],
    folder: str,
    query: Query,
    hits: Hits,
    display: Callable[[str], str],
    outcome: Outcome,
    timeout: tuple[float, float],
    output: tuple[int, int],
) -> int:
    """Run one ripgrep (``timeout`` and ``output``: what is left, and the whole limit, to name
    it); the bytes it printed."""
    proc = subprocess.Popen(  # noqa: S603 - no shell; every argument is ours or after a flag
        args,
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    why = f"the search took over {timeout[1]:g} s"
    timer = threading.Timer(timeout[0], _stop, (proc, outcome, why))
    errors: list[bytes] = []
    drain = threading.Thread(target=_drain, args=(proc.stderr, errors), daemon=True)
    timer.start()
    drain.start()
    files = hits.files
    try:
        printed = _read(proc.stdout, proc, hits, display, outcome, output)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        timer.cancel()
        drain.join()
        proc.stdout.close()
        proc.stderr.close()
    if proc.returncode == 2 and hits.files == files and outcome.stopped is None:
        _refusal(b"".join(errors).decode("utf-8", "replace").strip())
    return printed


def _stop(proc: subprocess.Popen[bytes], outcome: Outcome, why: str) -> None:
    if proc.poll() is None:
        outcome.stopped = why
        with contextlib.suppress(OSError):
            proc.kill()


def _drain(stream: IO[bytes], into: list[bytes]) -> None:
    kept = 0
    while chunk := stream.read(8192):
        if kept < MAX_STDERR:
            into.append(chunk)
            kept += len(chunk)


def _read(
    out: IO[bytes],
    proc: subprocess.Popen[bytes],
    hits: Hits,
    display: Callable[[str], str],
    outcome: Outcome,
    output: tuple[int, int],
) -> int:
    current: FileHits | None = None
    wanted = True  # whether the current file's lines may be shown (else only counted)
    total = 0
    while message := out.readline(MAX_MESSAGE):
        total += len(message)
        if total > output[0]:
            _stop(proc, outcome, f"the search printed over {output[1]:,} bytes")
            break
        is_match = message.startswith(b'{"type":"match"')
        if not message.endswith(b"\n"):  # one line of over a megabyte: count it, skip it
            while (rest := out.readline(MAX_MESSAGE)) and not rest.endswith(b"\n"):
                total += len(rest)
            total += len(rest)
            if current is not None and is_match:
                current.long_lines += 1
            continue
        if current is not None and not wanted and not message.startswith(b'{"type":"end"'):
            current.matches += is_match  # a file that cannot be shown: count, do not parse
            continue
        event = json.loads(message)
        kind, data = event.get("type"), event.get("data", {})
        if kind == "begin":
            real = _path(data["path"])
            current = hits.start(display(real), real)
            wanted = hits.wants(current)
        elif current is None:
            continue
        elif kind in ("match", "context"):
            raw = _text(data["lines"])
            current.add(int(data["line_number"]), raw, match=kind == "match")
        elif kind == "end":
            if data.get("binary_offset") is None:  # else binary: its lines are not shown
                hits.add(current)
            current = None
    return total


def _path(value: dict[str, str]) -> str:
    if "text" in value:
        return value["text"]
    return os.fsdecode(base64.b64decode(value["bytes"]))


def _text(value: dict[str, str]) -> str:
    if "text" in value:
        return value["text"]
    return decode_line(base64.b64decode(value["bytes"]))


def _refusal(stderr: str) -> None:
    """Raise the error ripgrep's message stands for (exit status 2, nothing found)."""
    shown = stderr[:2000]
    if "regex" in stderr.lower():
        raise InvalidRegex(
            f"the pattern is not a valid regular expression: {shown}",
            data={"field": "pattern", "syntax": "rust-regex"},
            suggestions=["Fix the pattern, or send regex: false to search for it literally."],
        )
    if "glob" in stderr.lower():
        raise InvalidRequest(f"the glob is invalid: {shown}", data={"field": "glob"})
    raise InvalidRequest(f"ripgrep refused the search: {shown}")

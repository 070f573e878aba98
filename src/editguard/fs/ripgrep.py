"""Content search with ripgrep (the ``rg`` binary the ``ripgrep`` wheel installs): fast on large
trees, and with ripgrep's own rules for ``.gitignore``, hidden and binary files.

ripgrep runs with ``--json`` (paths and lines come back exactly, non-UTF-8 ones as bytes) and
``--no-config``, under a timeout and a cap on what it prints, and is killed when either runs
out. It is given only paths the sandbox resolved, and never follows a symbolic link.

ripgrep opens files by path, so what it prints only proposes: each file it reports is read again
through descriptors (:func:`editguard.fs.searched.confirm`), and only a file whose reported lines
read the same there is kept, with the text of that read.

A notebook's JSON text holds its cells' lines escaped (``print(\"hi\")``): ripgrep does not search
it. It lists the notebooks its rules keep (``--files``), and each is searched by cell in Python
(:mod:`editguard.fs.notebooks`, with the Python scan's regex syntax).
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

from editguard.core.hits import LONG_LINE, Hits, decode_line
from editguard.core.notebook.model import is_notebook
from editguard.errors import InvalidRegex, InvalidRequest
from editguard.fs.notebooks import search_notebook
from editguard.fs.searched import Folders, Proposal, StateFolder, TooLarge, confirm

Case = Literal["smart", "sensitive", "insensitive"]

RG_ENV = "EDITGUARD_RG"  # the rg to run; a path that is no executable turns ripgrep off
TIMEOUT = 30.0  # seconds a search may take; then it stops with what it found
MAX_OUTPUT = 64 * 1024 * 1024  # bytes of ripgrep's output read; then it is killed
MAX_MESSAGE = LONG_LINE  # bytes of one JSON message (one line); a longer one is only counted
MAX_STDERR = 64 * 1024
_DECODER = json.JSONDecoder()
# The notebooks, by name, whatever the case of their extension (as is_notebook knows them).
NOTEBOOKS = "*.[iI][pP][yY][nN][bB]"


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
    """How a search ended: ``stopped`` says why it ended early, if it did; ``too_large``
    counts the files left out for their size, ``changed`` those left out because they changed
    (or could no longer be opened inside the roots) between ripgrep's read and editguard's."""

    stopped: str | None = None
    too_large: int = 0
    changed: int = 0


def command(rg: str, query: Query, context: int, path: str) -> list[str]:
    """The ripgrep command line for one path (notebooks left out: see the module docstring).
    The pattern goes after ``--regexp`` and the path after ``--``, so that neither is ever read
    as a flag, whatever it starts with."""
    args = [rg, "--json", *_walk_flags(query)]
    args.append({"smart": "--smart-case", "sensitive": "--case-sensitive"}.get(query.case, "-i"))
    args.append("--crlf" if query.regex else "--fixed-strings")
    if context:
        args.append(f"--context={context}")
    # After the query's glob: of two globs that match a file, the later one decides.
    args.append(f"--glob=!{NOTEBOOKS}")
    return [*args, "--regexp", query.pattern, "--", path]


def _walk_flags(query: Query) -> list[str]:
    """The flags that say which files ripgrep reads: its ignore rules, and the query's glob."""
    args = ["--no-config", "--no-messages", "--no-require-git"]
    if query.include_ignored:
        args += ["--no-ignore", "--hidden", "--glob=!.git"]
    if query.glob is not None:
        args.append(f"--glob={query.glob}")
    return args


def notebooks(rg: str, query: Query, folder: str, timeout: float) -> list[str] | None:
    """The notebooks under ``folder`` that a search of it reads (its ignore rules and glob);
    ``None`` when listing them took over ``timeout`` seconds.

    Raises:
        OSError: ``rg`` could not be started.
    """
    args = [rg, "--files", "--null", *_walk_flags(query)]
    # A glob of the query that keeps a file keeps it whatever its type: those are left out here.
    args += [f"--type-add=notebook:{NOTEBOOKS}", "--type=notebook", "--", folder]
    try:
        done = subprocess.run(  # noqa: S603 - no shell; every argument is ours or after a flag
            args,
            check=False,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    found = (os.fsdecode(p) for p in done.stdout.split(b"\0") if p)
    return sorted(p for p in found if is_notebook(p))


def search(
    rg: str,
    query: Query,
    hits: Hits,
    display: Callable[[str], str],
    folders: Folders,
    *,
    max_bytes: int,
    timeout: float = TIMEOUT,
    max_output: int = MAX_OUTPUT,
) -> Outcome:
    """Run ripgrep on each of the query's paths and add what it finds to ``hits``
    (``display(real) -> shown path``), each file as read again through ``folders`` (one over
    ``max_bytes`` is left out). A glob is relative to the path searched: ripgrep runs in that
    folder.

    Raises:
        OSError: ``rg`` could not be started (the caller falls back to the Python scan).
        InvalidRegex: ripgrep refused the pattern.
        InvalidRequest: ripgrep refused another argument (the glob).
    """
    outcome = Outcome()
    deadline = time.monotonic() + timeout
    budget = max_output
    reader = _Reader(hits, display, folders, max_bytes, outcome)
    for path in query.paths:
        is_folder = os.path.isdir(path)
        if not is_folder and is_notebook(path):  # a file named is searched, whatever globs say
            reader.notebooks([path], query, (deadline, timeout))
            continue
        folder = path if is_folder else os.path.dirname(path)
        budget -= _run(
            command(rg, query, hits.context, path),
            folder,
            reader,
            (max(0.0, deadline - time.monotonic()), timeout),
            (budget, max_output),
        )
        if outcome.stopped is None and is_folder:
            listed = notebooks(rg, query, folder, max(0.0, deadline - time.monotonic()))
            if listed is None:
                outcome.stopped = f"the search took over {timeout:g} s"
            else:
                reader.notebooks(listed, query, (deadline, timeout))
        if outcome.stopped is not None:
            break
    return outcome


@dataclass(slots=True)
class _Reader:
    """Where ripgrep's findings go, and how they are checked."""

    hits: Hits
    display: Callable[[str], str]
    folders: Folders
    max_bytes: int
    outcome: Outcome

    def settle(self, proposal: Proposal) -> None:
        """Keep the proposed file as editguard's own read of it has it, or count it out."""
        found = self.hits.start(self.display(proposal.real), proposal.real)
        shown = self.hits.wants(found)
        try:
            same = confirm(self.folders, proposal, found, self.max_bytes, shown=shown)
        except TooLarge:
            self.outcome.too_large += 1
            return
        except StateFolder:  # editguard's own: never shown nor counted
            return
        except OSError:  # gone, or a folder on its path is a link now: not the file searched
            same = False
        if same:
            self.hits.add(found)
        else:
            self.outcome.changed += 1

    def notebooks(self, paths: list[str], query: Query, deadline: tuple[float, float]) -> None:
        """Search the notebooks at ``paths`` by cell (see the module docstring).

        Raises:
            InvalidRegex: the pattern is no valid Python ``regex`` expression.
        """
        if not paths:
            return
        from editguard.fs.scan import matcher  # noqa: PLC0415 - scan imports this module

        matches = matcher(query)
        for real in paths:
            if time.monotonic() > deadline[0]:
                self.outcome.stopped = f"the search took over {deadline[1]:g} s"
                return
            found = self.hits.start(self.display(real), real)
            try:
                binary = search_notebook(self.folders, real, matches, found, self.max_bytes)
            except TooLarge:
                self.outcome.too_large += 1
                continue
            except StateFolder:  # editguard's own: never shown nor counted
                continue
            except TimeoutError:  # the regex module's own, on one line
                self.outcome.stopped = "the regex took too long on one line"
                return
            except OSError:  # gone, or a folder on its path is a link now
                self.outcome.changed += 1
                continue
            if not binary:
                self.hits.add(found)


def _run(
    args: list[str],
    folder: str,
    reader: _Reader,
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
    outcome, hits = reader.outcome, reader.hits
    deadline = time.monotonic() + timeout[0]
    timer = threading.Timer(timeout[0], _stop, (proc, outcome, why))
    errors: list[bytes] = []
    drain = threading.Thread(target=_drain, args=(proc.stderr, errors), daemon=True)
    timer.start()
    drain.start()
    files = hits.files
    try:
        printed = _read(proc.stdout, proc, reader, output, (deadline, why))
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
    reader: _Reader,
    output: tuple[int, int],
    deadline: tuple[float, str],
) -> int:
    proposal: Proposal | None = None
    total = 0
    while message := out.readline(MAX_MESSAGE):
        total += len(message)
        if total > output[0]:
            _stop(proc, reader.outcome, f"the search printed over {output[1]:,} bytes")
            break
        is_match = message.startswith(b'{"type":"match"')
        if not message.endswith(b"\n"):  # one line of over a megabyte: count it, skip it
            while (rest := out.readline(MAX_MESSAGE)) and not rest.endswith(b"\n"):
                total += len(rest)
            total += len(rest)
            if proposal is not None and is_match:
                proposal.long_lines += 1
            continue
        event = _DECODER.raw_decode(message.decode())[0]
        kind, data = event.get("type"), event.get("data", {})
        if kind == "begin":
            proposal = Proposal(_path(data["path"]))
        elif proposal is None:
            continue
        elif kind in ("match", "context"):
            number, text = int(data["line_number"]), _text(data["lines"])
            proposal.reported.append((number, text, kind == "match"))
        elif kind == "end":
            if data.get("binary_offset") is None:  # else binary: its lines are not shown
                reader.settle(proposal)
            proposal = None
            if time.monotonic() > deadline[0]:  # checking the files took the time
                reader.outcome.stopped = reader.outcome.stopped or deadline[1]
                _stop(proc, reader.outcome, deadline[1])
                break
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

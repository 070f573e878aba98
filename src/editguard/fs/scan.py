"""Content search in Python, for when ripgrep is missing: the shared walker (fs/walk.py: the
same ``.gitignore``, hidden-file and symbolic-link rules) and a line-by-line scan.

It answers as ripgrep does where both can: lines split on ``\\n`` (a ``\\r`` before it is not
part of the line), a UTF-8 byte-order mark skipped, UTF-16 and UTF-32 files with one read as
text, a file with a NUL byte skipped as binary, a line that is not UTF-8 read as cp1252 (else
latin-1), and a literal pattern matched the same way. A regular expression is Python's
``regex`` module syntax, not ripgrep's Rust syntax: most patterns mean the same, but not all
(lookarounds and backreferences work here and not there, for one).
"""

from __future__ import annotations

import codecs
import collections
import os
import time
from collections.abc import Callable, Iterator, Sequence

import regex

from editguard.core.hits import LONG_LINE, FileHits, Hits, decode_line, without_break
from editguard.core.ignore import compile_rules, is_ignored
from editguard.errors import InvalidRegex, InvalidRequest
from editguard.fs.ripgrep import Outcome, Query
from editguard.fs.sandbox import Resolved, Sandbox
from editguard.fs.walk import walk

_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CHECK_EVERY = 4096  # lines between two looks at the clock
_ESCAPES = regex.compile(r"\\[pP]\{[^}]*\}|\\.")

LINE_TIMEOUT = 1.0  # seconds a regex may take on one line (catastrophic backtracking)

Matcher = Callable[[str], bool]


class _Deadline(Exception):
    """The search ran out of time."""


def matcher(query: Query) -> Matcher:
    """Whether a line (without its line break) matches ``query``.

    Raises:
        InvalidRegex: the pattern is not a valid ``regex`` expression.
    """
    pattern = query.pattern
    if query.case == "smart":
        letters = _ESCAPES.sub("", pattern) if query.regex else pattern
        insensitive = not any(ch.isupper() for ch in letters)
    else:
        insensitive = query.case == "insensitive"
    if not query.regex and not insensitive:
        return lambda line: pattern in line
    # Simple case folding (no FULLCASE), as Rust's regex folds: "ß" does not match "SS".
    flags = regex.IGNORECASE if insensitive else 0
    try:
        compiled = regex.compile(pattern if query.regex else regex.escape(pattern), flags)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise InvalidRegex(
            f"the pattern is not a valid regular expression: {exc}",
            data={"field": "pattern", "syntax": "python-regex"},
            suggestions=["Fix the pattern, or send regex: false to search for it literally."],
        ) from None
    search = compiled.search
    return lambda line: search(line, timeout=LINE_TIMEOUT) is not None


def search(
    sandbox: Sandbox,
    starts: Sequence[Resolved],
    query: Query,
    hits: Hits,
    display: Callable[[str], str],
    *,
    timeout: float,
) -> Outcome:
    """Search every file under ``starts`` (a start may be a file: it is searched whatever its
    name) and add what matches to ``hits``.

    Raises:
        InvalidRegex: the pattern is not a valid ``regex`` expression.
        EditError: a start folder cannot be walked (FILE_NOT_FOUND, PERMISSION_DENIED...).
    """
    matches = matcher(query)
    deadline = time.monotonic() + timeout
    outcome = Outcome()
    include, exclude = _globs(query.glob)
    try:
        for start in starts:
            for path in _files(sandbox, start, query, include, exclude):
                if time.monotonic() > deadline:
                    outcome.stopped = f"the search took over {timeout:g} s"
                    return outcome
                found = hits.start(display(path), path)
                try:
                    binary = _scan(path, matches, found, hits.context, deadline)
                except TimeoutError:  # an OSError, but the regex module's: not the file's
                    raise
                except OSError:
                    continue  # vanished or unreadable meanwhile: skipped, as ripgrep does
                if not binary:
                    hits.add(found)
    except _Deadline:
        outcome.stopped = f"the search took over {timeout:g} s"
    except TimeoutError:  # the regex module's own, on one line
        outcome.stopped = f"the regex took over {LINE_TIMEOUT:g} s on one line"
    return outcome


def _globs(glob: str | None) -> tuple[Callable[[str], bool] | None, tuple[str, ...]]:
    """The file filter of a ``glob`` (gitignore syntax and ``{a,b}`` alternatives, as
    ripgrep's ``--glob``): a plain glob keeps only the files it matches; one starting with
    ``!`` hides those it matches."""
    if glob is None:
        return None, ()
    if glob.startswith("!"):
        return None, tuple(_alternatives(glob[1:]))
    rules = compile_rules("", _alternatives(glob))
    if rules is None:
        return None, ()
    return (lambda rel: is_ignored([rules], rel, False)), ()


_BRACES = regex.compile(r"\{([^{}]*)\}")
MAX_ALTERNATIVES = 1000


def _alternatives(glob: str) -> list[str]:
    """``glob`` with each ``{a,b}`` group written out (``*.{py,ts}``: ``*.py``, ``*.ts``);
    innermost groups first, so that nested ones work too.

    Raises:
        InvalidRequest: more than MAX_ALTERNATIVES globs.
    """
    done: list[str] = []
    todo = [glob]
    while todo:
        current = todo.pop()
        group = _BRACES.search(current)
        if group is None:
            done.append(current)
        else:
            head, tail = current[: group.start()], current[group.end() :]
            todo.extend(head + choice + tail for choice in group.group(1).split(","))
        if len(done) + len(todo) > MAX_ALTERNATIVES:
            raise InvalidRequest(
                f"the glob stands for over {MAX_ALTERNATIVES:,} globs", data={"field": "glob"}
            )
    return done


def _files(
    sandbox: Sandbox,
    start: Resolved,
    query: Query,
    include: Callable[[str], bool] | None,
    exclude: tuple[str, ...],
) -> Iterator[str]:
    if os.path.isfile(start.real):
        yield start.real
        return
    skip = len(start.real.rstrip(os.sep)) + 1
    for entry in walk(
        sandbox,
        start,
        include_ignored=query.include_ignored,
        include_hidden=query.include_ignored,
        exclude=exclude,
    ):
        if entry.kind != "file":
            continue  # a symbolic link is never followed, a folder is walked into
        if include is not None and not include(entry.path[skip:].replace(os.sep, "/")):
            continue
        yield entry.path


def _scan(path: str, matches: Matcher, found: FileHits, context: int, deadline: float) -> bool:
    """Add the file's matching lines (and their context) to ``found``; True if it is binary
    (a NUL byte outside UTF-16/32), whose lines are then not shown.

    Raises:
        OSError: the file cannot be opened (a link, gone) or read.
        _Deadline: past ``deadline``.
        TimeoutError: the regex took over LINE_TIMEOUT on one line.
    """
    before: collections.deque[tuple[int, str]] = collections.deque(maxlen=context or 1)
    after = 0
    for number, raw in enumerate(_lines(path), 1):
        if raw is None:
            return True
        if number % _CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise _Deadline
        if matches(without_break(raw)):
            while before:
                found.add(*before.popleft(), match=False)
            if len(raw) > LONG_LINE:  # only counted, as ripgrep's over-long message is
                found.long_lines += 1
            else:
                found.add(number, raw, match=True)
            after = context
        elif after:
            found.add(number, raw, match=False)
            after -= 1
        elif context:
            before.append((number, raw))
    return False


def _lines(path: str) -> Iterator[str | None]:
    """The file's lines with their ``\\n``; None (then nothing more) when it turns out binary."""
    fd = os.open(path, _FILE)
    with os.fdopen(fd, "rb") as handle:
        head = handle.read(4)
        codec = next((c for mark, c in _BOMS if head.startswith(mark)), None)
        if codec is not None and codec != "utf-8":
            mark = next(m for m, c in _BOMS if c == codec)
            handle.seek(len(mark))
            try:
                text = handle.read().decode(codec)
            except UnicodeDecodeError:
                yield None
                return
            yield from _split(text)
            return
        handle.seek(3 if codec == "utf-8" else 0)
        for raw in handle:
            if b"\x00" in raw:
                yield None
                return
            yield decode_line(raw)


def _split(text: str) -> Iterator[str]:
    """``text`` cut after each ``\\n`` only (str.splitlines also cuts at ``\\r`` and others)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end

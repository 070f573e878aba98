"""Content search in Python, for when ripgrep is missing: the shared walker (fs/walk.py: the
same ``.gitignore``, hidden-file and symbolic-link rules) and a line-by-line scan. Every file is
opened through descriptors, one folder at a time without following a link
(:class:`editguard.fs.searched.Folders`), and one over the size limit is left out, counted.

It answers as ripgrep does where both can: lines split on ``\\n`` (a ``\\r`` before it is not
part of the line), a UTF-8 byte-order mark skipped, UTF-16 and UTF-32 files with one read as
text, a file with a NUL byte skipped as binary, a line that is not UTF-8 read as cp1252 (else
latin-1), and a literal pattern matched the same way; a notebook's cells are searched as
ripgrep's search does (:mod:`editguard.fs.notebooks`). A regular expression is Python's
``regex`` module syntax, not ripgrep's Rust syntax: most patterns mean the same, but not all
(lookarounds and backreferences work here and not there, for one).
"""

from __future__ import annotations

import collections
import errno
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence

import regex

from editguard.core.formats.regex_replace import REGEX_TIMEOUT
from editguard.core.hits import LONG_LINE, FileHits, Hits, without_break
from editguard.core.ignore import compile_rules, is_ignored
from editguard.core.notebook.model import is_notebook
from editguard.errors import InvalidRegex, InvalidRequest
from editguard.fs.notebooks import search_notebook
from editguard.fs.ripgrep import Outcome, Query
from editguard.fs.sandbox import Resolved, Sandbox
from editguard.fs.searched import Folders, TooLarge, lines
from editguard.fs.walk import walk

_CHECK_EVERY = 4096  # lines between two looks at the clock
_ESCAPES = regex.compile(r"\\[pP]\{[^}]*\}|\\.")

LINE_TIMEOUT = REGEX_TIMEOUT  # seconds a regex may take on one line, as in safe_edit

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
    folders: Folders,
    *,
    max_bytes: int,
    timeout: float,
) -> Outcome:
    """Search every file under ``starts`` (a start may be a file: it is searched whatever its
    name), each opened through ``folders``, and add what matches to ``hits``. A file over
    ``max_bytes`` is left out (counted in the outcome).

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
            for path in _files(sandbox, folders, start, query, include, exclude):
                if time.monotonic() > deadline:
                    outcome.stopped = f"the search took over {timeout:g} s"
                    return outcome
                found = hits.start(display(path), path)
                try:
                    if is_notebook(path):
                        binary = search_notebook(folders, path, matches, found, max_bytes)
                    else:
                        binary = _scan(folders, path, max_bytes, matches, found, deadline)
                except TooLarge:
                    outcome.too_large += 1
                    continue
                except TimeoutError:  # an OSError, but the regex module's: not the file's
                    raise
                except OSError as exc:
                    # A folder on its path (or the file) is a link now, where the walker saw
                    # none: counted as changed. Vanished or unreadable: skipped, as ripgrep
                    # skips what it cannot read.
                    outcome.changed += exc.errno in (errno.ELOOP, errno.ENOTDIR)
                    continue
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
    folders: Folders,
    start: Resolved,
    query: Query,
    include: Callable[[str], bool] | None,
    exclude: tuple[str, ...],
) -> Iterator[str]:
    try:
        is_file = stat.S_ISREG(folders.stat(start.real).st_mode)
    except OSError:
        is_file = False  # then the walker says what is wrong with the start
    if is_file:
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


def _scan(
    folders: Folders,
    path: str,
    max_bytes: int,
    matches: Matcher,
    found: FileHits,
    deadline: float,
) -> bool:
    """Add the file's matching lines (and their context) to ``found``; True if it is binary
    (a NUL byte outside UTF-16/32), whose lines are then not shown.

    Raises:
        TooLarge: the file is over ``max_bytes``.
        OSError: the file cannot be opened through ``folders`` (a link, gone) or read.
        _Deadline: past ``deadline``.
        TimeoutError: the regex took over LINE_TIMEOUT on one line.
    """
    context = found.context
    before: collections.deque[tuple[int, str]] = collections.deque(maxlen=context or 1)
    after = 0
    with os.fdopen(folders.open(path, max_bytes), "rb") as handle:
        for number, raw in enumerate(lines(handle, max_bytes), 1):
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

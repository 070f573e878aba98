"""``grep``: search file contents across the roots, with ripgrep (a pure-Python scan when it is
missing), and show the matching lines numbered as read_file shows them; a notebook's cells by
cell (:mod:`editguard.fs.notebooks`)."""

from __future__ import annotations

import dataclasses
import errno
import os
import stat
from typing import Literal

from pydantic import BaseModel, Field

from editguard.core.formats.regex_replace import check_pattern
from editguard.core.hits import Hits, render
from editguard.errors import FileTooLarge, InvalidRequest, NotAFile
from editguard.fs import ripgrep, scan
from editguard.fs.location import changed
from editguard.fs.oserror import not_found, os_error
from editguard.fs.ripgrep import Case, Outcome, Query
from editguard.fs.sandbox import Resolved
from editguard.fs.searched import Folders
from editguard.fs.walk import BINARY_PROBE
from editguard.tools._common import Args
from editguard.tools._tool import Tool
from editguard.transaction.context import Context

MAX_PATTERN = 10_000  # characters
MAX_RESULTS = 1000
DEFAULT_RESULTS = 100
MAX_CONTEXT = 10
MAX_GLOB = 1000  # characters
Engine = Literal["ripgrep", "python"]


class GrepArgs(Args):
    """Arguments of grep."""

    pattern: str = Field(description="Literal unless regex.")
    path: str | None = Field(None, description="Default: all roots.")
    glob: str | None = Field(None, description="*.py, !*.md")
    regex: bool = Field(False, description="Rust syntax.")
    # None: the defaults, and the limits checked in run(): said in the descriptions, they cost
    # fewer bytes of tools/list than as schema keywords.
    case: Case | None = Field(None, description="smart: any case if no capitals.")
    context: int | None = Field(None, description="Lines around matches, max 10.")
    max_results: int | None = Field(None, description="Shown: 100, max 1000.")
    include_ignored: bool = Field(False, description="Hidden, gitignored too.")


class GrepResult(BaseModel):
    """Result of grep."""

    content: str
    matches: int = Field(description="Matching lines found, shown or not.")
    files: int = Field(description="Files with a match.")
    shown: int = Field(description="Matching lines shown.")
    truncated: bool = Field(description="Some matching lines are not shown.")
    engine: Engine
    note: str | None = None


def run(ctx: Context, args: GrepArgs) -> GrepResult:
    """Search the files under ``path`` (or every root) for ``pattern``.

    Raises:
        EditError: INVALID_REQUEST (a line break in the pattern, a bad glob), INVALID_REGEX,
            OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE (a path that is neither file nor folder),
            FILE_TOO_LARGE (a path naming one file over the size limit), PERMISSION_DENIED.
    """
    _check(args)
    with Folders(ctx.sandbox.roots, ctx.sandbox.private) as folders:
        starts = _starts(ctx, folders, args.path)
        query = Query(
            pattern=args.pattern,
            regex=args.regex,
            case=args.case or "smart",
            glob=args.glob,
            include_ignored=args.include_ignored,
            paths=tuple(s.real for s in starts),
        )
        first = ctx.sandbox.roots[0].rstrip(os.sep) + os.sep

        def display(real: str) -> str:
            if real.startswith(first):
                return real[len(first) :].replace(os.sep, "/")
            return real

        limit = ctx.max_file_bytes
        rg = ripgrep.find_rg()

        def search(query: Query, shown: int, context: int) -> tuple[Hits, Outcome, Engine]:
            if rg is not None:
                hits = Hits(shown, context)
                try:
                    found = ripgrep.search(rg, query, hits, display, folders, max_bytes=limit)
                except OSError:  # found but cannot run (removed, wrong platform): in Python
                    pass
                else:
                    return hits, found, "ripgrep"
            hits = Hits(shown, context)
            found = scan.search(
                ctx.sandbox,
                starts,
                query,
                hits,
                display,
                folders,
                max_bytes=limit,
                timeout=ripgrep.TIMEOUT,
            )
            return hits, found, "python"

        hits, outcome, engine = search(
            query, args.max_results or DEFAULT_RESULTS, args.context or 0
        )
        binary = not hits.files and _binary_file(folders, starts, limit)
        # Nothing found where .gitignored or hidden files were left out: whether they hold
        # matches is what the model needs to know. Only then are they searched (node_modules
        # and the like are why they are left out: counting them always would cost their search).
        ignored, also = None, None
        if not hits.files and not binary and not args.include_ignored and not outcome.stopped:
            ignored, also, _ = search(dataclasses.replace(query, include_ignored=True), 1, 0)
    shown = render(hits)
    notes = []
    if outcome.stopped:
        notes.append(f"Stopped early ({outcome.stopped}): the counts are lower bounds.")
    if outcome.too_large:
        notes.append(
            f"{outcome.too_large:,} file(s) over the size limit ({limit:,} bytes) left out."
        )
    if outcome.changed:
        notes.append(f"{outcome.changed:,} file(s) changed while searched, left out: search again.")
    if binary:
        notes.append(f"{starts[0].display} is a binary file: not searched.")
    if ignored is not None and also is not None and ignored.files:
        notes.append(
            ("at least " if also.stopped else "")
            + f"{ignored.matches:,} matching line(s) in {ignored.files:,} .gitignored or hidden "
            "file(s), left out: include_ignored: true searches them."
        )
    return GrepResult(
        content=shown.content,
        matches=hits.matches,
        files=hits.files,
        shown=shown.shown,
        truncated=shown.shown < hits.matches or outcome.stopped is not None,
        engine=engine,
        note=" ".join(notes) or None,
    )


def _check(args: GrepArgs) -> None:
    """Refuse a pattern or glob no search should run with.

    Raises:
        InvalidRequest: an empty or over-long pattern, one holding a line break, a long glob,
            a NUL or a lone surrogate in either.
        InvalidRegex: a regex pattern that compiling alone would make too costly (the checks
            safe_edit makes: counted repetitions, recursion).
    """
    if not args.pattern:
        raise InvalidRequest("the pattern is empty", data={"field": "pattern"})
    if len(args.pattern) > MAX_PATTERN:
        raise InvalidRequest(
            f"the pattern is {len(args.pattern):,} characters long; the limit is {MAX_PATTERN:,}",
            data={"field": "pattern", "limit": MAX_PATTERN},
        )
    if "\n" in args.pattern or "\r" in args.pattern:
        raise InvalidRequest(
            "grep matches within one line: the pattern may not hold a line break",
            data={"field": "pattern"},
            suggestions=["Search for one line of the text (the most distinctive one)."],
        )
    for field, value, low, high in (
        ("context", args.context, 0, MAX_CONTEXT),
        ("max_results", args.max_results, 1, MAX_RESULTS),
    ):
        if value is not None and not low <= value <= high:
            raise InvalidRequest(
                f"{field} is {value}; it must be from {low} to {high:,}",
                data={"field": field, "limit": high},
            )
    if args.glob is not None and len(args.glob) > MAX_GLOB:
        raise InvalidRequest(
            f"the glob is {len(args.glob):,} characters long; the limit is {MAX_GLOB:,}",
            data={"field": "glob", "limit": MAX_GLOB},
        )
    for name, text in (("pattern", args.pattern), ("glob", args.glob)):
        _check_characters(name, text)
    if args.regex:
        check_pattern(args.pattern, field="pattern")


def _check_characters(field: str, value: str | None) -> None:
    """Refuse a NUL or a lone surrogate: no text editguard decodes holds either (a file with a
    NUL is binary, not searched), ripgrep takes neither (a program's arguments end at a NUL,
    its globs are UTF-8), and the answer must not depend on the engine.

    Raises:
        InvalidRequest: ``value`` holds one.
    """
    if value is None:
        return
    at, what = value.find("\x00"), "a NUL"
    if at < 0:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            at, what = exc.start, "a lone surrogate"
    if at >= 0:
        raise InvalidRequest(
            f"the {field} holds {what} (U+{ord(value[at]):04X}) at character {at:,}, which "
            "grep cannot search for",
            data={"field": field, "position": at},
        )


def _starts(ctx: Context, folders: Folders, path: str | None) -> list[Resolved]:
    """Where to search: ``path`` resolved in the sandbox, or every root not inside another.

    Raises:
        EditError: OUTSIDE_ROOT or STALE_VERSION (a folder on the path became a link since the
            check), FILE_NOT_FOUND, NOT_A_FILE, FILE_TOO_LARGE, PERMISSION_DENIED.
    """
    if path is None:
        roots = ctx.sandbox.roots
        return [
            Resolved(r, r, r)
            for r in roots
            if not any(r != o and r.startswith(o.rstrip(os.sep) + os.sep) for o in roots)
            and ctx.sandbox.private.holding(r) is None
        ]
    where = ctx.sandbox.resolve(path)
    try:
        status = folders.stat(where.real)
    except FileNotFoundError:
        raise not_found(where.display) from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            again = changed(ctx.sandbox, where)
            if not isinstance(again, NotAFile):  # a link now, where the check saw none
                raise again from None
        raise os_error(exc, where.display, "search") from None
    mode = status.st_mode
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise NotAFile(f"{where.display} is neither a file nor a folder", path=where.display)
    if stat.S_ISREG(mode) and status.st_size > ctx.max_file_bytes:
        raise FileTooLarge(
            f"{where.display} is {status.st_size:,} bytes; the limit is {ctx.max_file_bytes:,}",
            path=where.display,
            data={"size": status.st_size, "limit": ctx.max_file_bytes},
            suggestions=["Search a smaller file, or read parts of this one with read_file."],
        )
    return [where]


def _binary_file(folders: Folders, starts: list[Resolved], max_bytes: int) -> bool:
    """Whether the search was of one file, and a binary one (read through ``folders``)."""
    if len(starts) != 1:
        return False
    try:
        fd = folders.open(starts[0].real, max_bytes)
    except OSError:  # a folder (or no longer a regular file, or too large: said otherwise)
        return False
    try:
        return b"\x00" in os.read(fd, BINARY_PROBE)
    except OSError:
        return False
    finally:
        os.close(fd)


TOOL = Tool(
    name="grep",
    title="Search in files",
    description=(
        "Returns matching lines by file (notebook by cell), numbered as read_file (copy text "
        "after '│'). No binary files."
    ),
    arguments=GrepArgs,
    result=GrepResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)

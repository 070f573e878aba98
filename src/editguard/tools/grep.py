"""``grep``: search file contents across the roots, with ripgrep (a pure-Python scan when it is
missing), and show the matching lines numbered as read_file shows them."""

from __future__ import annotations

import os
import stat
from typing import Literal

from pydantic import BaseModel, Field

from editguard.core.hits import Hits, render
from editguard.errors import InvalidRequest, NotAFile
from editguard.fs import ripgrep, scan
from editguard.fs.oserror import not_found, os_error
from editguard.fs.ripgrep import Case, Outcome, Query
from editguard.fs.sandbox import Resolved
from editguard.pipeline import Context
from editguard.tools._common import Args
from editguard.tools._tool import Tool

MAX_PATTERN = 10_000  # characters
MAX_RESULTS = 1000


class GrepArgs(Args):
    """Arguments of grep."""

    pattern: str = Field(min_length=1, max_length=MAX_PATTERN)
    path: str | None = Field(None, description="Folder or file; default: every root.")
    glob: str | None = Field(None, max_length=1000, description="e.g. *.py, src/**/*.ts, !*.md")
    regex: bool = Field(False, description="pattern is a regex (Rust syntax); else literal.")
    case: Case = Field("smart", description="smart: insensitive unless pattern has capitals.")
    context: int = Field(0, ge=0, le=10, description="Lines shown around each match.")
    max_results: int = Field(100, ge=1, le=MAX_RESULTS, description="Matching lines shown.")
    include_ignored: bool = Field(False, description="Also search hidden and gitignored files.")


class GrepResult(BaseModel):
    """Result of grep."""

    content: str
    matches: int = Field(description="Matching lines found, shown or not.")
    files: int = Field(description="Files with a match.")
    shown: int = Field(description="Matching lines shown.")
    truncated: bool = Field(description="Some matching lines are not shown.")
    engine: Literal["ripgrep", "python"]
    note: str | None = None


def run(ctx: Context, args: GrepArgs) -> GrepResult:
    """Search the files under ``path`` (or every root) for ``pattern``.

    Raises:
        EditError: INVALID_REQUEST (a line break in the pattern, a bad glob), INVALID_REGEX,
            OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE (a path that is neither file nor folder),
            PERMISSION_DENIED.
    """
    if "\n" in args.pattern or "\r" in args.pattern:
        raise InvalidRequest(
            "grep matches within one line: the pattern may not hold a line break",
            data={"field": "pattern"},
            suggestions=["Search for one line of the text (the most distinctive one)."],
        )
    starts = _starts(ctx, args.path)
    query = Query(
        pattern=args.pattern,
        regex=args.regex,
        case=args.case,
        glob=args.glob,
        include_ignored=args.include_ignored,
        paths=tuple(s.real for s in starts),
    )
    roots = ctx.sandbox.roots
    first = roots[0].rstrip(os.sep) + os.sep

    def display(real: str) -> str:
        if real.startswith(first):
            return real[len(first) :].replace(os.sep, "/")
        return real

    hits = Hits(args.max_results, args.context)
    engine: Literal["ripgrep", "python"] = "ripgrep"
    rg = ripgrep.find_rg()
    outcome: Outcome | None = None
    if rg is not None:
        try:
            outcome = ripgrep.search(rg, query, hits, display)
        except OSError:  # found but cannot run (removed, wrong platform): search in Python
            hits = Hits(args.max_results, args.context)
    if outcome is None:
        engine = "python"
        outcome = scan.search(ctx.sandbox, starts, query, hits, display, timeout=ripgrep.TIMEOUT)
    _confine(hits, roots)
    shown = render(hits)
    notes = []
    if outcome.stopped:
        notes.append(f"Stopped early ({outcome.stopped}): the counts are lower bounds.")
    if hits.skipped_binary and len(starts) == 1 and not os.path.isdir(starts[0].real):
        notes.append(f"{starts[0].display} is a binary file: not searched.")
    return GrepResult(
        content=shown.content,
        matches=hits.matches,
        files=hits.files,
        shown=shown.shown,
        truncated=shown.shown < hits.matches or outcome.stopped is not None,
        engine=engine,
        note=" ".join(notes) or None,
    )


def _starts(ctx: Context, path: str | None) -> list[Resolved]:
    """Where to search: ``path`` resolved in the sandbox, or every root not inside another."""
    if path is None:
        roots = ctx.sandbox.roots
        return [
            Resolved(r, r, r)
            for r in roots
            if not any(r != o and r.startswith(o.rstrip(os.sep) + os.sep) for o in roots)
        ]
    where = ctx.sandbox.resolve(path)
    try:
        mode = os.stat(where.real).st_mode
    except FileNotFoundError:
        raise not_found(where.display) from None
    except OSError as exc:
        raise os_error(exc, where.display, "search") from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise NotAFile(
            f"{where.display} is neither a file nor a folder", path=where.display
        )
    return [where]


def _confine(hits: Hits, roots: tuple[str, ...]) -> None:
    """Drop a file that resolves outside the roots now (the tree changed during the search,
    a folder swapped for a link): its lines are never shown."""
    inside = tuple(r.rstrip(os.sep) + os.sep for r in roots)
    for file in list(hits.kept):
        if not os.path.realpath(file.real).startswith(inside):
            hits.kept.remove(file)
            hits.matches -= file.matches + file.long_lines
            hits.files -= 1


TOOL = Tool(
    name="grep",
    title="Search file contents",
    description=(
        "Search file contents under the roots (ripgrep): matching lines grouped by file, as "
        "read_file shows them (`  12│text`; the prefix is not part of the file: copy the text "
        "after '│' into old_text). Literal unless regex; skips binary, hidden and gitignored "
        "files unless include_ignored. Returns content, matches, files, shown and truncated."
    ),
    arguments=GrepArgs,
    result=GrepResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)

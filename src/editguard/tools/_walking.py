"""What the tools that walk a folder share (list_directory, directory_tree, find_files): the
walk within a bound on the work and on the time, the globs' bounds, the arguments' help, and the
lines that say what was left out."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from editguard.errors import InvalidRequest
from editguard.fs.sandbox import Resolved
from editguard.fs.walk import VISIT_LIMIT, Entry, VisitLimit, walk
from editguard.transaction.context import Context

HIDDEN_HELP = "Also .gitignored and dot entries."

# Each pattern is bounded by the argument size limit; their number, by the schema.
Exclude = Annotated[
    list[str] | None,
    Field(None, max_length=100, description="Globs to leave out."),
]

# Read at each call, so that a test can lower it instead of making 200,000 files.
visit_limit = VISIT_LIMIT
# Seconds one listing call may walk (and match) before it answers with what it has, partial.
# Read at each call, so that a test can set it to 0 instead of waiting.
time_limit = 10.0
# A glob (find_files' pattern, an exclude): its characters and its wildcards ('*', '?', '[').
# Matching is linear in both (core/ignore.py), but a pattern no person writes is refused.
GLOB_CHARS = 1000
GLOB_WILDCARDS = 100


def check_glob(field: str, pattern: str) -> None:
    """Refuse a glob over the bounds, naming the bound.

    Raises:
        InvalidRequest: over :data:`GLOB_CHARS` characters or :data:`GLOB_WILDCARDS`
            wildcards (``data``: the field and the limit).
    """
    wildcards = sum(pattern.count(c) for c in "*?[")
    if len(pattern) > GLOB_CHARS:
        raise InvalidRequest(
            f"{field}: a glob of {len(pattern):,} characters; {GLOB_CHARS:,} at most",
            data={"field": field, "limit": GLOB_CHARS, "characters": len(pattern)},
        )
    if wildcards > GLOB_WILDCARDS:
        raise InvalidRequest(
            f"{field}: a glob with {wildcards:,} wildcards ('*', '?', '['); "
            f"{GLOB_WILDCARDS} at most",
            data={"field": field, "limit": GLOB_WILDCARDS, "wildcards": wildcards},
        )


@dataclass(frozen=True, slots=True)
class Walked:
    """What a walk kept.

    Attributes:
        where: the folder walked.
        entries: the entries kept, in walk order (depth first, by name).
        partial: the walk stopped at the visit limit or the time limit.
        skipped: the entries left out as .gitignored or hidden (a folder is not entered).
        out_of_time: the walk stopped at the time limit.
    """

    where: Resolved
    entries: list[Entry]
    partial: bool
    skipped: list[Entry]
    out_of_time: bool = False


def collect(
    ctx: Context,
    path: str,
    *,
    include_ignored: bool,
    exclude: list[str] | None = None,
    max_depth: int | None = None,
    keep: Callable[[Entry], bool] | None = None,
) -> Walked:
    """Walk ``path`` (hidden entries go with ignored ones) and keep what ``keep`` accepts.

    Raises:
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY, PERMISSION_DENIED,
            INVALID_REQUEST (an exclude glob over the bounds).
    """
    where = ctx.sandbox.resolve(path)
    entries: list[Entry] = []
    skipped: list[Entry] = []
    for glob in exclude or ():
        check_glob("exclude", glob)
    steps = walk(
        ctx.sandbox,
        where,
        include_ignored=include_ignored,
        include_hidden=include_ignored,
        exclude=exclude or (),
        max_depth=max_depth,
        max_visits=visit_limit,
        deadline=time.monotonic() + time_limit,
        skipped=skipped,
    )
    try:
        entries.extend(e for e in steps if keep is None or keep(e))
    except VisitLimit as stop:  # what was kept before it stays in entries
        return Walked(where, entries, True, skipped, out_of_time=stop.out_of_time)
    return Walked(where, entries, False, skipped)


def shown(ctx: Context, walked: Walked, entry: Entry) -> str:
    """The path to show for ``entry``: relative to the first root (as a model passes paths
    back), else absolute (in another root a relative path would name another file)."""
    return entry.display if walked.where.root == ctx.sandbox.roots[0] else entry.path


def more_line(count: int, hint: str) -> str:
    """The line that says how many entries were left out, and how to see them."""
    return f"… {count:,} more ({hint})"


def partial_line(walked: Walked) -> str:
    """The line that says the walk stopped at the visit limit or the time limit."""
    stop = f"{time_limit:g} s" if walked.out_of_time else f"looking at {visit_limit:,} entries"
    return f"… stopped after {stop}: results are partial (narrow the path or exclude folders)"


def skipped_line(count: int, what: str = "") -> str:
    """The line that says how many entries were left out as .gitignored or hidden."""
    return f"({count:,} .gitignored or hidden{what} not shown: include_ignored shows them)"


def printable(name: str) -> str:
    """``name`` as one line can show it: a control character (a newline in a file name) or an
    undecodable byte is written as its escape, as Python writes it."""
    if name.isprintable():
        return name
    return repr(name)[1:-1]

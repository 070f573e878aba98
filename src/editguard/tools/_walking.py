"""What the tools that walk a folder share (list_directory, directory_tree, find_files): the
walk within a bound on the work, the arguments' help, and the lines that say what was left out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from editguard.fs.sandbox import Resolved
from editguard.fs.walk import VISIT_LIMIT, Entry, VisitLimit, walk
from editguard.pipeline import Context

HIDDEN_HELP = "Also .gitignored and dot entries."

# Each pattern is bounded by the argument size limit; their number, by the schema.
Exclude = Annotated[
    list[str] | None,
    Field(None, max_length=100, description="Globs to leave out."),
]

# Read at each call, so that a test can lower it instead of making 200,000 files.
visit_limit = VISIT_LIMIT


@dataclass(frozen=True, slots=True)
class Walked:
    """What a walk kept.

    Attributes:
        where: the folder walked.
        entries: the entries kept, in walk order (depth first, by name).
        partial: the walk stopped at the visit limit.
    """

    where: Resolved
    entries: list[Entry]
    partial: bool


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
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY, PERMISSION_DENIED.
    """
    where = ctx.sandbox.resolve(path)
    entries: list[Entry] = []
    steps = walk(
        ctx.sandbox,
        where,
        include_ignored=include_ignored,
        include_hidden=include_ignored,
        exclude=exclude or (),
        max_depth=max_depth,
        max_visits=visit_limit,
    )
    try:
        entries.extend(e for e in steps if keep is None or keep(e))
    except VisitLimit:  # what was kept before it stays in entries
        return Walked(where, entries, partial=True)
    return Walked(where, entries, partial=False)


def shown(ctx: Context, walked: Walked, entry: Entry) -> str:
    """The path to show for ``entry``: relative to the first root (as a model passes paths
    back), else absolute (in another root a relative path would name another file)."""
    return entry.display if walked.where.root == ctx.sandbox.roots[0] else entry.path


def more_line(count: int, hint: str) -> str:
    """The line that says how many entries were left out, and how to see them."""
    return f"… {count:,} more ({hint})"


def partial_line() -> str:
    """The line that says the walk stopped at the visit limit."""
    return (
        f"… stopped after looking at {visit_limit:,} entries: results are partial "
        "(narrow the path or exclude folders)"
    )


def printable(name: str) -> str:
    """``name`` as one line can show it: a control character (a newline in a file name) or an
    undecodable byte is written as its escape, as Python writes it."""
    if name.isprintable():
        return name
    return repr(name)[1:-1]

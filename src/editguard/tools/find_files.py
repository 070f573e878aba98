"""``find_files``: the files whose path matches a glob, newest first or by name.

The glob follows .gitignore's rules, as ripgrep's ``-g`` does: without a ``/`` it matches a name
at any depth (``*.py``), with one it is anchored at ``path`` (``src/*.py``), ``**`` spans
folders. One syntax for ``pattern`` and ``exclude``, and the one a .gitignore already taught.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from editguard.core.ignore import compile_rules, is_ignored
from editguard.errors import InvalidRequest
from editguard.tools._common import Args
from editguard.tools._tool import Tool
from editguard.tools._walking import (
    HIDDEN_HELP,
    Exclude,
    check_glob,
    collect,
    more_line,
    partial_line,
    printable,
    shown,
)
from editguard.transaction.context import Context

MAX_RESULTS = 1000


class FindFilesArgs(Args):
    """Arguments of find_files."""

    # An empty pattern is refused by run(); a long one by the argument size limit.
    pattern: str = Field(description="'*.py', 'src/**/*.ts'")
    path: str = Field(".", description="Folder to search.")
    exclude: Exclude
    sort: Literal["mtime", "name"] = Field("mtime", description="name: walk order.")
    include_ignored: bool = Field(False, description=HIDDEN_HELP)
    max_results: int = Field(200, ge=1, le=MAX_RESULTS, description="Then '… N more'.")


class FindFilesResult(BaseModel):
    """Result of find_files."""

    path: str
    files: str = Field(
        description="A path a line (relative to the first root, else absolute); then "
        "'… N more' when over max_results."
    )
    found: int = Field(description="Files that match, shown or not.")
    more: int = Field(description="Matches not shown.")
    partial: bool = Field(description="The walk stopped at its limit of entries or of time.")
    skipped: int = Field(
        0, description="Matching files left out as .gitignored or hidden (include_ignored)."
    )


def run(ctx: Context, args: FindFilesArgs) -> FindFilesResult:
    """The regular files below ``path`` that match ``pattern``, sorted, up to max_results.

    Raises:
        EditError: INVALID_REQUEST (a pattern that is no glob, or one over the bounds of
            ``_walking.check_glob``), OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY,
            PERMISSION_DENIED.
    """
    check_glob("pattern", args.pattern)
    rules = compile_rules("", [args.pattern])
    if rules is None or args.pattern.startswith("!"):
        raise InvalidRequest(
            f"pattern {args.pattern!r} matches nothing: a glob such as '*.py' or 'src/**/*.ts' "
            "is needed ('#' starts a comment, '!' a negation: use exclude)",
            data={"field": "pattern"},
        )
    where = ctx.sandbox.resolve(args.path)
    skip = 0 if where.real == where.root else len(where.display) + 1

    def matches(entry_display: str) -> bool:
        return is_ignored([rules], entry_display[skip:], False)

    walked = collect(
        ctx,
        args.path,
        include_ignored=args.include_ignored,
        exclude=args.exclude,
        keep=lambda e: e.kind == "file" and matches(e.display),
    )
    found = walked.entries  # by name (walk order)
    if args.sort == "mtime":
        found = sorted(found, key=lambda e: e.mtime_ns or 0, reverse=True)
    lines = [printable(shown(ctx, walked, e)) for e in found[: args.max_results]]
    more = max(0, len(found) - args.max_results)
    if more:
        lines.append(more_line(more, "raise max_results, or narrow the pattern or path"))
    if walked.partial:
        lines.append(partial_line(walked))
    # What the rules left out: the matching files they hid; when nothing was found, the
    # folders they kept the walk out of (what those hold is not known without walking them,
    # which is what leaving them out saves).
    skipped = sum(1 for e in walked.skipped if e.kind == "file" and matches(e.display))
    folders = sum(1 for e in walked.skipped if e.kind == "dir") if not found else 0
    if skipped:
        lines.append(
            f"({skipped:,} matching file{'s' * (skipped != 1)} left out as .gitignored or "
            "hidden: include_ignored includes them)"
        )
    elif folders:
        lines.append(
            f"({folders:,} .gitignored or hidden folder{'s' * (folders != 1)} not searched: "
            "include_ignored searches them)"
        )
    return FindFilesResult(
        path=walked.where.real,
        files="\n".join(lines),
        found=len(found),
        more=more,
        partial=walked.partial,
        skipped=skipped,
    )


TOOL = Tool(
    name="find_files",
    title="Find files by glob",
    description=(
        "Files whose path below `path` matches a glob (.gitignore syntax: without '/', any "
        "depth), newest first. Returns files (a path a line), found."
    ),
    arguments=FindFilesArgs,
    result=FindFilesResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)

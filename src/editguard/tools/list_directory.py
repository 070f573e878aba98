"""``list_directory``: one folder's entries, a line each, with their type (and size)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from editguard.fs.walk import Entry
from editguard.tools._common import PATH_HELP, Args
from editguard.tools._tool import Tool
from editguard.tools._walking import (
    HIDDEN_HELP,
    collect,
    more_line,
    partial_line,
    printable,
    skipped_line,
)
from editguard.transaction.context import Context

MAX_ENTRIES = 1000
_TAGS = {"dir": "[DIR]", "file": "[FILE]", "symlink": "[LINK]", "other": "[OTHER]"}


class ListDirectoryArgs(Args):
    """Arguments of list_directory."""

    path: str = Field(description=PATH_HELP)
    sizes: bool = Field(False, description="Show file sizes.")
    sort: Literal["name", "size", "mtime"] = Field(
        "name", description="size: largest first; mtime: newest first."
    )
    include_ignored: bool = Field(False, description=HIDDEN_HELP)


class ListDirectoryResult(BaseModel):
    """Result of list_directory."""

    path: str
    entries: str = Field(
        description="A line per entry: '[DIR] name', '[FILE] name' (with sizes: "
        "'[FILE] name  1,204 B'), '[LINK] name' (a symbolic link, not followed) or "
        "'[OTHER] name'; then '… N more' when over 1,000."
    )
    dirs: int
    files: int
    others: int = Field(description="Links, sockets, devices.")
    total_bytes: int | None = Field(None, description="With sizes: the files' sizes added up.")
    more: int = Field(description="Entries not shown (over the cap).")
    skipped: int = Field(description=".gitignored or hidden entries left out.")
    partial: bool = Field(description="The walk stopped at its limit of entries or of time.")


def _line(entry: Entry, sizes: bool) -> str:
    name = printable(entry.display.rpartition("/")[2])
    if sizes and entry.size is not None:
        return f"{_TAGS[entry.kind]} {name}  {entry.size:,} B"
    return f"{_TAGS[entry.kind]} {name}"


def run(ctx: Context, args: ListDirectoryArgs) -> ListDirectoryResult:
    """List the folder's entries (one level), sorted, up to MAX_ENTRIES.

    Raises:
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY, PERMISSION_DENIED.
    """
    walked = collect(ctx, args.path, include_ignored=args.include_ignored, max_depth=1)
    entries = walked.entries  # by name
    if args.sort == "size":
        entries = sorted(entries, key=lambda e: -1 if e.size is None else e.size, reverse=True)
    elif args.sort == "mtime":
        entries = sorted(entries, key=lambda e: e.mtime_ns or 0, reverse=True)
    lines = [_line(e, args.sizes) for e in entries[:MAX_ENTRIES]]
    more = max(0, len(entries) - MAX_ENTRIES)
    if more:
        lines.append(more_line(more, "sort by size or mtime to see others first"))
    if walked.partial:
        lines.append(partial_line(walked))
    # A model that sees an empty folder learns that .env or build/ are there, hidden, rather
    # than absent.
    skipped = len(walked.skipped)
    if skipped:
        lines.append(skipped_line(skipped))
    kinds = [e.kind for e in entries]
    return ListDirectoryResult(
        path=walked.where.real,
        entries="\n".join(lines),
        dirs=kinds.count("dir"),
        files=kinds.count("file"),
        others=len(kinds) - kinds.count("dir") - kinds.count("file"),
        total_bytes=sum(e.size or 0 for e in entries) if args.sizes else None,
        more=more,
        skipped=skipped,
        partial=walked.partial,
    )


TOOL = Tool(
    name="list_directory",
    title="List a folder",
    description=(
        "List one folder's entries, a line each: `[DIR] src`, `[FILE] a.py` (with sizes: "
        "`[FILE] a.py  1,204 B`), `[LINK] x` (a symbolic link, never followed). Shows 1,000, "
        "then '… N more'. "
        "Returns entries, dirs, files, others, more."
    ),
    arguments=ListDirectoryArgs,
    result=ListDirectoryResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)

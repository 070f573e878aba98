"""``directory_tree``: a folder's tree, as indented text.

Indented text, not nested JSON: a model reads indentation as well as brackets, and each entry
costs its name plus two spaces a level, where JSON would add ``{"name":..,"type":..,
"children":[..]}`` around every one (about three times the bytes on a typical source tree).

Over the cap, the shallow levels are kept whole and the deepest shown level is cut: the shape of
the tree matters more than the contents of its first folder. Each entry left out is counted once,
for the nearest folder that is shown: on a '… N more' line under it, or after its name
(``sub/  … 12 more``) when none of its entries is shown.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from editguard.fs.walk import Entry
from editguard.tools._common import PATH_HELP, Args
from editguard.tools._tool import Tool
from editguard.tools._walking import (
    HIDDEN_HELP,
    Exclude,
    collect,
    more_line,
    partial_line,
    printable,
    skipped_line,
)
from editguard.transaction.context import Context

MAX_ENTRIES = 1000
MAX_DEPTH = 10
_SUFFIX = {"dir": "/", "file": "", "symlink": "@", "other": ""}


class DirectoryTreeArgs(Args):
    """Arguments of directory_tree."""

    path: str = Field(description=PATH_HELP)
    depth: int = Field(3, ge=1, le=MAX_DEPTH, description="Levels shown.")
    exclude: Exclude
    include_ignored: bool = Field(False, description=HIDDEN_HELP)


class DirectoryTreeResult(BaseModel):
    """Result of directory_tree."""

    path: str
    tree: str = Field(
        description="An entry a line, indented two spaces a level; folders end in '/', "
        "symbolic links (never followed) in '@'; '… N more' where entries were left out."
    )
    dirs: int
    files: int
    more: int = Field(description="Entries left out (over the cap of 1,000).")
    partial: bool = Field(description="The walk stopped at its limit of entries or of time.")
    skipped: int = Field(0, description=".gitignored or hidden entries left out.")


def _parent(entry: Entry) -> str:
    return entry.display.rpartition("/")[0]


def _chosen(entries: list[Entry]) -> set[str]:
    """The displays of the entries to show: whole levels from the top while they fit, then the
    first entries (in walk order) of the next level."""
    room = MAX_ENTRIES
    per_level = Counter(e.depth for e in entries)
    full = 0
    while per_level.get(full + 1, 0) and per_level[full + 1] <= room:
        full += 1
        room -= per_level[full]
    shown = {e.display for e in entries if e.depth <= full}
    shown.update([e.display for e in entries if e.depth == full + 1][:room])
    return shown


def render(entries: list[Entry], top: str) -> tuple[str, int]:
    """The tree of ``entries`` (a walk's, depth first) below the folder ``top`` ('' for a root),
    and how many entries were left out."""
    shown = _chosen(entries)
    children: dict[str, list[Entry]] = {}
    left_out: Counter[str] = Counter()
    for entry in entries:
        if entry.display in shown:
            children.setdefault(_parent(entry), []).append(entry)
            continue
        folder = _parent(entry)
        while folder != top and folder not in shown:
            folder = folder.rpartition("/")[0]
        left_out[folder] += 1
    lines: list[str] = []

    def draw(folder: str, indent: str) -> None:
        for entry in children.get(folder, ()):
            line = indent + printable(entry.display.rpartition("/")[2]) + _SUFFIX[entry.kind]
            if entry.kind == "dir" and entry.display not in children and left_out[entry.display]:
                # Nothing of it shown: its count on its own line, not a line of its own (at the
                # cut level that would double the lines).
                lines.append(f"{line}  … {left_out[entry.display]:,} more")
                continue
            lines.append(line)
            if entry.kind == "dir":
                draw(entry.display, indent + "  ")
        if left_out[folder]:
            lines.append(
                indent + more_line(left_out[folder], "lower depth, exclude, or a subfolder")
            )

    draw(top, "")
    return "\n".join(lines), sum(left_out.values())


def run(ctx: Context, args: DirectoryTreeArgs) -> DirectoryTreeResult:
    """The tree below ``path``, ``depth`` levels deep, up to MAX_ENTRIES entries.

    Raises:
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY, PERMISSION_DENIED.
    """
    walked = collect(
        ctx,
        args.path,
        include_ignored=args.include_ignored,
        exclude=args.exclude,
        max_depth=args.depth,
    )
    where = walked.where
    tree, more = render(walked.entries, "" if where.real == where.root else where.display)
    notes = [partial_line(walked)] if walked.partial else []
    if walked.skipped:
        notes.append(skipped_line(len(walked.skipped)))
    tree = "\n".join([tree, *notes] if tree else notes)
    kinds = Counter(e.kind for e in walked.entries)
    return DirectoryTreeResult(
        path=where.real,
        tree=tree,
        dirs=kinds["dir"],
        files=kinds["file"],
        more=more,
        partial=walked.partial,
        skipped=len(walked.skipped),
    )


TOOL = Tool(
    name="directory_tree",
    title="Show a folder's tree",
    description=(
        "A folder's tree as indented text, an entry a line, two spaces a level; folders end in "
        "'/', symbolic links (never followed) in '@'. Over 1,000 entries, the "
        "deepest level is cut, with '… N more' lines. Returns tree, dirs, files, more."
    ),
    arguments=DirectoryTreeArgs,
    result=DirectoryTreeResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)

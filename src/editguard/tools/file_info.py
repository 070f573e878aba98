"""``file_info``: what a path is (type, size, times, permissions) and, for a text file, how it
is written (encoding, BOM, line endings, lines) with its version."""

from __future__ import annotations

import datetime
import os
import stat
from typing import Literal

from pydantic import BaseModel, Field

from editguard.errors import BinaryFile, EditError
from editguard.fs.birth import birth_time
from editguard.fs.location import locate
from editguard.fs.sandbox import Resolved, names_a_link
from editguard.tools._common import PATH_HELP, Args, LineEnding
from editguard.tools._tool import Tool
from editguard.transaction.context import Context
from editguard.transaction.read import read

Kind = Literal["file", "dir", "symlink", "other"]


class FileInfoArgs(Args):
    """Arguments of file_info."""

    path: str = Field(description=PATH_HELP)


class FileInfoResult(BaseModel):
    """Result of file_info; the text fields are set for a text file only."""

    path: str
    type: Kind
    target: str | None = Field(None, description="A symbolic link's target (described here).")
    size: int
    created: str | None = Field(description="UTC, ISO 8601; none where the system does not say.")
    modified: str
    accessed: str
    permissions: str = Field(description="Octal, as chmod takes it.")
    mode: str = Field(description="As ls -l shows it.")
    binary: bool | None = None
    encoding: str | None = None
    bom: bool | None = None
    line_ending: LineEnding | None = None
    line_count: int | None = None
    ends_with_newline: bool | None = None
    version: str | None = Field(None, description="As read_file gives it (expected_version).")
    note: str | None = Field(None, description="Why the text fields are missing.")


def run(ctx: Context, args: FileInfoArgs) -> FileInfoResult:
    """Describe the path; reads a regular file's content only up to the size limit.

    Raises:
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, PERMISSION_DENIED.
    """
    where = ctx.sandbox.resolve(args.path)
    st, born = _stat(ctx, where)
    link = where.real != where.root and names_a_link(ctx.sandbox, where)
    kind: Kind = (
        "symlink"
        if link
        else "dir"
        if stat.S_ISDIR(st.st_mode)
        else "file"
        if stat.S_ISREG(st.st_mode)
        else "other"
    )
    info = FileInfoResult(
        path=where.requested if link else where.display,
        type=kind,
        target=where.display if link else None,
        size=st.st_size,
        created=_when(born),
        modified=_when(st.st_mtime) or "",
        accessed=_when(st.st_atime) or "",
        permissions=f"{stat.S_IMODE(st.st_mode):o}",
        mode=stat.filemode(st.st_mode),
    )
    if stat.S_ISREG(st.st_mode):
        _text_facts(ctx, where, st.st_size, info)
    return info


def _stat(ctx: Context, where: Resolved) -> tuple[os.stat_result, float | None]:
    """The path's status, following no link the sandbox did not resolve, and its birth time
    (None where the system does not say).

    Raises:
        EditError: FILE_NOT_FOUND, PERMISSION_DENIED, OUTSIDE_ROOT or STALE_VERSION (a folder
            of the path swapped for a link).
    """
    if where.real == where.root:
        st = os.stat(where.root)
        return st, birth_time(st, where.root)
    with locate(ctx.sandbox, where) as location:
        try:
            st = os.lstat(location.name, dir_fd=location.folder)
        except FileNotFoundError:
            from editguard.fs.oserror import not_found  # noqa: PLC0415 - on failure only

            raise not_found(where.display) from None
        if stat.S_ISLNK(st.st_mode):  # swapped in since the sandbox resolved the path
            raise location.changed()
        return st, birth_time(st, location.name, location.folder)


def _text_facts(ctx: Context, where: Resolved, size: int, info: FileInfoResult) -> None:
    """Fill in the text fields, through the same reading as read_file (so the same version)."""
    if size > ctx.max_file_bytes:
        info.note = (
            f"not read: {size:,} bytes is over the size limit of {ctx.max_file_bytes:,} bytes"
        )
        return
    try:
        _, doc, version = read(ctx, where.real)
    except BinaryFile:
        info.binary = True
        return
    except EditError as exc:  # changed since the stat, or unreadable
        info.note = f"not read: {exc.code}: {exc.message}"
        return
    info.binary = False
    info.encoding = doc.encoding
    info.bom = bool(doc.bom)
    info.line_ending = doc.eol_style
    info.line_count = doc.line_count
    info.ends_with_newline = doc.ends_with_newline
    info.version = version


def _when(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    when = datetime.datetime.fromtimestamp(timestamp, datetime.UTC)
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


TOOL = Tool(
    name="file_info",
    title="Describe a file or folder",
    description=(
        "Describe a path without reading it out. Returns type (file, dir, symlink: then "
        "target), size, created/modified/accessed (UTC), permissions (octal) and mode "
        "(-rw-r--r--); for a text file also encoding, bom, line_ending, line_count, "
        "ends_with_newline and version (as read_file's, for expected_version); binary: true "
        "otherwise; note: why a file was not read (over the size limit)."
    ),
    arguments=FileInfoArgs,
    result=FileInfoResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)

"""``read_file``: a text file as numbered lines, with its version."""

from __future__ import annotations

from pydantic import BaseModel, Field

from editguard.core.listing import listing
from editguard.errors import InvalidRequest
from editguard.pipeline import Context, read
from editguard.tools._common import PATH_HELP, Args, LineEnding
from editguard.tools._tool import Tool


class ReadFileArgs(Args):
    """Arguments of read_file."""

    path: str = Field(description=PATH_HELP)
    start_line: int | None = Field(None, ge=1, description="First line (1-based).")
    end_line: int | None = Field(None, ge=1, description="Last line (inclusive).")


class ReadFileResult(BaseModel):
    """Result of read_file."""

    path: str
    content: str = Field(
        description=(
            "The lines, each prefixed by its number and '│'. The prefix is not part of the "
            "file: never copy it into old_text."
        )
    )
    start_line: int
    end_line: int
    total_lines: int
    truncated: bool = Field(description="Whether lines after end_line exist and were not shown.")
    next_start_line: int | None = Field(description="Where to continue reading, if truncated.")
    encoding: str
    bom: bool
    line_ending: LineEnding
    ends_with_newline: bool
    version: str = Field(description="Pass as expected_version to edits, to catch stale reads.")


def run(ctx: Context, args: ReadFileArgs) -> ReadFileResult:
    """Read the lines asked for (up to ``ctx.read_lines`` when no end is given).

    Raises:
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE, PERMISSION_DENIED, FILE_TOO_LARGE,
            BINARY_FILE, INVALID_REQUEST (a bad line range).
    """
    where, doc, version = read(ctx, args.path, warm=True)
    total = doc.line_count
    first = args.start_line or 1
    end_line = args.end_line
    if end_line is not None and end_line < first:
        raise InvalidRequest(
            f"end_line {end_line} is before start_line {first}",
            path=where.display,
            data={"field": "end_line"},
        )
    if first > max(total, 1):
        raise InvalidRequest(
            f"start_line {first} is past the end of {where.display}, which has {total} line(s)",
            path=where.display,
            data={"field": "start_line", "total_lines": total},
        )
    last = min(total, end_line if end_line is not None else first + ctx.read_lines - 1)
    lines = doc.lines(first, last)
    truncated = last < total and end_line is None
    return ReadFileResult(
        path=where.real,
        content=listing(lines, first) if lines else "",
        start_line=first,
        end_line=last,
        total_lines=total,
        truncated=truncated,
        next_start_line=last + 1 if truncated else None,
        encoding=doc.encoding,
        bom=bool(doc.bom),
        line_ending=doc.eol_style,
        ends_with_newline=doc.ends_with_newline,
        version=version,
    )


TOOL = Tool(
    name="read_file",
    title="Read a file with line numbers",
    description=(
        "Read a text file as numbered lines, like `  12│    return x`: the 'N│' prefix is not "
        "part of the file, never copy it into old_text. Shows 2000 lines unless start_line/"
        "end_line say otherwise. Returns content, total_lines, truncated and next_start_line, "
        "encoding, line_ending and version: pass it as expected_version to an edit, which then "
        "fails (STALE_VERSION) instead of changing a file that changed since."
    ),
    arguments=ReadFileArgs,
    result=ReadFileResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)

"""``write_file``: create a file, or replace all of it, atomically."""

from __future__ import annotations

from pydantic import Field

from editguard.core.formats import Compiled
from editguard.core.formats.whole_text import compile_whole_text, line_ending
from editguard.tools._common import (
    ALLOW_MARKERS_HELP,
    FORMAT_HELP,
    MODE_HELP,
    PATH_HELP,
    VERSION_HELP,
    Args,
    Checked,
    LineEnding,
    Validation,
    outcome_fields,
)
from editguard.tools._tool import Tool
from editguard.transaction import CellCall, Transaction
from editguard.transaction.build import Change, Mode


class WriteFileArgs(Args):
    """Arguments of write_file."""

    path: str = Field(description=PATH_HELP)
    content: str = Field(description="The whole new content (\\n becomes CRLF in a CRLF file).")
    expected_version: str | None = Field(None, description=VERSION_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    format: bool | None = Field(None, description=FORMAT_HELP)
    allow_markers: bool = Field(False, description=ALLOW_MARKERS_HELP)


class WriteFileResult(Checked):
    """Result of write_file."""

    path: str
    created: bool
    version: str
    previous_version: str | None
    diff: str
    encoding: str
    line_ending: LineEnding
    written: bool
    mode: Mode
    validation: Validation


def run(txn: Transaction, args: WriteFileArgs, cell: CellCall | None = None) -> WriteFileResult:
    """Write ``content`` as the whole file (``cell``: how a notebook is written, where a front
    end decides it: ``AS_TEXT`` writes its JSON as plain text, unchecked as a notebook).

    Raises:
        EditError: OUTSIDE_ROOT, STALE_VERSION, ENCODING_ERROR, NOT_A_FILE, BINARY_FILE,
            PERMISSION_DENIED, VALIDATION_FAILED, WRITE_FAILED.
    """
    out = txn.run_edit(
        args.path,
        lambda doc: Change.of(compile_whole_text(doc, args.content)),
        mode=args.mode,
        expected_version=args.expected_version,
        create=True,
        cell=cell,
    )
    return WriteFileResult(
        **outcome_fields(out, args.mode),
        created=out.created,
        diff=out.diff(),
        encoding=out.before.encoding,
        line_ending=line_ending(out.before, Compiled(out.change.plan)),
    )


TOOL = Tool(
    name="write_file",
    title="Create or overwrite a whole file",
    description=(
        "Create a file (and its folders), or replace all of an existing one, atomically; "
        "overwriting keeps its encoding, BOM, permissions and line endings. To change part of "
        "a file, edit_file sends less and cannot drop lines. Returns created, the diff and the "
        "version."
    ),
    arguments=WriteFileArgs,
    result=WriteFileResult,
    run=run,
    idempotent=True,
)

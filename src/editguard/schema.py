"""The shapes of every tool's arguments and results (pydantic), shared by the Python API, the CLI
and the MCP server. Field descriptions are written for the model that fills them in."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

LineEnding = Literal["LF", "CRLF", "CR", "mixed", "none"]

_VERSION_HELP = (
    "Optional. The `version` that read_file (or your last edit) returned. If the file has "
    "changed since, the call fails with STALE_VERSION and writes nothing."
)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class EditOperation(_Args):
    """One exact search/replace."""

    old_text: str = Field(
        validation_alias=AliasChoices("old_text", "old_string", "old_str", "oldText"),
        description=(
            "The exact text to replace, copied from the file character for character "
            "(indentation, quotes and line breaks included; without read_file's line-number "
            "prefix). Must not be empty. Write line breaks as \\n: they match CRLF files too."
        ),
    )
    new_text: str = Field(
        validation_alias=AliasChoices("new_text", "new_string", "new_str", "newText"),
        description="The replacement text. Empty deletes old_text. Line breaks follow the file.",
    )
    occurrences: int = Field(
        1,
        ge=1,
        description=(
            "How many times old_text occurs in the file at this point (after the earlier edits "
            "of this call). The edit fails with WRONG_COUNT unless the count is exactly this; "
            "all of them are replaced."
        ),
    )


class EditFileArgs(_Args):
    """Arguments of edit_file."""

    path: str = Field(description="File to edit: relative to the workspace root, or absolute.")
    edits: list[EditOperation] = Field(
        description=(
            "Edits applied in order: each sees the result of the ones before it. All succeed "
            "or nothing is written."
        ),
    )
    dry_run: bool = Field(
        False, description="Check every edit and return the diff without writing anything."
    )
    expected_version: str | None = Field(None, description=_VERSION_HELP)

    @field_validator("edits", mode="before")
    @classmethod
    def _edits_from_json_string(cls, value: Any) -> Any:
        # Several MCP clients send array arguments as a JSON string.
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                return value
        return value


class ReadFileArgs(_Args):
    """Arguments of read_file."""

    path: str = Field(description="File to read: relative to the workspace root, or absolute.")
    start_line: int | None = Field(None, ge=1, description="First line to show (1-based).")
    end_line: int | None = Field(
        None, ge=1, description="Last line to show (inclusive). Default: up to the read limit."
    )


class WriteFileArgs(_Args):
    """Arguments of write_file."""

    path: str = Field(
        description="File to create or overwrite; missing parent folders are created."
    )
    content: str = Field(
        description=(
            "The complete new content. When overwriting, the file keeps its encoding, "
            "byte-order mark and line-ending style (\\n becomes CRLF in a CRLF file)."
        )
    )
    expected_version: str | None = Field(None, description=_VERSION_HELP)


class AppliedEdit(BaseModel):
    """What one edit did."""

    index: int = Field(description="0-based index of the edit in the request.")
    occurrences_replaced: int
    lines: list[int] = Field(
        description="1-based lines of the new file where each replacement starts."
    )


class EditFileResult(BaseModel):
    """Result of edit_file."""

    path: str = Field(description="The file's real path (a symlink's target).")
    diff: str = Field(description="Unified diff of the change, with line numbers in hunk headers.")
    edits_applied: list[AppliedEdit]
    total_replacements: int
    version: str = Field(description="Version of the file after this call; pass it to the next.")
    previous_version: str
    dry_run: bool
    would_modify: bool = Field(description="Whether the edits change the file's content.")
    written: bool = Field(description="Whether the file was written.")


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


class WriteFileResult(BaseModel):
    """Result of write_file."""

    path: str
    created: bool
    version: str
    previous_version: str | None
    diff: str
    encoding: str
    line_ending: LineEnding

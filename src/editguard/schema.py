"""The shapes of every tool's arguments and results (pydantic), shared by the Python API, the CLI
and the MCP server. Field descriptions are written for the model that fills them in."""

from __future__ import annotations

import json
from typing import Any, Literal, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from editguard.errors import InvalidRequest

LineEnding = Literal["LF", "CRLF", "CR", "mixed", "none"]
Mode = Literal["strict", "interactive", "verify_only"]

_MODE_HELP = (
    "What to do when the edit would introduce syntax errors (or blocking linter findings): "
    "'strict' (default) refuses with VALIDATION_FAILED and writes nothing; 'interactive' writes "
    "and returns the findings as warnings; 'verify_only' writes nothing and reports them."
)

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
    mode: Mode = Field("strict", description=_MODE_HELP)

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
    mode: Mode = Field("strict", description=_MODE_HELP)


class FindingModel(BaseModel):
    """A problem the edit would introduce."""

    source: str = Field(description="syntax (tree-sitter), python, json, toml, yaml, or a linter")
    line: int
    column: int
    message: str
    line_text: str = Field(description="The new file's text of that line.")
    blocking: bool = Field(description="Whether it refuses the edit in strict mode.")
    code: str | None = None


class Validation(BaseModel):
    """What validation of the new text found (only problems the edit introduced)."""

    passed: bool = Field(description="No blocking finding.")
    findings: list[FindingModel]
    notes: list[str] = Field(description="Checks that were skipped, and why.")


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
    mode: Mode
    validation: Validation


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
    written: bool
    mode: Mode
    validation: Validation


# -- edit_lines (seed 002) -----------------------------------------------------------------

_LINE_TYPES = {
    "insert": "insert",
    "delete": "delete",
    "replace": "replace",
    "replacesection": "replace_section",
}


class LineEditOp(_Args):
    """One line edit; line numbers refer to the file as read."""

    line_number: int = Field(
        validation_alias=AliasChoices("line_number", "LineNumber", "lineNumber", "line"),
        description="1-based line the edit applies to (Insert: the line to insert before).",
    )
    type: str = Field(
        validation_alias=AliasChoices("type", "Type"),
        description=(
            "Insert (text before line_number; past the last line appends), Delete (line_number "
            "through end_line), Replace (the whole line, or only old_text inside it), "
            "ReplaceSection (line_number through end_line become text). Any case; "
            "replace_section also works."
        ),
    )
    text: str | None = Field(
        None,
        validation_alias=AliasChoices("text", "Text"),
        description=(
            "The new line(s); \\n between lines. Empty: ReplaceSection deletes the lines, "
            "Replace leaves an empty line."
        ),
    )
    old_text: str | None = Field(
        None,
        validation_alias=AliasChoices("old_text", "OldText", "oldText"),
        description="Replace only: the exact text to replace inside line line_number.",
    )
    end_line: int | None = Field(
        None,
        validation_alias=AliasChoices("end_line", "EndLine", "endLine"),
        description="Last line (inclusive) for Delete (default: line_number) and ReplaceSection.",
    )

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        key = value.replace("_", "").replace("-", "").replace(" ", "").lower()
        if key not in _LINE_TYPES:
            raise ValueError(
                f"unknown type {value!r}; use Insert, Delete, Replace or ReplaceSection"
            )
        return _LINE_TYPES[key]


class EditLinesArgs(_Args):
    """Arguments of edit_lines."""

    path: str = Field(description="File to edit: relative to the workspace root, or absolute.")
    edits: list[LineEditOp] = Field(
        validation_alias=AliasChoices("edits", "editsJson", "edits_json"),
        description=(
            "Line edits. Every line number refers to the file as you read it (edits do not "
            "shift each other); edits must not overlap; all succeed or nothing is written."
        ),
    )
    dry_run: bool = Field(
        False,
        validation_alias=AliasChoices("dry_run", "dryRun"),
        description="Check the edits and return the diff without writing anything.",
    )
    expected_version: str | None = Field(
        None,
        description=(
            "The version read_file returned. Strongly recommended: line numbers from a stale "
            "read hit the wrong lines; a changed file gives STALE_VERSION instead."
        ),
    )
    mode: Mode = Field("strict", description=_MODE_HELP)

    @field_validator("edits", mode="before")
    @classmethod
    def _edits_from_json_string(cls, value: Any) -> Any:
        return EditFileArgs._edits_from_json_string(value)


# -- safe_edit (seed 000) ------------------------------------------------------------------


class LineEdit(_Args):
    """Replace lines start_line..end_line (inclusive, as read) with new_content."""

    start_line: int = Field(ge=1, description="1-based first line to replace.")
    end_line: int = Field(ge=1, description="1-based last line to replace (inclusive).")
    new_content: str = Field(
        description="The new lines (\\n between them). Empty deletes the range."
    )

    @model_validator(mode="after")
    def _range(self) -> LineEdit:
        if self.end_line < self.start_line:
            raise ValueError(
                f"end_line ({self.end_line}) must be >= start_line ({self.start_line})"
            )
        return self


class SearchReplaceOp(_Args):
    """A literal or regular-expression replacement over the whole file."""

    search: str = Field(description="Literal text, or a regular expression if regex is true.")
    replace: str = Field(
        description="Replacement; with regex, \\1 and \\g<name> refer to captured groups."
    )
    regex: bool = Field(False, description="Treat search as a regular expression.")
    count: int | None = Field(
        None,
        json_schema_extra={"minimum": 0},
        description="Replace at most this many (null or 0: all of them).",
    )
    flags: int | str = Field(
        0,
        description=(
            "Regex flags: an int (Python re values) or names such as 'IGNORECASE|MULTILINE'."
        ),
    )

    @field_validator("count")
    @classmethod
    def _count_not_negative(cls, value: int | None) -> int | None:
        if value is not None and value < 0:
            raise ValueError("count must be >= 0")  # the seed's message
        return value


class SafeEditArgs(_Args):
    """Arguments of safe_edit: exactly one of content, line_edits, search_replace."""

    path: str = Field(description="File to edit (content may also create it).")
    mode: Mode = Field("strict", description=_MODE_HELP)
    show_diff: bool = Field(True, description="Return the unified diff of the change.")
    content: str | None = Field(None, description="The whole new content of the file.")
    line_edits: list[LineEdit] | None = Field(
        None, description="Line-range replacements; line numbers as read; no overlaps."
    )
    search_replace: SearchReplaceOp | None = Field(
        None, description="One literal or regex replacement over the whole file."
    )
    expected_version: str | None = Field(None, description=_VERSION_HELP)

    @model_validator(mode="after")
    def _exactly_one(self) -> SafeEditArgs:
        chosen = [m for m in (self.content, self.line_edits, self.search_replace) if m is not None]
        if not chosen:
            raise ValueError(
                "At least one edit mode must be specified (content, line_edits, or search_replace)"
            )
        if len(chosen) > 1:
            raise ValueError("Only one edit mode can be specified at a time")
        return self


class SafeEditResult(BaseModel):
    """Result of safe_edit."""

    path: str
    edit_mode: Literal["content", "line_edits", "search_replace"]
    mode: Mode
    diff: str | None = Field(description="Unified diff (null when show_diff is false).")
    replacements: int = Field(description="search_replace: how many replacements were made.")
    created: bool
    would_modify: bool
    written: bool
    version: str | None = Field(description="Version of the file after this call.")
    previous_version: str | None
    validation: Validation
    warnings: list[str] = Field(description="E.g. a pattern not found in interactive mode.")


# -- symbols (seeds 003 and 004) -----------------------------------------------------------

_RANGE_HELP = (
    "A symbol's range is whole lines: the definition plus its decorators, attributes or "
    "annotations, an export keyword or template header, and the doc comments directly above it."
)


class ChunkModel(_Args):
    """One change inside the symbol, located by its context lines."""

    context_before: str | list[str] = Field(
        description="Line(s) right before the change, copied from the file ('' = none)."
    )
    old_lines: list[str] = Field(description="The lines to replace ([] for an insertion).")
    new_lines: list[str] = Field(description="The lines to put there ([] for a deletion).")
    context_after: str | list[str] = Field(
        description="Line(s) right after the change; '' means the change reaches the end of "
        "the symbol."
    )


class EditSymbolArgs(_Args):
    """Arguments of edit_symbol: the symbol, and exactly one action."""

    path: str = Field(description="File that holds the symbol.")
    symbol: str | None = Field(
        None,
        description=(
            "Name path: 'Class/method' ('.' also separates; a leading '/' anchors at the top "
            "level; 'name[1]' picks the second of several matches). Or give line and column."
        ),
    )
    line: int | None = Field(None, ge=1, description="A line inside the definition (1-based).")
    column: int | None = Field(None, ge=1, description="A column on that line (1-based).")
    chunks: list[ChunkModel] | None = Field(
        None,
        description="Context chunks applied inside the symbol; each must fit exactly one place.",
    )
    new_body: str | None = Field(
        None,
        description="The symbol's whole new text, first line (and decorators) included, "
        "written exactly as given, indentation too. " + _RANGE_HELP,
    )
    insert_before: str | None = Field(
        None, description="Whole lines to insert before the symbol's range, exactly as given."
    )
    insert_after: str | None = Field(
        None, description="Whole lines to insert after the symbol's range, exactly as given."
    )
    expected_version: str | None = Field(None, description=_VERSION_HELP)
    mode: Mode = Field("strict", description=_MODE_HELP)

    @model_validator(mode="after")
    def _one_action(self) -> EditSymbolArgs:
        actions = [
            a
            for a in (self.chunks, self.new_body, self.insert_before, self.insert_after)
            if a is not None
        ]
        if len(actions) != 1:
            raise ValueError("give exactly one of chunks, new_body, insert_before, insert_after")
        if not self.symbol and self.line is None:
            raise ValueError("give the symbol as a name path (symbol) or as line and column")
        if self.symbol and self.line is not None:
            raise ValueError(
                "give the symbol either as a name path (symbol) or as line and column, not both"
            )
        return self


class SymbolModel(BaseModel):
    """One definition of a file."""

    name: str
    kind: str
    name_path: str
    start_line: int
    end_line: int
    depth: int = Field(description="0 for top-level definitions.")


class EditSymbolResult(BaseModel):
    """Result of edit_symbol."""

    path: str
    symbol: SymbolModel = Field(description="The symbol as it was before the edit.")
    new_start_line: int = Field(description="Where the edited range starts in the new file.")
    new_end_line: int
    diff: str
    version: str
    previous_version: str
    would_modify: bool
    written: bool
    mode: Mode
    validation: Validation


class ListSymbolsArgs(_Args):
    """Arguments of list_symbols."""

    path: str = Field(description="Source file to list.")
    depth: int | None = Field(
        None, ge=1, description="How deep to list: 1 = top level only (default: everything)."
    )


class ListSymbolsResult(BaseModel):
    """Result of list_symbols."""

    path: str
    symbols: list[SymbolModel] = Field(description="Every definition, in file order.")
    version: str


def invalid_request(tool: str, exc: ValidationError) -> InvalidRequest:
    """An INVALID_REQUEST that names each wrong field the way a model wrote it."""
    problems = []
    for err in exc.errors(include_url=False):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
        problems.append({"field": where or "(arguments)", "problem": err["msg"]})
    listing = "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
    return InvalidRequest(
        f"the arguments of {tool} are malformed: {listing}",
        data={"field": problems[0]["field"], "problems": problems},
        suggestions=[f"Send the arguments exactly as {tool}'s input schema describes."],
    )


M = TypeVar("M", bound=BaseModel)


def arguments_of(model: type[M], tool: str, values: dict[str, Any]) -> M:
    """Validate a Python API call's keyword arguments with the tool's argument model.

    Raises:
        InvalidRequest: naming each wrong field, as the CLI and the MCP server do.
    """
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise invalid_request(tool, exc) from None

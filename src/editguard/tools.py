"""The tool registry: each tool declared once (name, description for a model, argument and result
models, handler). The CLI and the MCP server both read it, so they show the same tools."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from editguard.schema import (
    EditFileArgs,
    EditFileResult,
    EditLinesArgs,
    EditSymbolArgs,
    EditSymbolResult,
    ListSymbolsArgs,
    ListSymbolsResult,
    ReadFileArgs,
    ReadFileResult,
    SafeEditArgs,
    SafeEditResult,
    WriteFileArgs,
    WriteFileResult,
    invalid_request,
)
from editguard.service import Workspace


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: what a model reads about it, what it takes, what it returns, what it runs."""

    name: str
    title: str
    description: str
    arguments: type[BaseModel]
    result: type[BaseModel]
    handler: Callable[[Workspace, Any], BaseModel]
    read_only: bool
    destructive: bool
    idempotent: bool

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments."""
        return self.arguments.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        """JSON Schema of a successful result."""
        return self.result.model_json_schema()

    def parse(self, arguments: Mapping[str, Any]) -> BaseModel:
        """Validate raw JSON arguments.

        Raises:
            InvalidRequest: naming the first field that is wrong, with every problem in data.
        """
        try:
            return self.arguments.model_validate(dict(arguments))
        except ValidationError as exc:
            raise invalid_request(self.name, exc) from None

    def call(self, workspace: Workspace, arguments: Mapping[str, Any]) -> BaseModel:
        """Validate ``arguments`` and run the tool.

        Raises:
            EditError: any error of the tool, with its code.
        """
        return self.handler(workspace, self.parse(arguments))


def _read_file(ws: Workspace, a: ReadFileArgs) -> ReadFileResult:
    return ws.read_file(a.path, a.start_line, a.end_line)


def _edit_file(ws: Workspace, a: EditFileArgs) -> EditFileResult:
    return ws.edit_file(
        a.path, a.edits, dry_run=a.dry_run, expected_version=a.expected_version, mode=a.mode
    )


def _write_file(ws: Workspace, a: WriteFileArgs) -> WriteFileResult:
    return ws.write_file(a.path, a.content, expected_version=a.expected_version, mode=a.mode)


READ_FILE = Tool(
    name="read_file",
    title="Read a file with line numbers",
    description=(
        "Read a text file and return its lines, each prefixed with its line number and '│', "
        "like `  12│    return x`. The prefix is NOT part of the file: never copy it into "
        "old_text. Also returns total_lines, encoding, line_ending and `version`; pass that "
        "version as expected_version to an edit so it fails (STALE_VERSION) instead of "
        "editing a file that changed since you read it. Shows up to 2000 lines unless you give "
        "start_line/end_line; `truncated` and next_start_line say when there is more.\n"
        'Example: {"path": "src/app.py", "start_line": 40, "end_line": 60}'
    ),
    arguments=ReadFileArgs,
    result=ReadFileResult,
    handler=_read_file,
    read_only=True,
    destructive=False,
    idempotent=True,
)

EDIT_FILE = Tool(
    name="edit_file",
    title="Edit a file by exact search/replace",
    description=(
        "Change an existing text file by exact search/replace. Each edit replaces old_text "
        "(copied exactly from the file, no line-number prefix) with new_text. Edits apply in "
        "order, each on the result of the previous ones. old_text must occur exactly "
        "`occurrences` times (default 1) or the call fails with WRONG_COUNT and lists every "
        "match; if it is not found, NO_MATCH shows the most similar lines of the file and what "
        "differs. All edits succeed or nothing is written. Encoding, BOM, line endings and "
        "untouched bytes are kept. Use dry_run to preview the diff. Use write_file instead to "
        "create a file or replace all of it.\n"
        'Example: {"path": "src/app.py", "edits": [{"old_text": "    return a + b\\n", '
        '"new_text": "    return a - b\\n"}, {"old_text": "DEBUG = True", "new_text": '
        '"DEBUG = False"}]}'
    ),
    arguments=EditFileArgs,
    result=EditFileResult,
    handler=_edit_file,
    read_only=False,
    destructive=True,
    idempotent=False,
)

WRITE_FILE = Tool(
    name="write_file",
    title="Create or overwrite a whole file",
    description=(
        "Create a new file, or replace the whole content of an existing one, atomically "
        "(missing parent folders are created). Overwriting keeps the file's encoding, BOM, "
        "permissions and line-ending style. For changing part of a file, prefer edit_file: it "
        "sends less and cannot drop lines you did not mean to touch. Pass expected_version "
        "from read_file to refuse overwriting a file that changed since you read it.\n"
        'Example: {"path": "notes/todo.md", "content": "# TODO\\n- write tests\\n"}'
    ),
    arguments=WriteFileArgs,
    result=WriteFileResult,
    handler=_write_file,
    read_only=False,
    destructive=True,
    idempotent=True,
)


def _edit_lines(ws: Workspace, a: EditLinesArgs) -> EditFileResult:
    return ws.edit_lines(
        a.path, a.edits, dry_run=a.dry_run, expected_version=a.expected_version, mode=a.mode
    )


def _safe_edit(ws: Workspace, a: SafeEditArgs) -> SafeEditResult:
    return ws.safe_edit(
        a.path,
        content=a.content,
        line_edits=a.line_edits,
        search_replace=a.search_replace,
        mode=a.mode,
        show_diff=a.show_diff,
        expected_version=a.expected_version,
    )


EDIT_LINES = Tool(
    name="edit_lines",
    title="Edit a file by line numbers",
    description=(
        "Insert, delete or replace lines by number (1-based, as read_file shows them). Types: "
        "Insert (text before line_number; past the last line appends), Delete (line_number "
        "through end_line), Replace (the whole line, or only old_text inside it), "
        "ReplaceSection (line_number through end_line become text; empty text deletes). Every "
        "line number refers to the file as you read it, so edits never shift each other; "
        "overlapping edits are refused; all succeed or nothing is written. Line numbers go stale "
        "when the file changes: pass the version from read_file as expected_version. Prefer "
        "edit_file when you can quote the text to change.\n"
        'Example: {"path": "src/app.py", "expected_version": "5c0f3c6d9f0b7a1e", "edits": '
        '[{"line_number": 3, "type": "Insert", "text": "import os"}, {"line_number": 10, '
        '"type": "ReplaceSection", "end_line": 12, "text": "    return 0"}]}'
    ),
    arguments=EditLinesArgs,
    result=EditFileResult,
    handler=_edit_lines,
    read_only=False,
    destructive=True,
    idempotent=False,
)

SAFE_EDIT = Tool(
    name="safe_edit",
    title="Edit a file in one of three ways, syntax-checked",
    description=(
        "Edit a file with exactly one of: content (the whole new file; creates it if missing), "
        "line_edits ([{start_line, end_line, new_content}], inclusive, line numbers as read, no "
        "overlaps; empty new_content deletes), or search_replace ({search, replace, regex, count, "
        "flags}: literal or regular expression, \\1 and \\g<name> in replace, count null = "
        "all). The result is syntax-checked before anything is written: mode 'strict' (default) "
        "refuses an edit that introduces syntax errors, 'interactive' writes and warns, "
        "'verify_only' only reports. show_diff returns the diff.\n"
        'Example: {"path": "src/app.py", "search_replace": {"search": "print\\\\((.*)\\\\)", '
        '"replace": "log(\\\\1)", "regex": true}}'
    ),
    arguments=SafeEditArgs,
    result=SafeEditResult,
    handler=_safe_edit,
    read_only=False,
    destructive=True,
    idempotent=False,
)


def _list_symbols(ws: Workspace, a: ListSymbolsArgs) -> ListSymbolsResult:
    return ws.list_symbols(a.path, a.depth)


def _edit_symbol(ws: Workspace, a: EditSymbolArgs) -> EditSymbolResult:
    return ws.edit_symbol(
        a.path,
        a.symbol,
        line=a.line,
        column=a.column,
        chunks=a.chunks,
        new_body=a.new_body,
        insert_before=a.insert_before,
        insert_after=a.insert_after,
        expected_version=a.expected_version,
        mode=a.mode,
    )


_SYMBOL_RANGE = (
    "A symbol's range is whole lines: the definition with its decorators, attributes or "
    "annotations, an export keyword or template header, and the doc comments directly above "
    "it. Languages: Python, JavaScript, TypeScript, TSX, Go, Rust, Java, C, C++, C#, Ruby, PHP."
)

LIST_SYMBOLS = Tool(
    name="list_symbols",
    title="List the definitions of a source file",
    description=(
        "List every definition of a source file (classes, functions, methods, structs, "
        "interfaces ...) with its kind, name path (e.g. 'Parser/parse') and line range, in file "
        "order. Use it before edit_symbol to find the name path; depth 1 lists only top-level "
        "definitions. " + _SYMBOL_RANGE + "\n"
        'Example: {"path": "src/app.py", "depth": 2}'
    ),
    arguments=ListSymbolsArgs,
    result=ListSymbolsResult,
    handler=_list_symbols,
    read_only=True,
    destructive=False,
    idempotent=True,
)

EDIT_SYMBOL = Tool(
    name="edit_symbol",
    title="Edit one definition by name",
    description=(
        "Edit one function, method or class, named by its name path ('Class/method'; '.' also "
        "separates; a leading '/' anchors at the top level; 'name[1]' picks the second match) or "
        "by line and column. Exactly one action: chunks (the cheapest for small changes in a "
        "symbol of 20+ lines; for a short symbol new_body costs fewer tokens): "
        "[{context_before, old_lines, new_lines, context_after}], lines compared "
        "without trailing whitespace; context may be a string or a list, '' = none; an empty "
        "context_after means the chunk ends where the symbol ends; each chunk must fit exactly "
        "one place), new_body (the whole new text of the symbol, first line included, exactly "
        "as given), insert_before or insert_after (whole lines next to the symbol). Everything "
        "outside the symbol stays identical; the result is syntax-checked and every other "
        "symbol must still exist (mode 'strict' refuses otherwise). " + _SYMBOL_RANGE + "\n"
        'Example: {"path": "src/app.py", "symbol": "Parser/parse", "chunks": [{"context_before":'
        ' "    def parse(self, text):", "old_lines": ["        return self._run(text)"], '
        '"new_lines": ["        text = text.strip()", "        return self._run(text)"], '
        '"context_after": ""}]}'
    ),
    arguments=EditSymbolArgs,
    result=EditSymbolResult,
    handler=_edit_symbol,
    read_only=False,
    destructive=True,
    idempotent=False,
)

TOOLS: tuple[Tool, ...] = (
    READ_FILE,
    EDIT_FILE,
    EDIT_LINES,
    SAFE_EDIT,
    WRITE_FILE,
    LIST_SYMBOLS,
    EDIT_SYMBOL,
)


def tool_named(name: str) -> Tool:
    """The tool called ``name``.

    Raises:
        KeyError: no such tool.
    """
    for tool in TOOLS:
        if tool.name == name:
            return tool
    raise KeyError(name)

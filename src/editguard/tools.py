"""The tool registry: each tool declared once (name, description for a model, argument and result
models, handler). The CLI and the MCP server both read it, so they show the same tools."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from editguard.errors import InvalidRequest
from editguard.schema import (
    EditFileArgs,
    EditFileResult,
    ReadFileArgs,
    ReadFileResult,
    WriteFileArgs,
    WriteFileResult,
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


def _read_file(ws: Workspace, a: ReadFileArgs) -> ReadFileResult:
    return ws.read_file(a.path, a.start_line, a.end_line)


def _edit_file(ws: Workspace, a: EditFileArgs) -> EditFileResult:
    return ws.edit_file(a.path, a.edits, dry_run=a.dry_run, expected_version=a.expected_version)


def _write_file(ws: Workspace, a: WriteFileArgs) -> WriteFileResult:
    return ws.write_file(a.path, a.content, expected_version=a.expected_version)


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

TOOLS: tuple[Tool, ...] = (READ_FILE, EDIT_FILE, WRITE_FILE)


def tool_named(name: str) -> Tool:
    """The tool called ``name``.

    Raises:
        KeyError: no such tool.
    """
    for tool in TOOLS:
        if tool.name == name:
            return tool
    raise KeyError(name)

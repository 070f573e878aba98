"""A tool: what a model reads about it, what it takes, what it returns, and what it runs.

The CLI, the MCP server and the Python API all go through :class:`Tool`, so a tool is declared
once and every front end shows the same name, schema and behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from editguard.errors import EditError, InvalidRequest, internal_error
from editguard.pipeline import Context

A = TypeVar("A", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Tool(Generic[A, R]):
    """One tool of the registry; ``run`` is its whole behaviour, on validated arguments."""

    name: str
    title: str
    description: str
    arguments: type[A]
    result: type[R]
    run: Callable[[Context, A], R]
    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments."""
        return self.arguments.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        """JSON Schema of a successful result."""
        return self.result.model_json_schema()

    def describe(self) -> dict[str, Any]:
        """The tool as MCP's ``tools/list`` shows it (and ``editguard tools`` prints it)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "outputSchema": self.output_schema(),
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent,
                "openWorldHint": False,
            },
        }

    def parse(self, arguments: Mapping[str, Any]) -> A:
        """Validate raw arguments (JSON from a client, or a Python call's keywords).

        Raises:
            InvalidRequest: naming the first field that is wrong, with every problem in data.
        """
        try:
            return self.arguments.model_validate(dict(arguments))
        except ValidationError as exc:
            raise invalid_request(self.name, exc, arguments) from None

    def call(self, ctx: Context, arguments: Mapping[str, Any]) -> R:
        """Validate ``arguments`` and run the tool.

        Raises:
            EditError: any error of the tool, with its code.
        """
        return self.run(ctx, self.parse(arguments))

    def run_safely(self, ctx: Context, arguments: Mapping[str, Any]) -> R | EditError:
        """:meth:`call`, with every failure as a value: an unexpected exception (a bug) becomes
        INTERNAL_ERROR, so that a front end always answers with a code, never a traceback."""
        try:
            return self.call(ctx, arguments)
        except EditError as exc:
            return exc
        except Exception as exc:  # noqa: BLE001 - a bug must still answer with a code
            return internal_error(exc)


def invalid_request(
    tool: str, exc: ValidationError, arguments: Mapping[str, Any]
) -> InvalidRequest:
    """An INVALID_REQUEST that names each wrong field the way a model wrote it; a problem inside
    one edit of a list says which edit ("edit 2 of 3")."""
    problems = []
    for err in exc.errors(include_url=False):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
        problems.append({"field": where or "(arguments)", "problem": err["msg"]})
    listing = "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
    first = exc.errors(include_url=False)[0]["loc"]
    index = total = None
    if len(first) > 1 and first[0] == "edits" and isinstance(first[1], int):
        edits = arguments.get("edits")
        if isinstance(edits, str):
            try:
                edits = json.loads(edits)
            except json.JSONDecodeError:
                edits = None
        if isinstance(edits, list):
            index, total = first[1], len(edits)
    return InvalidRequest(
        f"the arguments of {tool} are malformed: {listing}",
        edit_index=index,
        total_edits=total,
        data={"field": problems[0]["field"], "problems": problems},
        suggestions=[f"Send the arguments exactly as {tool}'s input schema describes."],
    )

"""A tool: what a model reads about it, what it takes, what it returns, and what it runs.

The CLI, the MCP server and the Python API all go through :class:`Tool`, so a tool is declared
once and every front end shows the same name, schema and behaviour.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from editguard import prewarm
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
    # The paths a call may write, known before it runs (batch locks them all first, in order);
    # ``None``: the call's ``path`` argument.
    paths: Callable[[A], list[str]] | None = None

    def paths_of(self, args: A) -> list[str]:
        """The paths a call with these arguments may write."""
        if self.paths is not None:
            return self.paths(args)
        path = getattr(args, "path", None)
        return [path] if isinstance(path, str) else []

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
        """Check the size of ``arguments``, validate them and run the tool.

        Raises:
            EditError: any error of the tool, with its code.
        """
        check_sizes(arguments, ctx.max_argument_bytes, ctx.max_request_bytes)
        if ctx.tool != self.name and ctx.transaction is None:
            ctx = dataclasses.replace(ctx, tool=self.name)  # as the history records it
        with prewarm.SHARED.call():  # no background parse competes with the call
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


MAX_DEPTH = 32  # lists and objects nested in the arguments (an edit list of objects is 3)


def check_sizes(arguments: Mapping[str, Any], per_argument: int, per_request: int) -> None:
    """Refuse, before any work, arguments too large or too deeply nested to handle safely.

    Raises:
        InvalidRequest: naming the field and the limit.
    """
    total = 0
    stack: list[tuple[str, Any, int]] = [("", dict(arguments), 0)]
    while stack:
        where, value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidRequest(
                f"the arguments are nested more than {MAX_DEPTH} levels deep (at {where})",
                data={"field": where, "limit": MAX_DEPTH},
            )
        if isinstance(value, str):
            size = _utf8_size(value, per_argument)
            if size > per_argument:
                raise InvalidRequest(
                    f"{where} is {size:,} bytes or more; the limit for one argument is "
                    f"{per_argument:,} bytes",
                    data={"field": where, "size": size, "limit": per_argument},
                    suggestions=["Send a shorter text, or split the work over several calls."],
                )
            total += size
        elif isinstance(value, Mapping):
            for key, item in value.items():
                total += len(str(key))
                stack.append((f"{where}.{key}" if where else str(key), item, depth + 1))
        elif isinstance(value, list | tuple):
            stack.extend((f"{where}[{i}]", item, depth + 1) for i, item in enumerate(value))
        else:
            total += 8
        if total > per_request:
            raise InvalidRequest(
                f"the arguments add up to {total:,} bytes or more; the limit for one call is "
                f"{per_request:,} bytes",
                data={"field": where or "(arguments)", "size": total, "limit": per_request},
                suggestions=["Split the work over several calls."],
            )


def _utf8_size(text: str, limit: int) -> int:
    """The UTF-8 size of ``text``, or a size over ``limit`` as soon as that is certain."""
    if len(text) > limit:
        return len(text)
    if len(text) * 4 <= limit:
        return len(text)  # under the limit whatever it encodes to; close enough for the total
    return len(text.encode("utf-8", "surrogatepass"))

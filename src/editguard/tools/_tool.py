"""A tool: what a model reads about it, what it takes, what it returns, and what it runs.

The CLI, the MCP server and the Python API all go through :class:`Tool`, so a tool is declared
once and every front end shows the same name, schema and behaviour.
"""

from __future__ import annotations

import contextlib
import json
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from pydantic import (
    BaseModel,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    model_serializer,
)

from editguard.errors import EditError, InvalidRequest, internal_error
from editguard.tools._common import format_fields, problem_fields
from editguard.transaction import Transaction
from editguard.transaction.build import checks_only
from editguard.transaction.read import text_reader

if TYPE_CHECKING:
    from editguard.transaction import Context

A = TypeVar("A", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)

# The serialization context key under which :func:`dump_apart` collects a result's media.
_APART = "media_apart"


class Media(BaseModel):
    """A result, or a part of one, that carries a file's bytes: an image, with fields
    ``mime_type`` and ``data`` (the bytes, base64). The API and the CLI show ``data`` in the
    JSON like any field; a front end that can send the bytes its own way (MCP's image content)
    dumps the result with :func:`dump_apart` instead."""

    @model_serializer(mode="wrap")
    def _apart(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        out = handler(self)
        apart = info.context.get(_APART) if isinstance(info.context, dict) else None
        if isinstance(apart, list) and isinstance(out, dict):
            apart.append((out["mime_type"], out.pop("data")))
        return out


def dump_apart(result: BaseModel) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``result`` as JSON with the bytes of every :class:`Media` in it left out, and those
    apart, in the order they appear: (MIME type, base64 data)."""
    media: list[tuple[str, str]] = []
    data = result.model_dump(mode="json", context={_APART: media})
    return data, media


@dataclass(frozen=True, slots=True)
class Tool(Generic[A, R]):
    """One tool of the registry; ``run`` is its whole behaviour, on validated arguments: a
    read-only tool's ``run`` takes the Context, a writing tool's the
    :class:`~editguard.transaction.Transaction` :meth:`call` opens for it (which carries the
    Context), whose commit writes what the call staged."""

    name: str
    title: str
    description: str
    arguments: type[A]
    result: type[R] | types.UnionType  # a union of models: a tool that answers in several shapes
    run: Callable[[Any, A], R]  # (Context, args) if read_only, else (Transaction, args)
    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False
    # The paths a call may write, known before it runs (locked first, in order, batch's
    # calls' all together); ``None``: the call's ``path`` argument.
    paths: Callable[[A], list[str]] | None = None

    def paths_of(self, args: A) -> list[str]:
        """The paths a call with these arguments may write."""
        if self.paths is not None:
            return self.paths(args)
        path = getattr(args, "path", None)
        return [path] if isinstance(path, str) else []

    def checks_only(self, args: A) -> bool:
        """Whether a call with these arguments only checks (``dry_run``, mode
        ``verify_only``): it takes no lock and writes nothing."""
        return checks_only(getattr(args, "mode", None), bool(getattr(args, "dry_run", False)))

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments, as lean as it can be and still say the same
        (:func:`lean_schema`)."""
        return lean_schema(self.arguments.model_json_schema())

    def output_schema(self) -> dict[str, Any]:
        """JSON Schema of a successful result (not listed over MCP: the description says what
        comes back, and a schema of every result would cost more than all the rest)."""
        return lean_schema(TypeAdapter[Any](cast("Any", self.result)).json_schema())

    def describe(self) -> dict[str, Any]:
        """The tool as MCP's ``tools/list`` shows it (and ``editguard tools`` prints it).

        Hints are given where they differ from MCP's defaults (not read-only, destructive, not
        idempotent, open world).
        """
        hints: dict[str, Any] = {"readOnlyHint": True} if self.read_only else {}
        if not self.read_only and not self.destructive:
            hints["destructiveHint"] = False
        if self.idempotent:
            hints["idempotentHint"] = True
        hints["openWorldHint"] = False
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "annotations": hints,
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
        """Check the size of ``arguments``, validate them and run the tool; a writing tool
        runs in a transaction of its own, committed when it has run (a result with a
        ``change_id`` gets the commit's history entry).

        Raises:
            EditError: any error of the tool, with its code.
        """
        check_sizes(arguments, ctx.max_argument_bytes, ctx.max_request_bytes)
        # No background parse competes with the call (none exists where the module that
        # makes them was never loaded: a one-shot command does not load it, nor while another
        # thread is still importing it: the module is in sys.modules before SHARED exists).
        warming = getattr(sys.modules.get("editguard.prewarm"), "SHARED", None)
        with warming.call() if warming is not None else contextlib.nullcontext():
            try:
                args = self.parse(arguments)
                if self.read_only:
                    return self.run(ctx, args)
                return self._write(ctx, args)
            except EditError as exc:
                if exc.code == "STALE_VERSION":
                    _name_last_change(ctx, exc)
                raise

    def _write(self, ctx: Context, args: A) -> R:
        """Run a writing tool in its transaction and commit it."""
        formats = getattr(args, "format", None)
        with Transaction(ctx, tool=self.name, dry_run=self.checks_only(args)) as txn:
            txn.lock(self.paths_of(args))
            with txn.formatting(formats), txn.allowing_markers(allows_markers(args)):
                result = self.run(txn, args)
            done = txn.commit()
        update: dict[str, Any] = {}
        if "formatted" in type(result).model_fields:
            update.update(format_fields(txn.formatted))
        if done.change_id is not None and "change_id" in type(result).model_fields:
            update["change_id"] = done.change_id
        if ctx.analysis is not None and "problems" in type(result).model_fields:
            # After the commit, out of the locks: analyzers read what is on disk now.
            edits = txn.edits()
            if edits:
                written = done.change_id is not None or txn.will_write()
                verdict = ctx.analysis.after(
                    edits, ctx.sandbox.roots, written=written, read=text_reader(ctx)
                )
                update.update(problem_fields(verdict, written=written))
        return result.model_copy(update=update) if update else result

    def run_safely(self, ctx: Context, arguments: Mapping[str, Any]) -> R | EditError:
        """:meth:`call`, with every failure as a value: an unexpected exception (a bug) becomes
        INTERNAL_ERROR, so that a front end always answers with a code, never a traceback."""
        try:
            return self.call(ctx, arguments)
        except EditError as exc:
            return exc
        except Exception as exc:  # noqa: BLE001 - a bug must still answer with a code
            return internal_error(exc)


def allows_markers(args: BaseModel) -> bool | None:
    """A call's own ``allow_markers``, when it gives one (``None``: it does not, and a batch's
    choice holds for it)."""
    if "allow_markers" not in args.model_fields_set:
        return None
    return bool(getattr(args, "allow_markers", False))


def _name_last_change(ctx: Context, exc: EditError) -> None:
    """Name, in a STALE_VERSION that names none, the recorded change that made the file as it
    is now, and who asked for it (nothing where the history does not know)."""
    if ctx.history is None or exc.path is None or "actual_version" not in exc.data:
        return
    if "changed_by" in exc.data:
        return
    try:
        real = ctx.sandbox.resolve(exc.path).real
        last = ctx.history.entries(real, limit=1)
    except EditError:
        return
    record = next((f for e in last for f in e.files if f.real == real), None)
    if record is None or record.after_version != exc.data["actual_version"]:
        return
    entry = last[0]
    by = f" by {entry.client}" if entry.client else ""
    exc.message += f" (the file is as change {entry.id} left it: {entry.tool}{by})"
    exc.data.update(changed_by=[entry.id], clients=[entry.client])


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic JSON Schema with what a model does not need taken out, the meaning kept: no
    ``title`` (the property's name says it), no class docstrings, an optional field as its
    plain type (``anyOf [X, null]`` with ``default: null`` is X, not required), and a nested
    model used once written in place (``$defs`` only for one used twice or more)."""
    schema = {k: v for k, v in schema.items() if k != "description"}
    defs: dict[str, Any] = {
        name: {k: v for k, v in d.items() if k != "description"}
        for name, d in schema.get("$defs", {}).items()
    }
    uses: dict[str, int] = {}
    _count_refs(schema, uses)
    inline = {name for name in defs if uses.get(name, 0) == 1}

    def lean(node: Any, *, props: bool = False) -> Any:
        if isinstance(node, list):
            return [lean(n) for n in node]
        if not isinstance(node, dict):
            return node
        if props:  # property names, not keywords
            return {k: lean(v) for k, v in node.items()}
        options = node.get("anyOf")
        if (
            isinstance(options, list)
            and "default" in node
            and node["default"] is None
            and {"type": "null"} in options
        ):
            rest = [o for o in options if o != {"type": "null"}]
            node = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            if len(rest) == 1:
                node = {**rest[0], **node}
            else:
                node["anyOf"] = rest
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in inline:
            given = {k: v for k, v in node.items() if k != "$ref"}
            node = {**defs[ref.rsplit("/", 1)[-1]], **given}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "additionalProperties" and value is False:
                continue  # an unknown field is refused with INVALID_REQUEST naming it
            if key == "default" and value is False and node.get("type") == "boolean":
                continue  # an absent flag is off
            if key == "discriminator":
                # Each option's "const" says it (and the mapping may name $defs written in place).
                continue
            if key == "$defs":
                kept = {n: lean(d) for n, d in defs.items() if n not in inline}
                if kept:
                    out[key] = kept
                continue
            out[key] = lean(value, props=key == "properties")
        return out

    result: dict[str, Any] = lean(schema)
    return result


def _count_refs(node: Any, uses: dict[str, int]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            uses[name] = uses.get(name, 0) + 1
        for value in node.values():
            _count_refs(value, uses)
    elif isinstance(node, list):
        for value in node:
            _count_refs(value, uses)


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

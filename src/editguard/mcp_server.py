"""The MCP server: every tool of the registry, over stdio or Streamable HTTP.

Tool names, descriptions, input schemas and hints all come from :mod:`editguard.tools`, so the
server shows exactly what ``editguard tools`` prints, and a new tool appears here with no extra
work. ``tools/list`` is answered from the stored listing: no tool is imported before its first
call. Every failure is a tool result with ``isError: true`` whose text starts with the error's
code; arguments are validated by the registry's own models, so a malformed call gets
INVALID_REQUEST naming the field, not the SDK's generic message.

What the model reads is compact JSON, each fact once: a result as one JSON object (the text, and
the same object as structured content, for hosts that read that instead), and after it, as
image content, each image the result carries (its bytes are not in the JSON); an error as its text
(code, message with the file's nearby lines, suggestions) and then only the data the text does
not already say (:func:`error_result`).

Over stdio, each frame is read through :func:`no_lone_surrogates`; the HTTP transport and
what guards it (token, Host and Origin checks, listen checks) are :mod:`editguard._http`.

This module imports the MCP SDK (about 0.5 s); the CLI imports it only for ``serve``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import logging
import os
import re
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ImageContent, NotificationParams, TextContent
from mcp_types import Tool as MCPTool

from editguard import __version__
from editguard.errors import EditError, InvalidRequest, OutsideRoot
from editguard.tools import NAMES, tool_named
from editguard.tools._context import with_roots
from editguard.tools._listing import listing
from editguard.tools._tool import Tool, dump_apart
from editguard.transaction.context import Context as ToolContext

if TYPE_CHECKING:
    from editguard.workspace import Workspace

logger = logging.getLogger("editguard")

INSTRUCTIONS = (
    "editguard edits files exactly or not at all. Read a file with read_file (its lines come "
    "with a 'N│' prefix that is not part of the file), then change it with edit_file: copy "
    "old_text exactly from what you read, and pass the version read_file returned as "
    "expected_version. Every failure starts with a code (NO_MATCH, WRONG_COUNT, ...) and says "
    "what to send next; nothing is written when an edit fails. Use write_file only to create a "
    "file or replace all of it."
)
# For a server without read_file (serve --tools edit): the host reads files itself.
INSTRUCTIONS_WITHOUT_READ = (
    "editguard edits files exactly or not at all: copy old_text exactly from the file (without "
    "any line-number prefix your reader adds). Every failure starts with a code (NO_MATCH, "
    "WRONG_COUNT, ...) and says what to send next; nothing is written when an edit fails."
)


def compact(value: Any) -> str:
    """``value`` as the shortest JSON: no spaces, characters as they are."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def wire_safe(value: Any) -> Any:
    """``value`` with every lone surrogate (a file name's byte that is no UTF-8) written as a
    ``\\udcXX`` escape: the protocol's JSON is UTF-8 and cannot carry it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {wire_safe(k): wire_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [wire_safe(v) for v in value]
    return value


def error_result(error: EditError) -> CallToolResult:
    """A failed call: ``isError``, and one text a model reads once: the code, the message (with
    the file's nearby lines, "edit k of n" and the suggestions), then, as compact JSON, only the
    data the message does not already say (:func:`unsaid`)."""
    text = str(error)
    rest = unsaid(error, text)
    if rest:
        text += "\n" + compact(rest)
    return CallToolResult(content=[TextContent(type="text", text=wire_safe(text))], is_error=True)


def unsaid(error: EditError, text: str) -> dict[str, Any]:
    """The error's data (as ``to_dict`` gives it) without what ``text`` already states: the code,
    the message, the suggestions, "edit k of n", and every field whose value the text shows
    (:func:`_said`)."""
    data = error.to_dict()
    for key in ("code", "message", "suggestions"):
        data.pop(key, None)
    item = error.frame("edit", "chunk", "hunk")
    if item is not None and item.label() is not None:  # the text says "edit k of n"
        data.pop("edit_index", None)
        data.pop("total_edits" if item.kind == "edit" else "total", None)
    return {k: v for k, v in data.items() if not _said(v, text, top=True)}


_NUMBER = r"(?<![\d.]){}(?![\d])"
_TAG = re.compile(r"[a-z][a-z_]{0,23}")


def _said(value: Any, text: str, *, top: bool) -> bool:
    """Whether ``text`` already shows ``value``: a string whose every line is in it; a number
    written in it; a list or object all of whose parts are. Inside a list or object, what only
    describes a shown region (its position, similarity, flags, kind tags) counts as shown with
    it; at the top level, a flag, a "none" or a number not written in the text is kept."""
    if value is None or value in ("", [], {}):
        return not top  # at the top, "none" is a fact (no version: the file is gone)
    if isinstance(value, bool):
        return not top
    if isinstance(value, int | float):
        return not top or re.search(_NUMBER.format(re.escape(str(value))), text) is not None
    if isinstance(value, str):
        if not top and _TAG.fullmatch(value):
            return True
        return all(line.strip() in text for line in value.splitlines() if line.strip())
    if isinstance(value, dict):
        return all(_said(v, text, top=False) for v in value.values())
    if isinstance(value, list):
        scalars = all(not isinstance(v, dict | list) for v in value)
        return all(_said(v, text, top=top and scalars) for v in value)
    return False


class EditguardServer(MCPServer):
    """An MCP server whose tools are editguard's registry, working in ``workspace`` (a
    Workspace, or its context)."""

    def __init__(
        self,
        workspace: Workspace | ToolContext,
        *,
        log_level: str = "INFO",
        tools: tuple[str, ...] = NAMES,
        compat: str | None = None,
        compat_notebooks: bool = False,
    ) -> None:
        if compat_notebooks and compat is None:
            raise ValueError("compat_notebooks goes with compat")
        if compat is not None:
            if compat != "filesystem":
                raise ValueError(f"no compatible tool set named {compat!r} (there is: filesystem)")
            from editguard.compat import filesystem  # noqa: PLC0415 - only with --compat

            tools, instructions = filesystem.NAMES, filesystem.INSTRUCTIONS
        else:
            instructions = INSTRUCTIONS if "read_file" in tools else INSTRUCTIONS_WITHOUT_READ
        super().__init__(
            name="editguard",
            title="editguard",
            version=__version__,
            instructions=instructions,
            log_level=log_level.upper(),  # type: ignore[arg-type]
        )
        self.context = workspace if isinstance(workspace, ToolContext) else workspace.context
        self.tools = tools
        self.compat = compat
        # With compat: a notebook read and edited by cell, not as the text of its JSON.
        self.compat_notebooks = compat_notebooks
        self._warmed = False  # the analyzers' language servers started (see call_tool)
        self._lowlevel_server.add_notification_handler(
            "notifications/roots/list_changed", NotificationParams, self._roots_changed
        )

    async def run_stdio_async(self) -> None:
        """Serve stdio, reading frames through :func:`no_lone_surrogates`."""
        stdin = anyio.wrap_file(_SafeLines(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            await self._lowlevel_server.run(
                read_stream, write_stream, self._lowlevel_server.create_initialization_options()
            )

    async def list_tools(self) -> list[MCPTool]:
        """The tools served (every tool of the registry unless ``--tools`` chose some; with
        ``compat``, that tool set's)."""
        if self.compat is not None:
            return [MCPTool.model_validate(self._tool(n).describe()) for n in self.tools]
        return [MCPTool.model_validate(t) for t in listing(self.tools)]

    def _tool(self, name: str) -> Tool[Any, Any]:
        """The tool ``name`` serves: editguard's, or the compatible set's."""
        if self.compat is not None:
            from editguard.compat import filesystem  # noqa: PLC0415 - only with --compat

            return filesystem.tool_named(name, cells=self.compat_notebooks)
        return tool_named(name)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult:
        """Run a registry tool; every failure becomes an ``isError`` result with its code."""
        if name not in self.tools:
            names = ", ".join(self.tools)
            return error_result(
                InvalidRequest(
                    f"no tool named {name!r}; the tools are: {names}", data={"field": "name"}
                )
            )
        try:
            ctx = await self._context_for(context)
        except EditError as exc:
            return error_result(exc)
        client = client_of(context)
        if client is not None and client != ctx.client:
            ctx = dataclasses.replace(ctx, client=client)  # as the history records it
        if not self._warmed and ctx.analysis is not None:
            # The language servers start with the first call, in the roots it is allowed
            # (not at spawn: on two cores they would slow the first tools/list).
            self._warmed = True
            ctx.analysis.warm(ctx.sandbox.roots)
        tool = self._tool(name)
        answer = await anyio.to_thread.run_sync(tool.run_safely, ctx, arguments or {})
        if isinstance(answer, EditError):
            if answer.code == "INTERNAL_ERROR":
                logger.error("%s failed with a bug: %s", name, answer.message, exc_info=answer)
            else:
                logger.info("%s failed: %s", name, answer.code)
            return error_result(answer)
        data, media = dump_apart(answer)  # an image read travels as image content
        data = wire_safe(data)
        images = [ImageContent(type="image", data=d, mime_type=m) for m, d in media]
        if self.compat is not None:  # plain text, as the server it stands in for answers
            text = data["content"]
            data = {"content": text}
        else:
            text = compact(data)
        return CallToolResult(
            content=[TextContent(type="text", text=text), *images],
            structured_content=data,
        )

    async def _roots_changed(self, context: Any, _params: NotificationParams) -> None:
        """The client's roots changed: forget them, the next call asks again."""
        state = _connection_state(context.session)
        if state is not None:
            state[_ROOTS_CHANGES] = state.get(_ROOTS_CHANGES, 0) + 1
            state.pop(_ROOTS, None)

    async def _context_for(self, context: Context[Any, Any] | None) -> ToolContext:
        """The server's context, narrowed to the client's roots when the client offers some.

        Roots may narrow the allowed folders, never widen them. They are asked once per
        connection and kept until the client says they changed
        (``notifications/roots/list_changed``), not asked again at every call.
        """
        if context is None:
            return self.context
        try:
            capabilities = context.client_capabilities
            session = context.session
        except (LookupError, AttributeError, ValueError):
            return self.context
        if capabilities is None or capabilities.roots is None:
            return self.context
        state = _connection_state(session)
        if state is not None and _ROOTS in state:
            kept: ToolContext = state[_ROOTS]
            return kept
        asked = state.get(_ROOTS_CHANGES, 0) if state is not None else 0
        try:
            with warnings.catch_warnings():
                # Roots are deprecated by the 2026-07-28 protocol; clients still offer them.
                warnings.simplefilter("ignore")
                listed = await session.list_roots()
        except (MCPError, RuntimeError, AttributeError, anyio.BrokenResourceError):
            return self.context
        client_roots = [
            unquote(urlparse(str(root.uri)).path)
            for root in listed.roots
            if str(root.uri).startswith("file://")
        ]
        narrowed = self._narrowed(client_roots)  # raises when nothing is left
        # Keep it unless the roots changed while they were asked (the answer may be stale).
        if state is not None and state.get(_ROOTS_CHANGES, 0) == asked:
            state[_ROOTS] = narrowed
        return narrowed

    def _narrowed(self, client_roots: list[str]) -> ToolContext:
        """The server's context with only the folders inside both its roots and the client's.

        Raises:
            OutsideRoot: the two share no folder, or the roots changed while resolved.
        """
        if not client_roots:
            return self.context
        roots = self.context.sandbox.roots
        allowed = narrow(roots, client_roots)
        if not allowed:
            raise OutsideRoot(
                "the client's roots share no folder with the folders this server may edit",
                data={"server_roots": list(roots), "client_roots": client_roots},
            )
        if tuple(allowed) == roots:
            return self.context
        try:
            narrowed = with_roots(self.context, allowed)
        except (OSError, ValueError):  # a root changed or vanished while it was resolved
            narrowed = None
        if narrowed is None:
            raise OutsideRoot(
                "the client's roots changed while they were resolved; nothing was done",
                data={"server_roots": list(roots), "client_roots": client_roots},
            )
        # The narrowed roots are resolved again when the sandbox is made: a folder swapped for
        # a link in between must not turn into a root outside the server's.
        if not all(any(_inside(r, s) for s in roots) for r in narrowed.sandbox.roots):
            raise OutsideRoot(
                "the client's roots changed while they were resolved; nothing was done",
                data={"server_roots": list(roots), "client_roots": client_roots},
            )
        return narrowed


# Per-connection state: the context narrowed to the client's roots, and how many times the
# client said its roots changed.
_ROOTS = "editguard.roots"
_ROOTS_CHANGES = "editguard.roots_changes"


def _connection_state(session: Any) -> dict[str, Any] | None:
    """The connection's own scratch state (``Connection.state``), which lives as long as the
    client is connected; None where the SDK does not offer it (then roots are asked at every
    call, as before).

    The SDK 2.3 builds a ServerSession per request around the connection and does not expose
    the connection on it yet (its Context rework is pending): read it from the session.
    """
    state = getattr(getattr(session, "_connection", None), "state", None)
    return state if isinstance(state, dict) else None


MAX_CLIENT_NAME = 100  # characters of a client's name and version the history keeps


def client_of(context: Context[Any, Any] | None) -> str | None:
    """The client's name and version, as its ``initialize`` request gave them (``clientInfo``);
    None where it gave none."""
    try:
        params = context.session.client_params if context is not None else None
    except (LookupError, AttributeError, ValueError):
        return None
    info = getattr(params, "client_info", None)
    name = str(getattr(info, "name", "") or "").strip()
    if not name:
        return None
    version = str(getattr(info, "version", "") or "").strip()
    named = f"{name} {version}" if version else name
    # A name is the client's to choose: kept short and printable, as it is shown back.
    return "".join(c if c.isprintable() else "?" for c in named)[:MAX_CLIENT_NAME]


def narrow(server_roots: Sequence[str], client_roots: Sequence[str]) -> list[str]:
    """The folders inside both a server root and a client root (the intersection of trees)."""
    out: list[str] = []
    for raw in client_roots:
        try:
            client = os.path.realpath(raw)
        except (OSError, ValueError):  # changing under us, or a NUL: not a root to narrow to
            continue
        for server in server_roots:
            if _inside(client, server) and os.path.isdir(client):
                out.append(client)
            elif _inside(server, client):
                out.append(server)
    return list(dict.fromkeys(out))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def serve_stdio(server: EditguardServer) -> None:
    """Serve on standard input and output until the client closes them."""
    server.run("stdio")


_ESCAPE = re.compile(r"(\\+)u([dD][0-9a-fA-F]{3})")


def no_lone_surrogates(line: str) -> str:
    """``line`` (a JSON-RPC frame) with every lone surrogate escape (``\\udcff`` with no pair,
    as a client sends a file name's non-UTF-8 byte) replaced by ``\\ufffd``.

    The protocol's parser refuses a frame that holds one, and drops it without an answer; with
    the replacement the call is answered with a code (the file is not found).
    """
    if "\\u" not in line:
        return line
    found = list(_ESCAPE.finditer(line))
    out: list[str] = []
    last = i = 0
    while i < len(found):
        m = found[i]
        code = int(m.group(2), 16)
        if len(m.group(1)) % 2 == 0 or not 0xD800 <= code <= 0xDFFF:
            i += 1  # an escaped backslash before a plain "u", or no surrogate
            continue
        after = found[i + 1] if i + 1 < len(found) else None
        if (
            code <= 0xDBFF
            and after is not None
            and after.start() == m.end()
            and len(after.group(1)) == 1
            and 0xDC00 <= int(after.group(2), 16) <= 0xDFFF
        ):
            i += 2  # a high and a low surrogate: one character
            continue
        out += [line[last : m.start()], m.group(1)[:-1], "\\ufffd"]
        last = m.end()
        i += 1
    out.append(line[last:])
    return "".join(out)


class _SafeLines(io.TextIOWrapper):
    """Standard input as UTF-8 lines, each with :func:`no_lone_surrogates` applied; closing
    it leaves the process's stdin open."""

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]  # typeshed: bytes
        return no_lone_surrogates(super().readline(size))

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()

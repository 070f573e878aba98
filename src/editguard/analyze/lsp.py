"""A language server kept warm for one project, and what it is told: one server process per
(analyzer, project), its connection in :mod:`editguard.analyze.lsp_client`.

What the server is told, so that it never describes a text that is not on disk (or, for a dry
run, the one proposed):

- a table of what it was told of each open document (text and version); before each job every
  open document that the job does not edit is read again from disk and sent (``didChange``) where
  it differs, and files it has not opened but may have read (the project's files it checks, and
  their configuration) are compared with the last listing: what changed is sent as
  ``workspace/didChangeWatchedFiles``: changes made outside editguard reach it;
- a job sets each edited file to its text before the edit (``didOpen``/``didChange``; a file the
  edit created is closed), takes the diagnostics of those files and of the other files given (the
  files that import them), then sets the texts after (``didClose`` for a deleted file), tells of
  the files written, and takes the diagnostics again; a dry run's texts are put back to the disk's
  afterwards.

Diagnostics are pulled (``textDocument/diagnostic``) where the server answers it, else the job
waits for ``publishDiagnostics`` of the version it sent, then a short settle for the other files.

Limits: each job has a timeout (:data:`JOB_TIMEOUT`, whatever the answer's budget: a job the
answer did not wait for still ends, for the ``diagnostics`` tool), and so have the start and each
request. A server that hangs, crashes or misbehaves is killed and started again on next use; its
failure is a note, never an exception. One job at a time per server, in the order they came.
"""

from __future__ import annotations

import collections
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from editguard.analyze.base import Findings, Job, read_source
from editguard.analyze.lsp_client import Connection, Stopped, describe
from editguard.analyze.problem import Problem
from editguard.analyze.server_spec import ServerSpec

__all__ = ["ServerSpec", "Session", "Stopped"]

JOB_TIMEOUT = 60.0  # seconds a job may take, queue included, whatever the answer's budget
PUSH_WAIT = 10.0  # seconds to wait for pushed diagnostics of the version sent
SETTLE = 0.3  # seconds the other files' pushed diagnostics may lag behind the edited one's
RETRY_AFTER = 30.0  # seconds before a server that failed to start is tried again
MAX_OPEN = 40  # documents kept open; the least recently used are closed
MAX_PROBLEMS = 500  # diagnostics kept per file
MESSAGE_CHARS = 1000  # characters of one diagnostic's message
WATCH_LIMIT = 20_000  # files listed to find changes made outside editguard
QUICK_LISTING = 0.05  # seconds: a project listed this fast is listed again before each job
RELIST_AFTER = 30.0  # seconds: else the whole listing is redone at most this often
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages"})


@dataclass(slots=True)
class _Doc:
    uri: str
    text: str
    version: int


class _Turns:
    """A lock served in the order it was asked for; a turn not taken in time is skipped."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next = 0
        self._serving = 0
        self._given_up: set[int] = set()

    def take(self, timeout: float) -> int | None:
        with self._cond:
            ticket = self._next
            self._next += 1
            if self._cond.wait_for(lambda: self._serving == ticket, timeout=max(timeout, 0.0)):
                return ticket
            self._given_up.add(ticket)
            return None

    def done(self) -> None:
        with self._cond:
            self._serving += 1
            while self._serving in self._given_up:
                self._given_up.discard(self._serving)
                self._serving += 1
            self._cond.notify_all()


class Session:
    """One language server for one project (see the module docstring)."""

    def __init__(self, spec: ServerSpec, project: str) -> None:
        self.spec = spec
        self.project = project
        self._turns = _Turns()
        self._conn: Connection | None = None
        self._docs: collections.OrderedDict[str, _Doc] = collections.OrderedDict()
        self._versions: dict[str, int] = {}
        self._listing: dict[str, tuple[int, int]] = {}
        self._listing_capped = False
        self._listing_cost = 0.0
        self._listed_at = 0.0
        self._failed: tuple[float, str] | None = None
        self._closed = False

    # --- jobs ---------------------------------------------------------------------------

    def check(self, job: Job, others: Sequence[str], notes: Iterable[str] = ()) -> Findings:
        """The diagnostics of the job's files (and of ``others``, unchanged files that use them)
        before and after its edits. Never raises: a failure is a note."""
        found = Findings(notes=list(notes))
        self._in_turn(found, lambda deadline: self._check(job, others, found, deadline))
        return found

    def current(self, reals: Sequence[str]) -> Findings:
        """The diagnostics of these files as on disk (none given: of the files the server has
        open, which is not the whole project: a note says so)."""
        found = Findings()
        self._in_turn(found, lambda deadline: self._current(reals, found, deadline))
        return found

    def warm(self) -> None:
        """Start the server (nothing is opened)."""
        if self._turns.take(JOB_TIMEOUT) is None:
            return
        try:
            self._ensure([])
        finally:
            self._turns.done()

    def _in_turn(self, found: Findings, run: Callable[[float], None]) -> None:
        """Run a job in its turn, on a running server; a server that stopped during the job (it
        crashed: not one that hung) is started again and the job run once more."""
        deadline = time.monotonic() + JOB_TIMEOUT
        if self._turns.take(deadline - time.monotonic()) is None:
            found.notes.append(f"{self.spec.name}: busy past {JOB_TIMEOUT:g} s, skipped")
            return
        try:
            for attempt in (1, 2):
                if not self._ensure(found.notes):
                    return
                try:
                    run(deadline)
                except Exception:  # noqa: BLE001 - a server's failure is a note
                    found.before.clear()
                    found.after.clear()
                    conn = self._conn
                    crashed = conn is not None and conn.exited and conn.why_stopped is None
                    why = conn.exit_reason() if conn is not None else "stopped"
                    if conn is not None and conn.why_stopped:
                        exc = Stopped(conn.why_stopped)
                    self.kill()
                    if crashed and attempt == 1:
                        found.notes.append(
                            f"{self.spec.name}: the language server stopped ({why}); restarted"
                        )
                        continue
                    found.notes.append(
                        f"{self.spec.name}: {describe(exc)}; it is started again on next use"
                    )
                    return
                else:
                    return
        finally:
            self._turns.done()

    def _check(self, job: Job, others: Sequence[str], found: Findings, deadline: float) -> None:
        edits = [e for e in job.edits if _ext(e.real) in self.spec.languages]
        edited = {e.real for e in edits}
        others = [r for r in others if r not in edited]
        self._sync_disk(edited, found.notes)
        for e in edits:
            if e.before is None:
                self._close(e.real)
            else:
                self._set(e.real, e.before)
        others = [r for r in others if self._set_from_disk(r)]
        since = self._mark()
        wanted = [e.real for e in edits if e.before is not None]
        found.before = self._diagnose(wanted, others, since, deadline, found.notes)
        gone = [e.real for e in edits if e.after is None and job.written]
        if gone:
            self._as_if_present(gone, others, found)
        missing = {r for r in [*wanted, *others] if r not in found.before}
        for e in edits:
            if e.after is None:
                self._close(e.real)
            else:
                self._set(e.real, e.after)
        if job.written:
            self._tell_written(edits)
        since = self._mark()
        wanted = [e.real for e in edits if e.after is not None]
        found.after = self._diagnose(wanted, others, since, deadline, found.notes)
        missing |= {r for r in [*wanted, *others] if r not in found.after}
        for real in missing:  # a file known on one side only would compare wrongly
            found.before.pop(real, None)
            found.after.pop(real, None)
        for e in edits:
            if e.real not in missing:
                found.before.setdefault(e.real, [])
                found.after.setdefault(e.real, [])
        if not job.written:
            for e in edits:
                if not self._set_from_disk(e.real):
                    self._close(e.real)
        self._trim(keep={*edited, *others})

    def _as_if_present(self, gone: Sequence[str], others: Sequence[str], found: Findings) -> None:
        """The other files' problems before a file was deleted (or moved away), as far as they
        can be told once it is gone: a server resolves imports on disk, not among the open
        documents, so the lines that name the gone module already fail to import it. Those
        lines' problems are taken out of the before side: after, they are new."""
        names = set()
        for real in gone:
            stem = os.path.splitext(os.path.basename(real))[0]
            names.add(os.path.basename(os.path.dirname(real)) if stem == "__init__" else stem)
        pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")\b")
        for real in others:
            lines = self._docs[real].text.split("\n") if real in self._docs else []
            found.before[real] = [
                p
                for p in found.before.get(real, [])
                if not (0 < p.line <= len(lines) and pattern.search(lines[p.line - 1]))
            ]

    def _current(self, reals: Sequence[str], found: Findings, deadline: float) -> None:
        self._sync_disk(set(), found.notes)
        if reals:
            wanted = [r for r in reals if self._set_from_disk(r)]
        else:
            wanted = list(self._docs)
            found.notes.append(
                f"{self.spec.name}: the problems of the {len(wanted)} files it has open, "
                "not of the whole project (name files to check them)"
            )
        found.after = self._diagnose(wanted, [], self._mark(), deadline, found.notes)
        self._trim(keep=set(wanted))

    # --- documents --------------------------------------------------------------------------

    def _set(self, real: str, text: str) -> None:
        """Make the server's document of ``real`` hold ``text`` (opened if it is not)."""
        client = self._c.live()
        doc = self._docs.get(real)
        if doc is None:
            uri = Path(real).as_uri()
            version = self._versions[real] = self._versions.get(real, 0) + 1
            language = self.spec.languages.get(_ext(real), "plaintext")
            item = lsp.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)
            self._c.on_loop(
                lambda: client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
            )
            self._docs[real] = _Doc(uri, text, version)
        elif doc.text != text:
            version = self._versions[real] = self._versions.get(real, 0) + 1
            change = lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=version, uri=doc.uri),
                [lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
            self._c.on_loop(lambda: client.text_document_did_change(change))
            doc.text, doc.version = text, version
        self._docs.move_to_end(real)

    def _set_from_disk(self, real: str) -> bool:
        """Set ``real``'s document to its text on disk; ``False`` where it cannot be read."""
        text = read_source(real)
        if text is None:
            return False
        self._set(real, text)
        return True

    def _close(self, real: str) -> None:
        doc = self._docs.pop(real, None)
        if doc is not None:
            client = self._c.live()
            params = lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=doc.uri))
            self._c.on_loop(lambda: client.text_document_did_close(params))

    def _trim(self, keep: set[str]) -> None:
        for real in list(self._docs)[: max(0, len(self._docs) - MAX_OPEN)]:
            if real not in keep:
                self._close(real)

    def _sync_disk(self, edited: set[str], notes: list[str]) -> None:
        """Tell the server of changes made outside editguard: open documents whose disk text
        differs, and files it may have read whose size or time changed since the last look.

        The project is listed again before each job where that is quick (under
        :data:`QUICK_LISTING`); in a larger one the files already known are looked at each time
        and the whole listing (files created) is redone at most every :data:`RELIST_AFTER`."""
        for real in list(self._docs):
            if real not in edited and not self._set_from_disk(real):
                self._close(real)
        now = time.monotonic()
        if self._listing_cost < QUICK_LISTING or now - self._listed_at > RELIST_AFTER:
            listing, capped = self._list_files()
            self._listing_cost, self._listed_at = time.monotonic() - now, now
        else:
            stamps = ((r, _stamp(r)) for r in self._listing)
            listing, capped = {r: s for r, s in stamps if s is not None}, self._listing_capped
        events = []
        for real, stamp in listing.items():
            if real in edited:
                continue
            was = self._listing.get(real)
            if was is None:
                events.append((real, lsp.FileChangeType.Created))
            elif was != stamp:
                events.append((real, lsp.FileChangeType.Changed))
        events += [
            (real, lsp.FileChangeType.Deleted)
            for real in self._listing.keys() - listing.keys()
            if real not in edited
        ]
        self._listing = {**listing, **{r: s for r, s in self._listing.items() if r in edited}}
        if capped and not self._listing_capped:
            notes.append(
                f"{self.spec.name}: the project has more than {WATCH_LIMIT:,} files; changes "
                "made outside editguard to files it has not opened may be missed"
            )
        self._listing_capped = capped
        self._tell(events)

    def _tell_written(self, edits: Sequence[Any]) -> None:
        """Tell the server of the files written (created, changed, deleted), as a client that
        watches the disk would."""
        events = []
        for e in edits:
            stamp = _stamp(e.real)
            if stamp is None:
                self._listing.pop(e.real, None)
                events.append((e.real, lsp.FileChangeType.Deleted))
                continue
            self._listing[e.real] = stamp
            created = e.before is None
            events.append(
                (e.real, lsp.FileChangeType.Created if created else lsp.FileChangeType.Changed)
            )
        self._tell(events)

    def _tell(self, events: list[tuple[str, lsp.FileChangeType]]) -> None:
        if not events:
            return
        client = self._c.live()
        params = lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent(uri=Path(real).as_uri(), type=kind) for real, kind in events]
        )
        self._c.on_loop(lambda: client.workspace_did_change_watched_files(params))

    def _list_files(self) -> tuple[dict[str, tuple[int, int]], bool]:
        """The project's files this server checks or reads the configuration of, with their
        size and modification time (hidden folders, node_modules and caches left out)."""
        out: dict[str, tuple[int, int]] = {}
        extensions = tuple(self.spec.languages)
        stack = [self.project]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if not name.startswith(".") and name not in SKIPPED_FOLDERS:
                            stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False) and (
                        name.endswith(extensions) or name in self.spec.watched
                    ):
                        st = entry.stat(follow_symlinks=False)
                        out[entry.path] = (st.st_mtime_ns, st.st_size)
                except OSError:
                    continue
                if len(out) >= WATCH_LIMIT:
                    return out, True
        return out, False

    # --- diagnostics ------------------------------------------------------------------------

    def _mark(self) -> int:
        with self._c.cond:
            return self._c.seq

    def _diagnose(
        self,
        edited: Sequence[str],
        others: Sequence[str],
        since: int,
        deadline: float,
        notes: list[str],
    ) -> dict[str, list[Problem]]:
        """The problems of these open documents as the server sees them now."""
        reals = list(dict.fromkeys([*edited, *others]))
        if self._c.pull:
            client = self._c.live()
            out = {}
            for real in reals:
                uri = self._docs[real].uri
                params = lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri=uri))
                report = self._c.request(partial(client.text_document_diagnostic, params), deadline)
                items = getattr(report, "items", None) or []
                out[real] = self._problems(real, items)
            return out
        return self._pushed_for(edited, others, since, deadline, notes)

    def _pushed_for(
        self,
        edited: Sequence[str],
        others: Sequence[str],
        since: int,
        deadline: float,
        notes: list[str],
    ) -> dict[str, list[Problem]]:
        """Pushed diagnostics: each edited document's for the version it holds (sent after
        ``since``), then the others' sent after ``since``, or their last ones after a settle."""
        wait_until = min(deadline, time.monotonic() + PUSH_WAIT)
        out: dict[str, list[Problem]] = {}
        c = self._c

        def fresh(real: str) -> bool:
            got = c.pushed.get(self._docs[real].uri)
            if got is None:
                return False
            seq, version, _ = got
            return version == self._docs[real].version if version is not None else seq > since

        with c.cond:
            c.cond.wait_for(
                lambda: not c.running or all(fresh(r) for r in edited),
                timeout=wait_until - time.monotonic(),
            )
            settle = min(wait_until, time.monotonic() + SETTLE)
            c.cond.wait_for(
                lambda: (
                    not c.running
                    or all(c.pushed.get(self._docs[r].uri, (0,))[0] > since for r in others)
                ),
                timeout=settle - time.monotonic(),
            )
            got = {r: c.pushed.get(self._docs[r].uri) for r in [*edited, *others]}
        c.live()  # raises if it stopped meanwhile
        late = [r for r in edited if not fresh(r)]
        for real, pushed in got.items():
            if real in late or pushed is None:
                continue
            out[real] = self._problems(real, pushed[2])
        if late:
            names = ", ".join(os.path.basename(r) for r in late)
            notes.append(
                f"{self.spec.name}: no diagnostics of {names} within {PUSH_WAIT:g} s; left out"
            )
        return out

    def _problems(self, real: str, items: Sequence[lsp.Diagnostic]) -> list[Problem]:
        lines = self._docs[real].text.split("\n") if real in self._docs else []
        out = []
        for d in items:
            if (d.severity or 1) not in self.spec.severities:
                continue
            line = d.range.start.line
            column = d.range.start.character
            if self._conn is not None and self._conn.utf16 and 0 <= line < len(lines):
                column = _utf16_to_chars(lines[line], column)
            out.append(
                Problem(
                    path=real,
                    line=line + 1,
                    column=column + 1,
                    analyzer=self.spec.name,
                    code="" if d.code is None else str(d.code),
                    message=d.message.strip()[:MESSAGE_CHARS],
                    severity="error" if (d.severity or 1) == 1 else "warning",
                )
            )
            if len(out) >= MAX_PROBLEMS:
                break
        return out

    # --- the process ------------------------------------------------------------------------

    @property
    def _c(self) -> Connection:
        if self._conn is None:
            raise Stopped("the language server is not running")
        return self._conn

    @property
    def running(self) -> bool:
        """Whether the server runs."""
        return self._conn is not None and self._conn.running

    @property
    def pid(self) -> int | None:
        """The server process's id, while it runs."""
        return self._conn.pid if self._conn is not None else None

    def _ensure(self, notes: list[str]) -> bool:
        """Start the server if it is not running; ``False`` (with a note) where it cannot."""
        conn = self._conn
        if conn is not None and conn.running:
            return True
        if self._closed:
            notes.append(f"{self.spec.name}: closed")
            return False
        if conn is not None:
            why = conn.why_stopped or conn.exit_reason()
            notes.append(f"{self.spec.name}: the language server stopped ({why}); restarted")
            self.kill()
        if self._failed is not None and time.monotonic() - self._failed[0] < RETRY_AFTER:
            notes.append(self._failed[1])
            return False
        conn = Connection(self.spec, self.project)
        try:
            conn.start()
        except Exception as exc:  # noqa: BLE001 - a server that does not start is a note
            message = f"{self.spec.name}: could not start ({describe(exc)}){conn.stderr_tail()}"
            conn.kill()
            self._failed = (time.monotonic(), message)
            notes.append(message)
            return False
        self._conn, self._failed = conn, None
        self._docs.clear()
        started = time.monotonic()
        self._listing, self._listing_capped = self._list_files()
        self._listing_cost, self._listed_at = time.monotonic() - started, started
        return True

    def kill(self) -> None:
        """Kill the server now and forget what it was told (the next job starts another)."""
        conn, self._conn = self._conn, None
        self._docs.clear()
        if conn is not None:
            conn.kill()

    def close(self) -> None:
        """Ask the server to shut down and exit; kill it if it does not. A job still running
        ends with a note, and none starts the server again."""
        self._closed = True
        conn, self._conn = self._conn, None
        self._docs.clear()
        if conn is not None:
            conn.close()


def _ext(real: str) -> str:
    return os.path.splitext(real)[1]


def _stamp(real: str) -> tuple[int, int] | None:
    try:
        st = os.stat(real, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _utf16_to_chars(line: str, units: int) -> int:
    """A column in UTF-16 code units (LSP's default) as a count of characters."""
    if line.isascii():
        return min(units, len(line))
    return len(line.encode("utf-16-le")[: 2 * units].decode("utf-16-le", "ignore"))

"""The analyses of a workspace: which analyzers run on a call's edits, how long the answer waits
for them, what is new, and what is still being worked on.

:meth:`Analysis.after` is called once a writing call has committed (or, for a call that only
checks, once it has been checked): each analyzer that accepts one of the edited files compares
them before and after in a worker thread; the answer waits until the budget is spent, reports the
problems the edits introduced and how many they removed, and names the analyzers still working
(``problems_pending``). Their findings are kept, and :meth:`Analysis.diagnostics` gives them when
ready, only while the file is still as that edit left it: nothing describes a text that is no
longer on disk. A problem in a file outside the roots (an analyzer reads the packages a file
imports, wherever they are) is never shown.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from editguard.analyze.base import Analyzer, Edit, Findings, Job, project_of
from editguard.analyze.notebook import (
    CellCode,
    cell_line,
    cells_of,
    compare_cells,
    lean,
    with_id,
)
from editguard.analyze.problem import Problem, compare
from editguard.core.notebook.model import is_notebook

# Problems an answer shows (the rest are counted): those in the edited files first.
MAX_SHOWN = 30
# The longest line text shown with a problem.
TEXT_CHARS = 300
# Files over this size are not analysed (an analyzer would take longer than the edit).
ANALYSE_LIMIT = 2_000_000
# A notebook's cell edit gives the analyzers its code without its outputs (see
# :mod:`~editguard.analyze.notebook`): its code within ANALYSE_LIMIT, its JSON within this.
NOTEBOOK_LIMIT = 20_000_000


@dataclass(frozen=True, slots=True)
class Shown:
    """A problem as an answer shows it: with the text of its line (``N│text``)."""

    problem: Problem
    text: str


@dataclass(slots=True)
class Verdict:
    """What the analyzers said of a call's edits."""

    problems: list[Shown] = field(default_factory=list)
    fixed: int = 0
    omitted: int = 0
    pending: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    analysed: bool = False  # some analyzer accepted some file


@dataclass(slots=True)
class _Waiting:
    """An analysis the answer did not wait for, kept for :meth:`Analysis.diagnostics`."""

    analyzer: str
    future: Future[Findings]
    edits: tuple[Edit, ...]
    versions: dict[str, str]  # real path -> hash of the text after the edit


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class Analysis:
    """The analyzers of a workspace, kept for its lifetime (language servers stay warm).

    ``budget``: how many seconds an answer waits for the analyzers after the write.
    """

    def __init__(self, analyzers: Sequence[Analyzer], *, budget: float = 2.0) -> None:
        self.analyzers = tuple(analyzers)
        self.budget = budget
        self._pool = ThreadPoolExecutor(
            max_workers=max(2, len(self.analyzers) * 2), thread_name_prefix="editguard-analyze"
        )
        self._waiting: list[_Waiting] = []
        self._lock = threading.Lock()
        self._closed = False

    @property
    def names(self) -> list[str]:
        """The analyzers' names."""
        return [a.name for a in self.analyzers]

    def accepts(self, real: str) -> bool:
        """Whether any analyzer checks this file."""
        return any(a.accepts(real) for a in self.analyzers)

    @staticmethod
    def takes(real: str, size: int, *, code_only: bool = False) -> bool:
        """Whether a file of this many characters is analysed at all (a larger one is not,
        and nobody needs its edited text for an analyzer). ``code_only``: a notebook whose
        code alone is given, by a cell edit (its edited JSON is never made for the analyzers:
        NOTEBOOK_LIMIT); any other change of a file, a notebook's too, gives its whole texts
        before and after (ANALYSE_LIMIT)."""
        return size <= (NOTEBOOK_LIMIT if code_only and is_notebook(real) else ANALYSE_LIMIT)

    def after(
        self,
        edits: Sequence[Edit],
        roots: Sequence[str],
        *,
        written: bool,
        read: Callable[[str], str | None] = lambda _real: None,
    ) -> Verdict:
        """The problems ``edits`` introduced (see the module docstring); ``read`` gives the
        text of another file (its problems' lines), through the sandbox. Never raises for an
        analyzer's failure: a note says it."""
        verdict = Verdict()
        originals = {e.real: e.after for e in edits}
        edits = [e for e in map(_analysed, edits) if e is not None]
        if self._closed or not edits:
            return verdict
        deadline = time.monotonic() + self.budget
        runs: list[tuple[Analyzer, Job, Future[Findings]]] = []
        for analyzer in self.analyzers:
            by_project: dict[str, list[Edit]] = {}
            for e in edits:
                if not analyzer.accepts(e.real):
                    continue
                project = project_of(e.real, roots)
                if project is not None:
                    by_project.setdefault(project, []).append(e)
            for project, mine in by_project.items():
                job = Job(project, tuple(mine), written, deadline, tuple(roots))
                runs.append((analyzer, job, self._pool.submit(_safely(analyzer), job)))
        if not runs:
            return verdict
        verdict.analysed = True
        problems: list[Problem] = []
        texts = {e.real: e.after for e in edits}
        for analyzer, job, future in runs:
            left = deadline - time.monotonic()
            try:
                findings = future.result(timeout=max(left, 0.0))
            except TimeoutError:
                if analyzer.name not in verdict.pending:
                    verdict.pending.append(analyzer.name)
                self._keep(analyzer.name, future, job.edits, originals)
                continue
            new, fixed = introduced(findings, job.edits, read)
            problems.extend(new)
            verdict.fixed += len(fixed)
            verdict.notes.extend(findings.notes)
        problems = [p for p in problems if project_of(p.path, roots) is not None]
        verdict.problems, verdict.omitted = shown(problems, texts, read)
        return verdict

    def _keep(
        self,
        name: str,
        future: Future[Findings],
        edits: tuple[Edit, ...],
        originals: dict[str, str | None],
    ) -> None:
        """Keep a pending analysis of ``edits`` (``originals``: each file's text after the
        edit, as on disk; a notebook's edit holds its code only)."""
        versions = {e.real: _digest(t) for e in edits if (t := originals.get(e.real)) is not None}
        with self._lock:
            self._waiting.append(_Waiting(name, future, edits, versions))
            del self._waiting[:-64]  # the newest are enough

    def diagnostics(
        self,
        reals: Sequence[str],
        roots: Sequence[str],
        read: Callable[[str], str | None],
        *,
        folders: Sequence[str] = (),
    ) -> tuple[Verdict, Verdict]:
        """The problems of these files, or of everything under ``folders``, as they are on
        disk now, and the problems that pending analyses of earlier edits (of these files;
        for folders, of any) found, where those files are still as the edits left them
        (``read`` gives a file's text now).

        Returns:
            (current, introduced): each one's ``pending`` names analyses still running.
        """
        deadline = time.monotonic() + self.budget
        introduced_now = self._finished(reals, roots, read, deadline)
        current = Verdict()
        projects: dict[str, list[str]] = {folder: [] for folder in folders}
        for real in reals:
            project = project_of(real, roots)
            if project is not None:
                projects.setdefault(project, []).append(real)
        runs: list[tuple[Analyzer, Future[Findings]]] = []
        for analyzer in self.analyzers:
            for project, files in projects.items():
                mine = [r for r in files if analyzer.accepts(r)]
                if files and not mine:
                    continue
                runs.append((analyzer, self._pool.submit(analyzer.current, project, mine)))
        problems: list[Problem] = []
        for analyzer, future in runs:
            current.analysed = True
            try:
                findings = future.result(timeout=max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                if analyzer.name not in current.pending:
                    current.pending.append(analyzer.name)
                continue
            except Exception as exc:  # noqa: BLE001 - an analyzer's bug is a note, not a failure
                current.notes.append(f"{analyzer.name}: failed ({exc})")
                continue
            current.notes.extend(findings.notes)
            for found in findings.after.values():
                problems.extend(found)
        problems = [p for p in problems if project_of(p.path, roots) is not None]
        current.problems, current.omitted = shown(problems, {}, read)
        return current, introduced_now

    def _finished(
        self,
        reals: Sequence[str],
        roots: Sequence[str],
        read: Callable[[str], str | None],
        deadline: float,
    ) -> Verdict:
        """What pending analyses of earlier edits (of these files; none: of any) found, once
        done; dropped where a file changed since (its current problems say the rest)."""
        out = Verdict()
        with self._lock:
            waiting = [w for w in self._waiting if not reals or any(r in w.versions for r in reals)]
        problems: list[Problem] = []
        texts: dict[str, str | None] = {}
        for w in waiting:
            try:
                findings = w.future.result(timeout=max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                if w.analyzer not in out.pending:
                    out.pending.append(w.analyzer)
                continue
            except Exception:  # noqa: BLE001 - _safely already turned failures into notes
                findings = Findings()
            with self._lock, contextlib.suppress(ValueError):
                self._waiting.remove(w)
            now = {real: read(real) for real in w.versions}
            if any(t is None or _digest(t) != w.versions[r] for r, t in now.items()):
                out.notes.append(
                    f"{w.analyzer}: an earlier edit's problems are left out: the file changed since"
                )
                continue
            out.analysed = True
            new, fixed = introduced(findings, w.edits, read)
            problems.extend(new)
            out.fixed += len(fixed)
            out.notes.extend(findings.notes)
            texts.update(now)
        problems = [p for p in problems if project_of(p.path, roots) is not None]
        out.problems, out.omitted = shown(problems, texts, read)
        return out

    def warm(self, roots: Sequence[str]) -> None:
        """Start, in the background, what the analyzers keep running for each root (a
        long-lived process calls this once it serves)."""
        if self._closed:
            return
        for analyzer in self.analyzers:
            for root in roots:
                self._pool.submit(_quietly, analyzer.warm, root)

    def close(self) -> None:
        """Stop every analyzer (language servers) and the workers."""
        self._closed = True
        for analyzer in self.analyzers:
            with contextlib.suppress(Exception):
                analyzer.close()
        self._pool.shutdown(wait=False, cancel_futures=True)


def _quietly(warm: Callable[[str], None], root: str) -> None:
    with contextlib.suppress(Exception):
        warm(root)


def _small(edit: Edit) -> bool:
    return all(t is None or len(t) <= ANALYSE_LIMIT for t in (edit.before, edit.after))


def _analysed(edit: Edit) -> Edit | None:
    """The edit as the analyzers are given it: a large notebook's texts without their outputs
    (see :mod:`~editguard.analyze.notebook`; a cell edit's come so already); ``None``: too
    large to analyse."""
    if is_notebook(edit.real):
        if any(t is not None and len(t) > NOTEBOOK_LIMIT for t in (edit.before, edit.after)):
            return None
        edit = Edit(edit.real, _slim(edit.before), _slim(edit.after))
    return edit if _small(edit) else None


def _slim(text: str | None) -> str | None:
    """A notebook's text as analysed: as it is when small enough (ruff reads its outputs
    past), else without them."""
    return lean(text) if text is not None and len(text) > ANALYSE_LIMIT else text


def _safely(analyzer: Analyzer) -> Callable[[Job], Findings]:
    def run(job: Job) -> Findings:
        try:
            return analyzer.compare(job)
        except Exception as exc:  # noqa: BLE001 - an analyzer's bug never fails an edit
            return Findings(notes=[f"{analyzer.name}: failed ({type(exc).__name__}: {exc})"])

    return run


def introduced(
    findings: Findings, edits: Sequence[Edit], read: Callable[[str], str | None]
) -> tuple[list[Problem], list[Problem]]:
    """The problems an analyzer's findings show the edits introduced and removed, in the
    edited files (compared with their texts) and in the others it checked (unchanged texts,
    as ``read`` gives them)."""
    texts = {e.real: (e.before, e.after) for e in edits}
    new: list[Problem] = []
    fixed: list[Problem] = []
    for real in findings.before.keys() | findings.after.keys():
        if real in texts:
            old, now = texts[real]
        else:  # another file: its text on disk, the same before and after
            old = now = read(real) or ""
        same = compare_cells if is_notebook(real) else compare
        n, f = same(findings.before.get(real, []), findings.after.get(real, []), old, now)
        new.extend(n)
        fixed.extend(f)
    return new, fixed


def shown(
    problems: list[Problem], texts: dict[str, str | None], read: Callable[[str], str | None]
) -> tuple[list[Shown], int]:
    """The problems to show (the edited files' first, then by path, cell and line) with their
    lines' text (``texts``, else as ``read`` gives it; in a notebook, the line within its cell,
    and the cell's id), and how many more there are."""
    problems = sorted(
        set(problems),
        key=lambda p: (
            p.path not in texts,
            p.path,
            -1 if p.cell is None else p.cell,
            p.line,
            p.column,
            p.code,
        ),
    )
    lines: dict[str, list[str]] = {}
    cells: dict[str, list[CellCode] | None] = {}
    out = []
    for found in problems[:MAX_SHOWN]:
        p = found
        if p.path not in lines:
            text = texts.get(p.path)
            if text is None:
                text = read(p.path)
            notebook = text is not None and p.cell is not None and is_notebook(p.path)
            cells[p.path] = cells_of(text) if notebook else None
            lines[p.path] = text.split("\n") if text is not None and not notebook else []
        if p.cell is not None and cells[p.path] is not None:
            p, line = with_id(cells[p.path], p), cell_line(cells[p.path], p)
        else:
            body = lines[p.path]
            line = body[p.line - 1] if 0 < p.line <= len(body) else ""
        out.append(Shown(p, f"{p.line}│{line.rstrip(chr(13))[:TEXT_CHARS]}"))
    return out, max(0, len(problems) - MAX_SHOWN)

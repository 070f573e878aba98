"""What an analyzer is, and what it is given: the files a call changed, with their texts before
and after, and the project folder they belong to.

An analyzer never sees a copy of a file in a temporary folder: it checks each text as the file at
its real path, in its project (the project's configuration applies, its imports resolve). Texts
that are not on disk (a dry run's) reach it through stdin or a language server's open document.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from editguard.analyze.problem import Problem

# What marks the top folder of a project, nearest first.
PROJECT_MARKERS = (
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "ruff.toml",
    ".ruff.toml",
    "pyrightconfig.json",
    "tsconfig.json",
    "jsconfig.json",
    "package.json",
    "go.mod",
    "Cargo.toml",
    ".git",
)


@dataclass(frozen=True, slots=True)
class Edit:
    """One file a call changed: its text before (``None``: it was created) and after
    (``None``: it was deleted)."""

    real: str
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class Job:
    """What an analyzer compares: the edits of one call, in one project.

    ``written``: the after texts are on disk (else they are a dry run's, known only here).
    ``deadline``: a :func:`time.monotonic` time after which nobody waits for the answer (the
    analyzer may go on, for the ``diagnostics`` tool; it must still stop at its own timeout).
    """

    project: str
    edits: tuple[Edit, ...]
    written: bool
    deadline: float
    roots: tuple[str, ...] = ()


@dataclass(slots=True)
class Findings:
    """An analyzer's problems in each file it checked, before the change and after it. Files
    the change did not edit (the ones that use it) are in both, with their texts on disk."""

    before: dict[str, list[Problem]] = field(default_factory=dict)
    after: dict[str, list[Problem]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class Analyzer(ABC):
    """One analyzer. ``fast`` ones (a linter run once per text) run in every call, one-shot
    commands included; the others (language servers, kept warm by a long-lived process) run
    where a process lives long enough, or when asked."""

    name: str = ""
    fast: bool = False

    @abstractmethod
    def accepts(self, real: str) -> bool:
        """Whether this analyzer checks the file at ``real``."""

    @abstractmethod
    def compare(self, job: Job) -> Findings:
        """The problems of the job's files before and after its edits. Blocking; runs in a
        worker thread. Must not raise for the analyzer's own failures (a crash, a timeout):
        a note says what went wrong."""

    @abstractmethod
    def current(self, project: str, reals: Sequence[str]) -> Findings:
        """The problems of these files as they are on disk now (in ``after``; ``reals`` empty:
        the whole project, as far as this analyzer can tell cheaply)."""

    def warm(self, project: str) -> None:  # noqa: B027 - most analyzers have nothing to warm
        """Start what the analyzer keeps running for ``project`` (a language server), so that
        the first edit does not wait for it. Called in a worker thread of a long-lived
        process; never raises."""

    def close(self) -> None:  # noqa: B027 - most analyzers hold nothing
        """Stop what the analyzer keeps running (a language server)."""


def project_of(real: str, roots: Sequence[str]) -> str | None:
    """The project folder of a file: its nearest folder, inside the root that holds it, with
    a project marker (pyproject.toml, tsconfig.json, .git, ...), else that root; ``None`` for
    a file in no root."""
    holder = None
    for root in roots:
        inside = real == root or real.startswith(root.rstrip(os.sep) + os.sep)
        if inside and (holder is None or len(root) > len(holder)):
            holder = root
    if holder is None:
        return None
    folder = os.path.dirname(real)
    while True:
        if any(os.path.lexists(os.path.join(folder, m)) for m in PROJECT_MARKERS):
            return folder
        if folder == holder or len(folder) <= len(holder):
            return holder
        folder = os.path.dirname(folder)


# Bytes of a file an analyzer reads to tell a language server of it; a larger file is not read.
SOURCE_LIMIT = 4 * 1024 * 1024


def read_source(real: str, limit: int = SOURCE_LIMIT) -> str | None:
    """A file's text as a language server reads it (UTF-8, without a byte order mark, bad bytes
    replaced); ``None`` for a file that cannot be read or is over ``limit`` bytes."""
    try:
        with open(real, "rb") as f:
            data = f.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return data.decode("utf-8-sig", "replace")

"""The configuration of a workspace, said once: the allowed folders, the limits, the linters, the
journal and the history, each with its default and its meaning.

:class:`~editguard.Workspace` takes these as its keywords, the command line builds one from its
flags, and :func:`editguard.tools._context.open_context` turns one into the context the tools run
in. This module imports nothing at run time, so that the command line's ``--help`` can show the
defaults without loading anything else.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from editguard.analyze import Analyzer
    from editguard.fs.journal import Journal
    from editguard.fs.lock import FileLocks
    from editguard.history import History
    from editguard.validate import Linter


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """How a workspace reads and writes.

    Attributes:
        roots: the folders that may be read and written (default: the current directory).
            Relative paths start at the first one.
        max_file_bytes: files larger than this are refused with FILE_TOO_LARGE.
        max_edits: requests with more edits are refused with TOO_MANY_EDITS.
        read_lines: how many lines read_file shows when no end_line is given.
        locks: the per-file locks that writers hold (default: shared by every Workspace, and
            across processes through lock files).
        linters: external linters to run on a temporary copy of each edited file (names of
            known ones, e.g. ``"ruff"``, or :class:`~editguard.validate.Linter` objects); their
            introduced findings are warnings unless the linter is blocking.
        prewarm: parse a source file in a background thread after it is read or written, so
            that the next edit finds its symbols and parse tree cached (a long-lived process
            wants this; a one-shot command does not).
        max_argument_bytes: any one argument (a text, a path) larger than this is refused
            with INVALID_REQUEST before any work.
        max_request_bytes: the same for all of a call's arguments together.
        exact: turn the match ladder off for every call: an old text must be in the file
            exactly (by default, one that differs only in trailing whitespace, typographic
            punctuation, a pasted line-number prefix or a uniform indentation shift is found
            too, and the same correction is applied to its new text).
        journal: the folder of the journal that changes of several files commit through
            (default: ``$EDITGUARD_JOURNAL``, else ``~/.local/state/editguard/journal``). A
            change that a crash interrupted is finished or rolled back from it when a
            Workspace starts.
        history: where the history of changes is kept: a folder (default:
            ``$EDITGUARD_HISTORY``, else ``~/.local/state/editguard/history``; one database per
            set of roots), a :class:`~editguard.history.History`, or ``False`` to record
            nothing (``undo`` and ``history`` then answer CHANGE_NOT_FOUND).
        history_entries, history_bytes: how much the history keeps (the oldest entries go
            first; History's own defaults).
        analyzers: what finds the problems an edit introduced, reported in every writing
            tool's result (names of known analyzers, e.g. ``"ruff"``, ``"basedpyright"``,
            ``"typescript"``, or :class:`~editguard.analyze.Analyzer` objects; empty: none).
            Default: the ones that come with editguard and are installed.
        analysis_budget: how many seconds a writing call's answer waits for the analyzers
            after the write; those still working are named in ``problems_pending`` and the
            ``diagnostics`` tool gives their findings when ready.
        format: format the lines each writing call wrote with the project's formatter, unless
            the call says ``format: false`` (a call may always ask with ``format: true``).
        formatters: the formatters editguard may run: ``"ruff"``, ``"black"``, ``"gofmt"``,
            ``"rustfmt"`` (the default: programs that come with editguard or are on the PATH
            outside the roots) and ``"prettier"``, the project's own ``node_modules`` copy,
            which runs only when named here (it and the plugins its configuration names are
            the project's code).
    """

    # The fields are Workspace's keywords in its order; tests/test_api.py holds the two equal.
    roots: Iterable[str | os.PathLike[str]] = (".",)
    max_file_bytes: int = 100 * 1024 * 1024
    max_edits: int = 1000
    read_lines: int = 2000
    locks: FileLocks | None = None
    linters: Iterable[Linter | str] = ()
    prewarm: bool = True
    max_argument_bytes: int = 10_000_000
    max_request_bytes: int = 20_000_000
    exact: bool = False
    journal: str | os.PathLike[str] | Journal | None = None
    history: str | os.PathLike[str] | History | bool | None = None
    history_entries: int = 10_000
    history_bytes: int = 256 * 1024 * 1024
    analyzers: Iterable[Analyzer | str] | None = None
    analysis_budget: float = 2.0
    format: bool = False
    formatters: Iterable[str] | None = None

    def __post_init__(self) -> None:
        # Any iterable is taken; a tuple is kept, so that a Config can be read more than once.
        object.__setattr__(self, "roots", tuple(self.roots))
        object.__setattr__(self, "linters", tuple(self.linters))
        if self.analyzers is not None:
            object.__setattr__(self, "analyzers", tuple(self.analyzers))
        if self.formatters is not None:
            object.__setattr__(self, "formatters", tuple(self.formatters))

"""The configuration every tool works within: the sandbox, the writers' locks, the limits, the
linters, the journal and the history.

A :class:`Context` is configuration only, made once (:func:`editguard.tools._context.open_context`)
and shared by every call: what one call is doing lives in its
:class:`~editguard.transaction.Transaction`, never here.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from editguard.fs.journal import Journal
from editguard.fs.lock import FileLocks
from editguard.fs.sandbox import Sandbox
from editguard.history import History

if TYPE_CHECKING:
    from editguard.analyze import Analysis
    from editguard.validate import Linter


@dataclasses.dataclass(frozen=True, slots=True)
class Context:
    """What every tool works within: the sandbox, the writers' locks, the limits, the linters."""

    sandbox: Sandbox
    locks: FileLocks
    linters: tuple[Linter, ...]
    max_file_bytes: int
    max_edits: int
    read_lines: int
    prewarm: bool
    max_argument_bytes: int
    max_request_bytes: int
    exact: bool = False  # no tolerance ladder: text must match exactly (core.seek)
    journal: Journal = dataclasses.field(default_factory=Journal)  # multi-file commits
    history: History | None = None  # where committed changes are recorded (None: nowhere)
    # Who asked (history records it): an MCP client's name and version, "cli", "python".
    client: str = "python"
    # The analyzers that report the problems an edit introduced (None: none), kept warm for
    # the workspace's lifetime and shared by every context made from it.
    analysis: Analysis | None = None
    analysis_budget: float = 2.0
    # Writing calls format the lines they wrote unless they say otherwise (their ``format``),
    # with the formatters named here (None: those editguard runs by default, see analyze.format).
    format: bool = False
    formatters: tuple[str, ...] | None = None

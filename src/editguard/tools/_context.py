"""The :class:`~editguard.transaction.context.Context` every tool runs in, made from a
configuration: the sandbox, the limits, the journal (recovered here) and the history.

The Python API's :class:`~editguard.Workspace` holds one; the command line and the MCP server
make theirs here, so that they import only the tools they run.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from editguard.fs.journal import Journal
from editguard.fs.lock import SHARED, FileLocks
from editguard.fs.sandbox import Sandbox
from editguard.history import History
from editguard.history.store import DEFAULT_BYTES, DEFAULT_ENTRIES
from editguard.history.store import default_folder as default_history_folder
from editguard.transaction.context import Context
from editguard.transaction.settle import settle

if TYPE_CHECKING:
    from editguard.validate import Linter

DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024
DEFAULT_MAX_EDITS = 1000
DEFAULT_READ_LINES = 2000
DEFAULT_MAX_ARGUMENT_BYTES = 10_000_000
DEFAULT_MAX_REQUEST_BYTES = 20_000_000


def open_context(
    roots: Iterable[str | os.PathLike[str]] = (".",),
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_edits: int = DEFAULT_MAX_EDITS,
    read_lines: int = DEFAULT_READ_LINES,
    locks: FileLocks | None = None,
    linters: Iterable[Linter | str] = (),
    prewarm: bool = True,
    max_argument_bytes: int = DEFAULT_MAX_ARGUMENT_BYTES,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    exact: bool = False,
    journal: str | os.PathLike[str] | Journal | None = None,
    history: str | os.PathLike[str] | History | bool | None = None,
    history_entries: int = DEFAULT_ENTRIES,
    history_bytes: int = DEFAULT_BYTES,
) -> Context:
    """The context for these roots and limits (see :class:`~editguard.Workspace` for each
    argument), after a change a crash interrupted is finished or rolled back.

    Raises:
        ValueError: a root that is not a folder, or an unknown linter.
    """
    if not isinstance(journal, Journal):
        journal = Journal(os.fspath(journal) if journal is not None else None)
    locks = locks or SHARED
    folder = None  # of the history, when it is made here
    if isinstance(history, History):
        state = [history.folder]
    elif history is False:
        state = []
    else:
        folder = None if history is None or history is True else os.path.abspath(history)
        state = [folder or default_history_folder()]
    # editguard's own state is out of every tool's reach, whatever the roots.
    sandbox = Sandbox(roots, private=[journal.folder, locks.folder, *state])
    if not isinstance(history, History) and history is not False:
        history = History(
            sandbox.roots, folder, max_entries=history_entries, max_bytes=history_bytes
        )
    linters = tuple(linters)
    if any(isinstance(x, str) for x in linters):
        from editguard.validate.linters import linter_named  # noqa: PLC0415 - only when asked

        linters = tuple(linter_named(x) if isinstance(x, str) else x for x in linters)
    context = Context(
        sandbox=sandbox,
        locks=locks,
        linters=linters,  # type: ignore[arg-type]  # names were turned into linters above
        max_file_bytes=max_file_bytes,
        max_edits=max_edits,
        read_lines=read_lines,
        prewarm=prewarm,
        max_argument_bytes=max_argument_bytes,
        max_request_bytes=max_request_bytes,
        exact=exact,
        journal=journal,
        history=history or None,
    )
    journal.recover(context.locks)
    settle(context)
    return context


def with_roots(ctx: Context, roots: Iterable[str | os.PathLike[str]]) -> Context:
    """The same context (limits, locks, linters, journal, history folder) with other roots."""
    context = open_context(
        roots,
        max_file_bytes=ctx.max_file_bytes,
        max_edits=ctx.max_edits,
        read_lines=ctx.read_lines,
        locks=ctx.locks,
        linters=ctx.linters,
        prewarm=ctx.prewarm,
        max_argument_bytes=ctx.max_argument_bytes,
        max_request_bytes=ctx.max_request_bytes,
        exact=ctx.exact,
        journal=ctx.journal,
        history=False if ctx.history is None else ctx.history.folder,
        history_entries=ctx.history.max_entries if ctx.history else DEFAULT_ENTRIES,
        history_bytes=ctx.history.max_bytes if ctx.history else DEFAULT_BYTES,
    )
    return dataclasses.replace(context, client=ctx.client)

"""The :class:`~editguard.transaction.context.Context` every tool runs in, made from a
:class:`~editguard.config.Config`: the sandbox, the limits, the journal (recovered here) and the
history. The settings a Context keeps as they are pass over by name, so no keyword is listed here.

The Python API's :class:`~editguard.Workspace` holds one; the command line and the MCP server
make theirs here, so that they import only the tools they run.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable

from editguard.config import Config
from editguard.fs.journal import Journal
from editguard.fs.lock import SHARED
from editguard.fs.sandbox import Sandbox
from editguard.history import History
from editguard.history.store import default_folder as default_history_folder
from editguard.transaction.context import Context
from editguard.transaction.settle import settle

# The settings a Context holds as a Config says them; the others are converted below.
_CONVERTED = {
    "roots",
    "locks",
    "linters",
    "journal",
    "history",
    "history_entries",
    "history_bytes",
    "analyzers",
}
_AS_IS = {f.name for f in dataclasses.fields(Config)} - _CONVERTED


def open_context(config: Config) -> Context:
    """The context a configuration describes, after a change a crash interrupted is finished or
    rolled back.

    Raises:
        ValueError: a root that is not a folder, or an unknown linter.
    """
    journal = config.journal
    if not isinstance(journal, Journal):
        journal = Journal(os.fspath(journal) if journal is not None else None)
    locks = config.locks or SHARED
    history = config.history
    folder = None  # of the history, when it is made here
    if isinstance(history, History):
        state = [history.folder]
    elif history is False:
        state = []
    else:
        folder = None if history is None or history is True else os.path.abspath(history)
        state = [folder or default_history_folder()]
    # editguard's own state is out of every tool's reach, whatever the roots.
    sandbox = Sandbox(config.roots, private=[journal.folder, locks.folder, *state])
    if not isinstance(history, History) and history is not False:
        history = History(
            sandbox.roots,
            folder,
            max_entries=config.history_entries,
            max_bytes=config.history_bytes,
        )
    linters = tuple(config.linters)
    if any(isinstance(x, str) for x in linters):
        from editguard.validate.linters import linter_named  # noqa: PLC0415 - only when asked

        linters = tuple(linter_named(x) if isinstance(x, str) else x for x in linters)
    from editguard.analyze import DEFAULT, open_analysis  # noqa: PLC0415 - light, no analyzer runs

    analyzers = DEFAULT if config.analyzers is None else config.analyzers
    if config.formatters is not None:
        from editguard.analyze.format import KNOWN  # noqa: PLC0415 - only when asked

        unknown = [name for name in config.formatters if name not in KNOWN]
        if unknown:
            raise ValueError(f"unknown formatter {unknown[0]!r}; the formatters are {KNOWN}")
    context = Context(
        analysis=open_analysis(analyzers, budget=config.analysis_budget),
        sandbox=sandbox,
        locks=locks,
        linters=linters,  # type: ignore[arg-type]  # names were turned into linters above
        journal=journal,
        history=history or None,
        **{name: getattr(config, name) for name in _AS_IS},
    )
    journal.recover(context.locks)
    settle(context)
    return context


def with_roots(ctx: Context, roots: Iterable[str | os.PathLike[str]]) -> Context:
    """The same context (limits, locks, linters, journal, history folder) with other roots."""
    kept = {name: getattr(ctx, name) for name in _AS_IS}
    if ctx.history is not None:
        kept.update(history_entries=ctx.history.max_entries, history_bytes=ctx.history.max_bytes)
    config = Config(
        roots=roots,
        locks=ctx.locks,
        linters=ctx.linters,
        journal=ctx.journal,
        history=False if ctx.history is None else ctx.history.folder,
        analyzers=(),
        **kept,
    )
    # The analyzers (and the language servers they keep warm) are the workspace's, shared.
    return dataclasses.replace(open_context(config), client=ctx.client, analysis=ctx.analysis)

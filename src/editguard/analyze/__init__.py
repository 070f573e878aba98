"""Problems after an edit: real analyzers (ruff, language servers) with the project's own
context and configuration, kept warm by a long-lived process; only the problems an edit
introduced are reported (see :mod:`~editguard.analyze.engine`).

Which programs run: those that come with editguard (ruff; basedpyright and the Node.js it
brings, when installed) and those the user configures (a language server's command). The
project's own tools inside the roots (its ``node_modules/typescript``) run only when the user
turns on the analyzer that uses them. Nothing in a project's files names a program that
editguard runs.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable

from editguard.analyze.base import Analyzer, Edit, Findings, Job, project_of
from editguard.analyze.engine import Analysis, Shown, Verdict
from editguard.analyze.language_server import LanguageServer, parse_language_server
from editguard.analyze.problem import Problem

__all__ = [
    "DEFAULT",
    "KNOWN",
    "SERVED",
    "Analysis",
    "Analyzer",
    "Edit",
    "Findings",
    "Job",
    "LanguageServer",
    "Problem",
    "Shown",
    "Verdict",
    "analyzer_named",
    "open_analysis",
    "parse_language_server",
    "project_of",
]


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# The analyzers known by name: module and class, imported when first used.
KNOWN: dict[str, str] = {
    "ruff": "editguard.analyze.ruff:Ruff",
    "basedpyright": "editguard.analyze.pyright:BasedPyright",
    "typescript": "editguard.analyze.typescript:TypeScript",
}

# What a Workspace and a one-shot command run when not told: the fast analyzer that comes with
# editguard. A Python object has no lifetime editguard controls, so it starts no language server
# unless asked (``analyzers=["ruff", "basedpyright"]``, then ``close()`` it).
DEFAULT: tuple[str, ...] = ("ruff",)

# What ``editguard serve`` runs when not told: every analyzer that comes with editguard and is
# installed (basedpyright with the ``types`` extra), kept warm for the server's lifetime.
SERVED: tuple[str, ...] = ("ruff", "basedpyright") if _installed("basedpyright") else DEFAULT


def analyzer_named(name: str) -> Analyzer:
    """A new analyzer of a known name.

    Raises:
        ValueError: no analyzer of that name is known.
    """
    try:
        where = KNOWN[name]
    except KeyError:
        raise ValueError(f"unknown analyzer {name!r}; known: {', '.join(sorted(KNOWN))}") from None
    module, _, cls = where.partition(":")
    made: Analyzer = getattr(importlib.import_module(module), cls)()
    return made


def open_analysis(
    analyzers: Iterable[Analyzer | str], *, budget: float, fast_only: bool = False
) -> Analysis | None:
    """The analysis of these analyzers (names or objects); with ``fast_only``, the fast ones
    only (a one-shot command). ``None`` when there is none."""
    made = [analyzer_named(a) if isinstance(a, str) else a for a in analyzers]
    if fast_only:
        made = [a for a in made if a.fast]
    return Analysis(made, budget=budget) if made else None

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

# What a workspace runs when not told: the ones that come with editguard (basedpyright where the
# ``types`` extra installed it; a one-shot command runs only the fast ones).
DEFAULT: tuple[str, ...] = ("ruff", "basedpyright") if _installed("basedpyright") else ("ruff",)


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

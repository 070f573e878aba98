"""Validation of the new text before anything is written: the syntax guard, the strict parsers
of Python, JSON, TOML and YAML, and optional external linters. Only problems an edit introduces
count."""

from __future__ import annotations

from editguard.core.plan import Plan
from editguard.languages import ParseTimeout
from editguard.validate.linters import Linter, lint_findings
from editguard.validate.report import Finding, Report
from editguard.validate.syntax import syntax_findings

__all__ = ["Finding", "Linter", "Report", "validate"]


def validate(name: str, old: str, new: str, plan: Plan, linters: tuple[Linter, ...] = ()) -> Report:
    """Check ``new`` (``old`` after ``plan``) for problems the edit introduced."""
    if old == new:
        return Report()
    skipped: list[str] = []
    try:
        findings = syntax_findings(name, old, new, plan)
    except ParseTimeout as exc:
        findings, skipped = [], [f"syntax check skipped: {exc}"]
    except (RecursionError, MemoryError):
        # Python's compiler, json and tomllib give up on code nested a thousand levels deep.
        findings = []
        skipped = ["syntax check skipped: the file is nested too deeply for the parser"]
    linted, notes = lint_findings(linters, name, old, new) if linters else ([], [])
    return Report(tuple(findings + linted), tuple(skipped + notes))

"""Validation of the new text before anything is written: the syntax guard, the strict parsers
of Python, JSON, TOML and YAML, and optional external linters. Only problems an edit introduces
count."""

from __future__ import annotations

from collections.abc import Callable

from editguard.core.plan import Plan
from editguard.languages import ParseTimeout
from editguard.validate.linters import Linter, lint_findings
from editguard.validate.report import Finding, Report
from editguard.validate.syntax import syntax_findings

__all__ = ["Finding", "Linter", "Report", "validate"]


def validate(
    name: str,
    old: str,
    new: str,
    plan: Plan,
    linters: tuple[Linter, ...] = (),
    check: Callable[[str], tuple[Finding, ...]] | None = None,
) -> Report:
    """Check ``new`` (``old`` after ``plan``) for problems the edit introduced.

    ``check`` is the tool's own check of ``new`` (edit_symbol's structure check). It runs only
    when the syntax guard accepts the new text: code that does not parse has no structure to
    check, and each of its symbols would be reported missing for the one syntax error.
    """
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
    own = check(new) if check is not None and not any(f.blocking for f in findings) else ()
    return Report((*findings, *linted, *own), tuple(skipped + notes))

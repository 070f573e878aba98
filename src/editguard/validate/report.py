"""What validation reports: each problem found in the new text, and notes on skipped checks."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in the new text: where (1-based line and column), what, and who found it."""

    source: str  # "syntax" (tree-sitter), "python", "json", "toml", "yaml", or a linter's name
    line: int
    column: int
    message: str
    line_text: str
    blocking: bool = True
    code: str | None = None


@dataclass(frozen=True, slots=True)
class Report:
    """What validation found: the findings (blocking or warnings) and notes on skipped checks."""

    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def blocking(self) -> tuple[Finding, ...]:
        """The findings that refuse an edit in strict mode."""
        return tuple(f for f in self.findings if f.blocking)

"""What validation reports: each problem found in the new text, and notes on skipped checks."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from editguard.core.document import line_numbers
from editguard.core.listing import listing
from editguard.core.plan import Plan
from editguard.errors import ValidationFailed


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

    def refusal(self, display: str, new_text: str, plan: Plan) -> ValidationFailed:
        """The VALIDATION_FAILED error of a strict edit with blocking findings: each problem
        with its line, and which lines the edit (``plan``, giving ``new_text``) wrote."""
        blocking = self.blocking
        first, last = _changed_lines(new_text, plan)
        shown = "\n".join(
            f"  line {f.line}, column {f.column} ({f.source}): {f.message}\n  "
            + listing([f.line_text], f.line, width=6)
            for f in blocking[:10]
        )
        more = f"\n  ... and {len(blocking) - 10} more" if len(blocking) > 10 else ""
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        where = f"\nThe edit wrote {span}."
        if all(not first <= f.line <= last for f in blocking):
            where += (
                " None of the problems is there: the edit probably opened or closed a "
                "bracket, block or quote, so the rest of the file now reads differently."
            )
        return ValidationFailed(
            f"the edit would introduce {len(blocking)} problem(s) in {display}; nothing was "
            f"written:\n{shown}{more}{where}",
            path=display,
            data={
                "findings": [dataclasses.asdict(f) for f in self.findings],
                "notes": list(self.notes),
                "changed_lines": [first, last],
            },
            suggestions=[
                "Fix the edit so that the file stays valid (check brackets, quotes and "
                "indentation around the lines above).",
                "If the file is meant to stay invalid for now, send the same call with mode "
                "'interactive' to write it with warnings.",
            ],
        )


def _changed_lines(new: str, plan: Plan) -> tuple[int, int]:
    """The first and last line of ``new`` (the text after ``plan``) that the plan wrote."""
    shift = 0
    spans = []  # where each replacement's text sits in the new text
    for r in plan.replacements:
        spans.append((r.start + shift, r.start + shift + len(r.text)))
        shift += len(r.text) - (r.end - r.start)
    first_pos, end = spans[0][0], spans[-1][1]
    first, last = line_numbers(new, [first_pos, max(first_pos, end - 1)])
    return first, last

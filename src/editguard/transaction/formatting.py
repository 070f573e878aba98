"""The formatting step of a writing call (``format: true``, or a workspace's ``format``): the
project's formatter applied to the lines the edit wrote, after the tool's pure step built its
plan and before validation, so that the syntax guard, the diff, the commit and the history all
see the formatted text as one change.

The formatter's changes are kept to the written lines
(:func:`~editguard.core.written.keep_written`): the lines the edit did not write stay byte for
byte. The document keeps its encoding, BOM and line endings (the formatter sees and returns
``\\n`` text). Formatting never fails an edit: a formatter that is missing, not enabled, fails,
times out or prints something implausible leaves the edit as it was built, with a note; so does
a formatted text the file's encoding cannot hold, or one a check refuses.
Skipped without a word: a file no formatter is meant for, a file that mixes line endings or that
an edit gives its own endings, and (see :mod:`~editguard.transaction.build`) a file read as a
view or over the validation limit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from editguard.analyze.format import format_text, formats
from editguard.core.document import Document, code_of
from editguard.core.listing import listing
from editguard.core.plan import Plan
from editguard.core.written import keep_written, split_lines, then, written_lines
from editguard.errors import EditError
from editguard.fs.sandbox import Resolved
from editguard.transaction.context import Context

# The written lines a result shows after formatting, at most (then how many more there are).
SHOWN_LINES = 200


@dataclasses.dataclass(slots=True)
class Formatting:
    """What formatting did in one transaction: each file's written lines as they now are
    (``shown``, by real path, numbered as read_file numbers them) and why a file was left
    unformatted (``notes``)."""

    shown: dict[str, str] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)

    def plan_for(
        self, ctx: Context, where: Resolved, before: Document, plan: Plan
    ) -> tuple[Plan, Callable[[int], int]] | None:
        """The plan on ``before`` that gives ``plan``'s text formatted, and where a (1-based)
        line of ``plan``'s text is in it; ``None`` where formatting changes nothing or cannot
        run (then noted)."""
        if not formats(where.real) or not plan.changes(before.text):
            return None
        usual = bytes([code_of(before.newline)])
        if before.line_endings is not None or any(
            r.codes is not None and r.codes.strip(usual) for r in plan.replacements
        ):
            return None  # endings of its own, which one plan of new text could not keep
        new = plan.apply_to_text(before.text)
        written = written_lines(before.text, plan)
        done = format_text(where.real, ctx.sandbox.roots, new, written, ctx.formatters)
        if done is None:
            return None
        if done.text is None:
            self.unformatted(where, done.note or f"{done.formatter} failed")
            return None
        kept = keep_written(new, done.text, written)
        if not kept.plan:
            return None
        try:
            for r in kept.plan.replacements:
                before.check_writable(r.text)
        except EditError as exc:
            self.unformatted(where, f"{done.formatter}'s text does not fit the file: {exc.message}")
            return None
        self.shown[where.real] = _show(kept.text, kept.written)
        return then(before.text, plan, kept.plan, kept.text), kept.line_of

    def unformatted(self, where: Resolved, why: str, *, dropped: bool = False) -> None:
        """Note that a file was left as the edit made it, and why; ``dropped``: the text
        :meth:`plan_for` formatted was not used after all, so its lines are not shown."""
        if dropped:
            self.shown.pop(where.real, None)
        self.notes.append(f"{where.display} left unformatted: {why}")


def _show(text: str, written: list[tuple[int, int]]) -> str:
    """The written lines of ``text`` as read_file shows them, one block per range, at most
    :data:`SHOWN_LINES` lines (then how many were left out)."""
    lines = split_lines(text)
    blocks: list[str] = []
    left = SHOWN_LINES
    hidden = 0
    for first, last in written:
        count = last - first + 1
        if left <= 0:
            hidden += count
            continue
        taken = min(count, left)
        rows = [line.removesuffix("\n") for line in lines[first : first + taken]]
        blocks.append(listing(rows, first + 1))
        left -= taken
        hidden += count - taken
    if hidden:
        blocks.append(f"({hidden} more formatted lines: read_file shows them)")
    return "\n".join(blocks)

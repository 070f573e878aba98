"""The elision guard: no plan writes an elision marker (``# ... existing code ...``) over real
code. Pure: a text and a plan in, a refusal or nothing out.

Every writing tool's plan passes :func:`check_plan` before it is staged (build_change). For
each place the plan changes, taken as whole lines (the replacements that touch the same lines
together), the old lines and the new ones are compared: a marker line of the new text that the
old text did not have (:func:`~editguard.core.markers.elisions`; a marker comment the file
already holds in those lines is text) refuses the plan with ELIDED_CONTENT, when the old lines
lose at least one non-blank line. A marker added where nothing is lost (a pure insertion, a new
file, a line kept with a comment beside it) deletes nothing and is written as sent; so is every
marker of a call that passes ``allow_markers``.

Cost: one search for ``...`` or ``…`` in each replacement's new text; only a hit reads the
lines around it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from editguard.core.document import from_view
from editguard.core.listing import listing
from editguard.core.markers import Elision, elisions
from editguard.core.plan import Plan, Replacement
from editguard.errors import ElidedContent

LF = "\n"
# "…" is three characters in a view of a large UTF-8 file (Document.utf8_view).
_ELLIPSIS = re.compile(r"\.\.\.|…|\xe2\x80\xa6")
# A definition's first line, in the usual languages: its name is edit_snippet's symbol.
_DEFINITION = re.compile(
    r"\s*(?:(?:export|default|public|private|protected|static|async|pub|override|final)\s+)*"
    r"(?:def|class|function|fn|func|interface|struct|enum|trait|impl|module)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)
_CLOSERS = ("}", ")", "]", "end")


def check_plan(text: str, plan: Plan, name: str, display: str, *, view: bool = False) -> None:
    """Refuse ``plan`` on ``text`` (a file called ``name``, shown as ``display``; ``view``: a
    view of a UTF-8 file, one character a byte) when it writes an elision marker over lines it
    deletes (see the module docstring).

    Raises:
        ElidedContent: the first such marker: its line in the new file, the marker, how many
            lines of the old text it would delete (first and last shown, numbered).
    """
    reps = plan.replacements
    if not any(_ELLIPSIS.search(r.text) for r in reps):
        return
    i = 0
    while i < len(reps):
        start = text.rfind(LF, 0, reps[i].start) + 1
        j, end = i, _line_end(text, reps[i].end)
        while j + 1 < len(reps) and reps[j + 1].start <= end:
            j += 1
            end = max(end, _line_end(text, reps[j].end))
        group = reps[i : j + 1]
        if any(_ELLIPSIS.search(r.text) for r in group):
            _check_lines(text, reps[:i], group, (start, end, view), name, display)
        i = j + 1


def _line_end(text: str, pos: int) -> int:
    """The end of the line that holds ``pos`` (its line break included), or of the text."""
    if pos > 0 and text[pos - 1] == LF:
        return pos
    brk = text.find(LF, pos)
    return len(text) if brk < 0 else brk + 1


def _check_lines(
    text: str,
    before: Sequence[Replacement],
    group: Sequence[Replacement],
    lines: tuple[int, int, bool],
    name: str,
    display: str,
) -> None:
    """Refuse the replacements of ``group`` on the whole lines ``text[start:end]`` (``lines``:
    start, end, and whether the text is a view) when they write a marker there and lose lines
    (``before``: the plan's replacements above them)."""
    start, end, view = lines
    old = text[start:end]
    pieces, pos = [], start
    for r in group:
        pieces += [text[pos : r.start], r.text]
        pos = r.end
    pieces.append(text[pos:end])
    new = "".join(pieces)
    if view:  # whole lines: every character of them is whole too
        old, new = from_view(old), from_view(new)
    found = elisions(old, new, name)
    if not found:
        return
    old_lines = old.split(LF)
    kept = Counter(line.strip() for line in new.split(LF))
    lost: list[int] = []  # 0-based, within old
    for n, line in enumerate(old_lines):
        key = line.strip()
        if not key:
            continue
        if kept[key] > 0:
            kept[key] -= 1
        else:
            lost.append(n)
    if not lost:
        return
    first_old = text.count(LF, 0, start) + 1
    shift = sum(r.text.count(LF) - text.count(LF, r.start, r.end) for r in before)
    raise _refusal(found, first_old, shift, old_lines, lost, new, display)


def _refusal(
    found: list[Elision],
    first_old: int,
    shift: int,
    old_lines: list[str],
    lost: list[int],
    new: str,
    display: str,
) -> ElidedContent:
    """ELIDED_CONTENT for the markers ``found`` (lines of ``new``, the new text of the old
    lines from ``first_old`` on, ``shift`` lines further down in the new file) that would delete
    the old lines ``lost``."""
    mark = found[0]
    line = first_old + shift + mark.line - 1
    a, b = lost[0], lost[-1]
    shown = listing([_short(old_lines[a])], first_old + a)
    if b != a:
        gap = " ... " if b > a + 1 else " "
        shown = f"{shown}{gap}{listing([_short(old_lines[b])], first_old + b)}"
    symbol = _symbol(new)
    target = f"path: {display!r}" + (f", symbol: {symbol!r}" if symbol else "")
    data: dict[str, object] = {
        "line": line,
        "marker": mark.text.strip(),
        "replaced_lines": len(lost),
        "replaced_from": first_old + a,
        "replaced_to": first_old + b,
    }
    if len(found) > 1:
        data["markers"] = [first_old + shift + f.line - 1 for f in found]
    if symbol:
        data["symbol"] = symbol
    count = f"{len(lost)} line{'s' if len(lost) != 1 else ''}"
    return ElidedContent(
        f"line {line} of {display} as edited would be the elision marker "
        f"{mark.text.strip()!r}: written as sent, it would replace {count} of the old text "
        f"({shown}) with this comment; nothing was written",
        path=display,
        data=data,
        suggestions=[
            f"Send the same snippet to edit_snippet ({target}): it keeps the lines each marker "
            "stands for.",
            "Or write those lines out in full; if the file should really hold this comment, "
            "pass allow_markers: true.",
        ],
    )


def _short(line: str, limit: int = 80) -> str:
    return line if len(line) <= limit else f"{line[:limit]}..."


def _symbol(new: str) -> str | None:
    """The name of the definition the new lines hold, if they look like one definition: its
    first line, then only lines indented further or that close it (``}``, ``end``)."""
    lines = [line for line in new.split(LF) if line.strip()]
    if not lines:
        return None
    hit = _DEFINITION.match(lines[0])
    if hit is None:
        return None
    indent = _indent(lines[0])
    for line in lines[1:]:
        if _indent(line) <= indent and not line.strip().startswith(_CLOSERS):
            return None
    return hit.group(1)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())

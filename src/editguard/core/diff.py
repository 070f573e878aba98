"""A unified diff rendered from a plan: only the changed lines and their context are compared,
never the two whole texts, so the diff of one line in a 10 MB file costs about one line."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable

from editguard.core.delta import spans
from editguard.core.document import LF
from editguard.core.plan import Plan

CONTEXT = 3
# Past this many line pairs (after the equal lines at both ends, and for the whole diff), the
# middle of a group is shown as one replaced block: difflib's matcher is quadratic or worse
# (4,000 alternating lines took minutes).
_MATCH_BUDGET = 250_000
_NO_NEWLINE = "\\ No newline at end of file"


LINE_CHARS = 2000  # a longer line of the diff is cut, and says how much is left out
DIFF_BYTES = 200_000  # past this size (as JSON, escapes included) the diff stops


class _Capped(list[str]):
    """Lines kept up to a cap (of lines, and of size as JSON text); past it, only counted."""

    def __init__(self, cap: int | None, shown: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.cap, self.dropped, self.size = cap, 0, 0
        self.shown = shown

    @property
    def full(self) -> bool:
        return self.cap is not None and (len(self) >= self.cap or self.size > DIFF_BYTES)

    def append(self, line: str) -> None:
        if self.full:
            self.dropped += 1
            return
        if self.cap is not None and len(line) > LINE_CHARS:
            line = f"{line[:LINE_CHARS]}... ({len(line) - LINE_CHARS:,} more characters)"
        # What the line costs a client: JSON escapes a control character in 6 bytes, and any
        # character beyond ASCII in 6 or 12.
        self.size += len(line) if line.isascii() and line.isprintable() else len(json.dumps(line))
        super().append(line)


def render_diff(
    text: str,
    plan: Plan,
    path: str,
    context: int = CONTEXT,
    max_lines: int | None = None,
    shown: Callable[[str], str] | None = None,
) -> str:
    """The unified diff (``--- a/path`` / ``+++ b/path``) that ``plan`` makes to ``text``.

    Hunk headers carry the line numbers of both versions. Empty when nothing changes. With
    ``max_lines``, the diff stops after that many lines and a last line says how many more
    there are. ``shown`` turns each line of the text into what the diff shows (the text of a
    view's line, see :func:`editguard.core.document.from_view`).
    """
    groups = _groups(text, plan, context)
    if not groups:
        return ""
    out = _Capped(None if max_lines is None else max_lines + 2, shown)
    out += [f"--- a/{path}", f"+++ b/{path}"]
    shift = 0
    line, reached = 1, 0  # the line number at offset ``reached`` of text
    budget = [_MATCH_BUDGET]  # line pairs the matcher may still compare, for the whole diff
    for lo, hi, new in groups:
        old = text[lo:hi]
        if old == new:
            continue  # replacements that cancel out (insert then delete the same text)
        if out.full:  # nothing more is shown: count the group's lines, split none
            out.dropped += _line_count(old) + _line_count(new)
            continue
        line += text.count(LF, reached, lo)
        reached = lo
        old_seq = _lines(old)
        new_seq = _lines(new)
        _emit(out, old_seq, new_seq, line, line + shift, context, budget)
        shift += len(new_seq) - len(old_seq)
    if out.dropped:
        out.cap = None
        out.append(
            f"... {out.dropped:,} more lines of diff not shown (cut at {max_lines:,} lines or "
            f"{DIFF_BYTES:,} bytes); "
            "read the file to see the result"
        )
    return "\n".join(out) + "\n" if len(out) > 2 else ""


def _groups(text: str, plan: Plan, context: int) -> list[tuple[int, int, str]]:
    """Spans of whole lines (with context) that hold changes, and their new text.

    Each line break is looked for once (``_Breaks``), and a change inside the group being
    built needs no search back: many changes on one long line cost the line, not its square.
    """
    changed = [r for r in plan.replacements if text[r.start : r.end] != r.text]
    groups: list[tuple[int, int, list[str], int]] = []  # lo, hi, new parts, position reached
    breaks = _Breaks(text)
    for r in changed:
        hi = breaks.after(r.end, context + 1)
        if groups and r.start < groups[-1][1]:
            lo = groups[-1][0]
        else:
            lo = _back_lines(text, text.rfind(LF, 0, r.start) + 1, context)
        if groups and lo <= groups[-1][1]:
            glo, ghi, parts, pos = groups[-1]
            parts += [text[pos : r.start], r.text]
            groups[-1] = (glo, max(ghi, hi), parts, r.end)
        else:
            groups.append((lo, hi, [text[lo : r.start], r.text], r.end))
    return [(lo, hi, "".join([*parts, text[pos:hi]])) for lo, hi, parts, pos in groups]


class _Breaks:
    """:func:`_forward_lines` for positions that only grow: every line break is found once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[int] = []  # line breaks found, in order
        self.first = 0  # index in found of the first one still needed
        self.cursor = 0  # where the next search starts

    def after(self, pos: int, count: int) -> int:
        found = self.found
        while self.first < len(found) and found[self.first] < pos - 1:
            self.first += 1  # breaks before pos are no longer needed
        self.cursor = max(self.cursor, pos)
        # With pos just after a line break, the first of them ends the line that starts there.
        if pos > 0 and self.text[pos - 1] == LF and count > 1:
            count -= 1
        start = self.first
        while start < len(found) and found[start] < pos:
            start += 1
        while len(found) - start < count:
            nl = self.text.find(LF, self.cursor)
            if nl < 0:
                return len(self.text)
            found.append(nl)
            self.cursor = nl + 1
        return found[start + count - 1] + 1


def _back_lines(text: str, line_start: int, count: int) -> int:
    pos = line_start
    for _ in range(count):
        if pos == 0:
            break
        pos = text.rfind(LF, 0, pos - 1) + 1
    return pos


def _forward_lines(text: str, pos: int, count: int) -> int:
    """The position after ``count`` more line breaks from ``pos`` (the end of the text at most).

    With ``pos`` just after a line break, the first of them ends the line that starts there.
    """
    if pos > 0 and text[pos - 1] == LF and count > 1:
        count -= 1
    for _ in range(count):
        nl = text.find(LF, pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos


def _line_count(text: str) -> int:
    """``len(_lines(text))``, without making the lines."""
    return text.count(LF) + (1 if text and not text.endswith(LF) else 0)


def _lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept (the last one may lack it)."""
    if not text:
        return []
    parts = text.split(LF)
    out = [p + LF for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


_Op = tuple[str, int, int, int, int]


def _opcodes(old: list[str], new: list[str], budget: list[int]) -> list[_Op]:
    """difflib's opcodes from ``old`` to ``new``: the lines both start and end with are equal
    without a search, and the middle is matched line by line only while that is cheap (the
    matcher is quadratic or worse); past that, the stretches that differ are found first
    (:func:`~editguard.core.delta.spans`), then each is matched while that is cheap, and one
    past the budget is one replaced block."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    s = 0
    while s < min(len(old), len(new)) - p and old[-1 - s] == new[-1 - s]:
        s += 1
    a, b = len(old) - s, len(new) - s
    ops: list[_Op] = [("equal", 0, p, 0, p)] if p else []
    if (a - p) * (b - p) > budget[0]:
        # Too many for the matcher: the stretches that differ are found first, and only they
        # are matched (each while the budget lasts).
        i0, j0 = p, p
        for i1, i2, j1, j2 in spans(old, new):
            ops.append(("equal", i0, i1, j0, j1))
            ops += _matched(old, new, (i1, i2, j1, j2), budget)
            i0, j0 = i2, j2
        ops.append(("equal", i0, a, j0, b))
    else:
        ops += _matched(old, new, (p, a, p, b), budget)
    if s:
        ops.append(("equal", a, len(old), b, len(new)))
    merged: list[_Op] = []
    for op in ops:
        if merged and op[0] == merged[-1][0] == "equal":
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        elif op[1] < op[2] or op[3] < op[4]:
            merged.append(op)
    return merged


def _matched(
    old: list[str], new: list[str], span: tuple[int, int, int, int], budget: list[int]
) -> list[_Op]:
    """Opcodes of ``old[i1:i2]`` against ``new[j1:j2]``: difflib's while the budget lasts,
    else one replaced block (inside the lines both start and end with)."""
    i1, i2, j1, j2 = span
    while i1 < i2 and j1 < j2 and old[i1] == new[j1]:
        i1, j1 = i1 + 1, j1 + 1
    while i1 < i2 and j1 < j2 and old[i2 - 1] == new[j2 - 1]:
        i2, j2 = i2 - 1, j2 - 1
    ops: list[_Op] = [("equal", span[0], i1, span[2], j1)]
    pairs = (i2 - i1) * (j2 - j1)
    if pairs > budget[0]:
        ops.append(("replace", i1, i2, j1, j2))
    elif pairs:
        budget[0] -= pairs
        matcher = difflib.SequenceMatcher(None, old[i1:i2], new[j1:j2], autojunk=False)
        ops += [(t, i + i1, j + i1, k + j1, m + j1) for t, i, j, k, m in matcher.get_opcodes()]
    elif i1 < i2 or j1 < j2:
        ops.append(("delete" if i1 < i2 else "insert", i1, i2, j1, j2))
    ops.append(("equal", i2, span[1], j2, span[3]))
    return ops


def _hunks(ops: list[_Op], context: int) -> list[list[_Op]]:
    """The opcodes in hunks, each change with up to ``context`` equal lines around it."""
    hunks: list[list[_Op]] = []
    hunk: list[_Op] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "equal":
            hunk.append((tag, i1, i2, j1, j2))
            continue
        first, last = index == 0, index == len(ops) - 1
        if not first:  # the context after the change before it
            hunk.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
        if not first and not last and i2 - i1 <= 2 * context:
            hunk[-1] = (tag, i1, i2, j1, j2)  # close enough: one hunk goes on
            continue
        if hunk and any(op[0] != "equal" for op in hunk):
            hunks.append(hunk)
        hunk = []
        if not last:  # the context before the next change
            hunk.append((tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2))
    if any(op[0] != "equal" for op in hunk):
        hunks.append(hunk)
    return hunks


def _emit(
    out: list[str],
    old: list[str],
    new: list[str],
    old_first: int,
    new_first: int,
    context: int,
    budget: list[int],
) -> None:
    hunks = _hunks(_opcodes(old, new, budget), context)
    for hunk in hunks:
        i1, i2 = hunk[0][1], hunk[-1][2]
        j1, j2 = hunk[0][3], hunk[-1][4]
        out.append(f"@@ -{_range(old_first + i1, i2 - i1)} +{_range(new_first + j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in hunk:
            if tag == "equal":
                _add(out, " ", old[a1:a2])
                continue
            _add(out, "-", old[a1:a2])
            _add(out, "+", new[b1:b2])


def _add(out: list[str], sign: str, lines: list[str]) -> None:
    for k, line in enumerate(lines):
        if isinstance(out, _Capped) and out.full:
            # Nothing more is shown: count the rest at once (a whole file's lines, say).
            out.dropped += len(lines) - k + (0 if lines[-1].endswith(LF) else 1)
            return
        shown = line[:-1] if line.endswith(LF) else line
        if isinstance(out, _Capped) and out.shown is not None:
            shown = out.shown(shown)
        out.append(sign + shown)
        if not line.endswith(LF):
            out.append(_NO_NEWLINE)


def _range(start: int, length: int) -> str:
    if length == 0:
        return f"{start - 1},0"
    return str(start) if length == 1 else f"{start},{length}"

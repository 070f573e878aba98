"""A unified diff rendered from a plan: only the changed lines and their context are compared,
never the two whole texts, so the diff of one line in a 10 MB file costs about one line."""

from __future__ import annotations

import difflib

from editguard.core.document import LF, line_numbers
from editguard.core.plan import Plan

CONTEXT = 3
# Above this many lines in one group, show the group as one replaced block (difflib's
# matcher is quadratic in the worst case).
_MINIMIZE_LIMIT = 4000
_NO_NEWLINE = "\\ No newline at end of file"


class _Capped(list[str]):
    """Lines kept up to a cap; past it, only counted."""

    def __init__(self, cap: int | None) -> None:
        super().__init__()
        self.cap, self.dropped = cap, 0

    def append(self, line: str) -> None:
        if self.cap is not None and len(self) >= self.cap:
            self.dropped += 1
        else:
            super().append(line)


def render_diff(
    text: str, plan: Plan, path: str, context: int = CONTEXT, max_lines: int | None = None
) -> str:
    """The unified diff (``--- a/path`` / ``+++ b/path``) that ``plan`` makes to ``text``.

    Hunk headers carry the line numbers of both versions. Empty when nothing changes. With
    ``max_lines``, the diff stops after that many lines and a last line says how many more
    there are.
    """
    groups = _groups(text, plan, context)
    if not groups:
        return ""
    out = _Capped(None if max_lines is None else max_lines + 2)
    out += [f"--- a/{path}", f"+++ b/{path}"]
    first_lines = line_numbers(text, (lo for lo, _, _ in groups))
    shift = 0
    for (lo, hi, new), line in zip(groups, first_lines, strict=True):
        if text[lo:hi] == new:
            continue  # replacements that cancel out (insert then delete the same text)
        old_seq = _lines(text[lo:hi])
        new_seq = _lines(new)
        _emit(out, old_seq, new_seq, line, line + shift, context)
        shift += len(new_seq) - len(old_seq)
    if out.dropped:
        out.cap = None
        out.append(
            f"... {out.dropped:,} more lines of diff not shown (cut at {max_lines:,}); "
            "read the file to see the result"
        )
    return "\n".join(out) + "\n" if len(out) > 2 else ""


def _groups(text: str, plan: Plan, context: int) -> list[tuple[int, int, str]]:
    """Spans of whole lines (with context) that hold changes, and their new text."""
    changed = [r for r in plan.replacements if text[r.start : r.end] != r.text]
    groups: list[tuple[int, int, list[str], int]] = []  # lo, hi, new parts, position reached
    for r in changed:
        lo = _back_lines(text, text.rfind(LF, 0, r.start) + 1, context)
        hi = _forward_lines(text, r.end, context + 1)
        if groups and lo <= groups[-1][1]:
            glo, ghi, parts, pos = groups[-1]
            parts += [text[pos : r.start], r.text]
            groups[-1] = (glo, max(ghi, hi), parts, r.end)
        else:
            groups.append((lo, hi, [text[lo : r.start], r.text], r.end))
    return [(lo, hi, "".join([*parts, text[pos:hi]])) for lo, hi, parts, pos in groups]


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


def _lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept (the last one may lack it)."""
    if not text:
        return []
    parts = text.split(LF)
    out = [p + LF for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _emit(
    out: list[str], old: list[str], new: list[str], old_first: int, new_first: int, context: int
) -> None:
    if len(old) + len(new) > 2 * _MINIMIZE_LIMIT:
        hunks = [[("replace", 0, len(old), 0, len(new))]]
    else:
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        hunks = list(matcher.get_grouped_opcodes(context))
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
    for line in lines:
        if line.endswith(LF):
            out.append(sign + line[:-1])
        else:
            out.append(sign + line)
            out.append(_NO_NEWLINE)


def _range(start: int, length: int) -> str:
    if length == 0:
        return f"{start - 1},0"
    return str(start) if length == 1 else f"{start},{length}"

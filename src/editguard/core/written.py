"""The lines an edit wrote, and a formatter's changes kept to them: pure, text in, text out.

A formatter run on a text may change lines the edit never touched (the whole file, or a little
beyond the range it was given). :func:`keep_written` keeps only the changes that fall inside the
written lines: the formatted text is compared with the text line by line, and a changed block
that touches any line outside the written ones is dropped whole. Lines the edit did not write
therefore come out byte for byte as they went in, in the same order; only new lines may appear
between them, at the edge of a written block.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass

from editguard.core.document import LF
from editguard.core.plan import Changed, Plan, Replacement

# Line ranges are 0-based and inclusive: (first, last).
Lines = tuple[int, int]


def split_lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` (each piece keeps its break; the last may have none).
    Only ``\\n`` ends a line: the other characters ``str.splitlines`` cuts at do not."""
    lines = text.split(LF)
    out = [line + LF for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def written_lines(old: str, plan: Plan) -> list[Lines]:
    """The lines of the new text (``plan`` applied to ``old``) that the plan wrote: every line
    that holds a character of a replacement's text that differs from the text it replaced
    (whole lines sent back as they were are not written), merged where they touch. A
    replacement that only removes text writes no line."""
    out: list[Lines] = []
    line = 0  # lines of the new text before r.start
    pos = 0  # in the old text
    for r in plan.replacements:
        line += old.count(LF, pos, r.start)
        pos = r.end
        span = _changed(r.text, old[r.start : r.end])
        if span is not None:
            first = line + r.text.count(LF, 0, span[0])
            last = line + r.text.count(LF, 0, span[1] - 1)
            if out and first <= out[-1][1] + 1:
                out[-1] = (out[-1][0], max(out[-1][1], last))
            else:
                out.append((first, last))
        line += r.text.count(LF)
    return out


def _changed(text: str, was: str) -> tuple[int, int] | None:
    """Where ``text`` differs from ``was``, in whole lines of ``text``: ``(start, end)`` from
    the start of its first differing line to the end of its last (``None``: no line differs,
    as in a pure deletion)."""
    size = min(len(text), len(was))
    same = 0
    while same < size and text[same] == was[same]:
        same += 1
    start = text.rfind(LF, 0, same) + 1
    tail = 0
    most = min(len(text), len(was)) - start
    while tail < most and text[-1 - tail] == was[-1 - tail]:
        tail += 1
    end = len(text) - tail
    if end > start and text[end - 1] != LF:
        found = text.find(LF, end)
        end = found + 1 if found >= 0 else len(text)
    return (start, end) if end > start else None


@dataclass(frozen=True, slots=True)
class Kept:
    """What :func:`keep_written` kept: the new ``text``, the ``plan`` on the text it started
    from that gives it, the ``written`` lines of the new text (0-based, inclusive), and where
    each line of the old text now is (``moved[i]``: 0-based; a line of a changed block is
    where the block's new lines start)."""

    text: str
    plan: Plan
    written: list[Lines]
    moved: list[int]

    def line_of(self, line: int) -> int:
        """Where the 1-based line ``line`` of the old text now is (1-based)."""
        if 1 <= line <= len(self.moved):
            return self.moved[line - 1] + 1
        return line


def keep_written(text: str, formatted: str, written: list[Lines]) -> Kept:
    """``text`` with only the changes of ``formatted`` that lie inside the ``written`` lines.

    A block of changed lines is kept when every line of ``text`` it replaces is written, or,
    for lines it only adds, when a line next to where they go is written; any other block is
    dropped whole (those lines stay as in ``text``).
    """
    old = split_lines(text)
    new = split_lines(formatted)
    inside = [False] * (len(old) + 1)
    for first, last in written:
        lo, hi = max(first, 0), min(last, len(old) - 1) + 1
        inside[lo:hi] = [True] * max(0, hi - lo)
    # Lines alike at both ends are never compared one by one: a range formatter changes a
    # few lines of a large file.
    size = min(len(old), len(new))
    head = 0
    while head < size and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < size - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    )
    out: list[str] = []
    marks: list[bool] = []  # per line of out: written
    reps: list[Replacement] = []
    starts = [0, *itertools.accumulate(map(len, old))]  # where each line of ``text`` starts

    moved: list[int] = []

    def keep(i1: int, i2: int) -> None:
        moved.extend(range(len(out), len(out) + i2 - i1))
        out.extend(old[i1:i2])
        marks.extend(inside[i1:i2])

    def change(i1: int, i2: int, j1: int, j2: int) -> None:
        if i1 < i2:
            ok = all(inside[i1:i2])
        else:  # lines only added: next to a written line
            ok = (i1 > 0 and inside[i1 - 1]) or (i1 < len(old) and inside[i1])
        if not ok:
            keep(i1, i2)
            return
        reps.append(Replacement(starts[i1], starts[i2], "".join(new[j1:j2])))
        moved.extend([len(out)] * (i2 - i1))
        out.extend(new[j1:j2])
        marks.extend([True] * (j2 - j1))

    keep(0, head)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        i1, i2, j1, j2 = a1 + head, a2 + head, b1 + head, b2 + head
        if tag == "equal":
            keep(i1, i2)
            continue
        # A block of changed lines: lines alike but for their spacing pair up one to one, so
        # that a line the edit did not write, respaced beside written ones, is dropped alone.
        pairs = difflib.SequenceMatcher(
            None, [_squash(x) for x in old[i1:i2]], [_squash(x) for x in new[j1:j2]], False
        )
        for sub, c1, c2, d1, d2 in pairs.get_opcodes():
            if sub == "equal":
                for k in range(c2 - c1):
                    at, to = i1 + c1 + k, j1 + d1 + k
                    if old[at] == new[to]:
                        keep(at, at + 1)
                    else:
                        change(at, at + 1, to, to + 1)
            else:
                change(i1 + c1, i1 + c2, j1 + d1, j1 + d2)
    keep(len(old) - tail, len(old))
    ranges: list[Lines] = []
    for n, mark in enumerate(marks):
        if not mark:
            continue
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
    return Kept("".join(out), Plan(tuple(reps)), ranges, moved)


def _squash(line: str) -> str:
    """A line without its spacing."""
    return "".join(line.split())


def then(old: str, first: Plan, second: Plan, final: str) -> Plan:
    """One plan on ``old`` that gives ``final``: ``first`` applied to ``old``, then ``second``
    to the result. Replaced spans that overlap or touch become one."""
    changed = Changed()
    changed.then(first)
    changed.then(second)
    return changed.plan(old, final)

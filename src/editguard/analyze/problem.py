"""A problem an analyzer reports, and which of them an edit introduced or removed.

Problems are compared by what they say (analyzer, code, message) and where in the code they are
(the text of their line), not by line number: an edit above a problem moves it without making it
new. Pure: texts in, lists out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding of an analyzer in one file, as it describes the file's text.

    ``line`` and ``column`` count from 1; ``code`` is the analyzer's rule or error code
    (``""`` when it gives none). In a notebook, ``cell`` is the index of the cell (from 0),
    ``cell_id`` its id where it has one, and ``line`` counts within the cell's source.
    """

    path: str  # real path
    line: int
    column: int
    analyzer: str
    code: str
    message: str
    severity: Severity = "error"
    cell: int | None = None
    cell_id: str | None = None

    @property
    def says(self) -> tuple[str, str, str]:
        """What it says, whatever line it is on."""
        return (self.analyzer, self.code, self.message)


@dataclass(frozen=True, slots=True)
class LineMap:
    """Where the lines of a text went in its edited version: those before the first changed
    line stay, those after the last move by ``shift``; lines ``head + 1`` up to ``old_end`` of
    the old text (``new_end`` of the new) are the changed region."""

    head: int
    old_end: int
    new_end: int

    def moved(self, line: int) -> int | None:
        """The new line number of an old line outside the changed region (else ``None``)."""
        if line <= self.head:
            return line
        if line > self.old_end:
            return line + self.new_end - self.old_end
        return None

    def changed(self, line: int) -> bool:
        """Whether a line of the new text is in the changed region."""
        return self.head < line <= self.new_end


def line_map(old: str, new: str) -> LineMap:
    """The :class:`LineMap` of a change from ``old`` to ``new``. Linear in the texts."""
    a, b = old.split("\n"), new.split("\n")
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    return LineMap(head, len(a) - tail, len(b) - tail)


def compare(
    before: Sequence[Problem],
    after: Sequence[Problem],
    old: str | None,
    new: str | None,
) -> tuple[list[Problem], list[Problem]]:
    """The problems in ``after`` that ``before`` did not have (new), and those of ``before``
    that ``after`` no longer has (fixed), for one file whose text went from ``old`` to ``new``.

    Two problems are the same when they say the same and stand on the same code: first those
    on the same line text at the line the change moved it to, then the same line text anywhere
    (the nearest), then one on a line the edit changed paired with one on a line the edit
    wrote (a line rewritten around a problem it left alone; the message names what is wrong,
    so the pair is the same problem). What is left over is new or fixed.
    """
    old_lines = old.split("\n") if old is not None else []
    new_lines = new.split("\n") if new is not None else []
    where = line_map(old or "", new or "") if old is not None and new is not None else None

    def text(lines: list[str], line: int) -> str | None:
        return lines[line - 1].strip() if 0 < line <= len(lines) else None

    groups: dict[tuple[str, str, str], list[Problem]] = defaultdict(list)
    for p in before:
        groups[p.says].append(p)
    new_found: list[Problem] = []
    fixed: list[Problem] = []
    seen: set[tuple[str, str, str]] = set()
    for p in after:
        key = p.says
        if key in seen:
            continue
        seen.add(key)
        olds = list(groups.get(key, ()))
        news = [q for q in after if q.says == key]
        unmatched = _match(olds, news, old_lines, new_lines, where, text)
        new_found.extend(unmatched[1])
        fixed.extend(unmatched[0])
    for key, olds in groups.items():
        if key not in seen:
            fixed.extend(olds)
    new_found.sort(key=lambda p: (p.line, p.column))
    return new_found, fixed


def _match(
    olds: list[Problem],
    news: list[Problem],
    old_lines: list[str],
    new_lines: list[str],
    where: LineMap | None,
    text: Callable[[list[str], int], str | None],
) -> tuple[list[Problem], list[Problem]]:
    """Pair problems that say the same; returns those of each side left unpaired."""
    left_old = list(olds)
    left_new = list(news)

    def moved(line: int) -> int | None:
        return where.moved(line) if where is not None else None

    def take(rule: Callable[[Problem, Problem], bool], nearest: bool = False) -> None:
        for q in list(left_new):
            candidates = [p for p in left_old if rule(p, q)]
            if not candidates:
                continue
            if nearest:
                candidates.sort(key=lambda p: abs((moved(p.line) or p.line) - q.line))
            left_old.remove(candidates[0])
            left_new.remove(q)

    def same_text(p: Problem, q: Problem) -> bool:
        t = text(old_lines, p.line)
        return t is not None and t == text(new_lines, q.line)

    take(lambda p, q: moved(p.line) == q.line and same_text(p, q))
    take(same_text, nearest=True)
    if where is not None:
        take(lambda p, q: moved(p.line) is None and where.changed(q.line), nearest=True)
    return left_old, left_new

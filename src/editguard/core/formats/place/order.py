"""The order constraint: blocks of lines that must stand in the file in the order given.

The hunks of a diff, and the chunks of an apply_patch update (with their ``@@`` lines), follow
each other in the file and never share a line. So a block may only go where every block after it
can still follow it. :func:`latest_starts` gives, for each block, the last line it may start at
for that: each later block is put at its *last* place before the next one's bound, on the
loosest comparison any rung makes (:class:`KeyText`), so no rung could place the later blocks
after a start past the bound. :func:`choose` then picks among the places one rung found:
those past the block's bound are out; of what is left, the only one, or the one at the
stated line; several left are a tie, which the caller refuses (never a guess). Order is
monotone: an earlier place always leaves at least the room a later one leaves, so a bound only
ever rules out the later places.

Pure: lists of strings in, line numbers (0-based) out.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Sequence

from editguard.core.seek import content_key, strip_numbers

LF = "\n"


def forms(pattern: Sequence[str]) -> list[tuple[str, ...]]:
    """``pattern`` as a rung may compare it: as sent, and without pasted line-number prefixes
    (with and without one space of padding after them)."""
    out = [tuple(pattern)]
    for padding in (False, True):
        stripped = strip_numbers(pattern, padding=padding)
        if stripped is not None:
            out.append(stripped[0])
    return out


class KeyText:
    """A file's lines as every rung compares them (:func:`~editguard.core.seek.content_key`:
    no indentation, trailing whitespace or typographic punctuation), joined between line
    breaks so that a block of lines is found with one ``str.find``, at C speed."""

    def __init__(self, lines: Sequence[str]) -> None:
        keys = [content_key(line) for line in lines]
        self.size = len(keys)
        self.text = LF + LF.join(keys) + LF
        # Where each line starts in the text, and one past the last line.
        self.starts = list(itertools.accumulate((len(k) + 1 for k in keys), initial=1))

    @staticmethod
    def needle(pattern: Sequence[str]) -> str:
        return LF + LF.join(content_key(line) for line in pattern) + LF

    def first(self, pattern: Sequence[str], low: int, high: int) -> int | None:
        """The first line from ``low`` to ``high`` included where ``pattern``'s keys start."""
        if high < low or low > self.size:
            return None
        needle = self.needle(pattern)
        at = self.text.find(needle, self.starts[low] - 1, self.starts[high] - 1 + len(needle))
        return None if at < 0 else bisect_left(self.starts, at + 1)

    def last(self, pattern: Sequence[str], end: int) -> int | None:
        """The last line where ``pattern``'s keys start and end by line ``end`` (excluded)."""
        if end - len(pattern) < 0:
            return None
        at = self.text.rfind(self.needle(pattern), 0, self.starts[min(end, self.size)])
        return None if at < 0 else bisect_left(self.starts, at + 1)


Block = Sequence[Sequence[str]]
"""One block to place in order: the forms it may be found in (none: it constrains nothing)."""


def latest_starts(keys: KeyText, blocks: Sequence[Block]) -> list[int | None]:
    """For each block, the last line it may start at with every block after it still able to
    follow it in order, without sharing a line; ``None`` where nothing bounds it (no block
    after it with lines, or a later block that fits nowhere before its own bound, so that the
    order tells nothing: the caller finds that block's fault where it is)."""
    bounds: list[int | None] = [None] * len(blocks)
    end: int | None = None  # the line the blocks after this one must start from, at latest
    for k in range(len(blocks) - 1, -1, -1):
        if not blocks[k]:
            continue
        start = None if end is None else _last_start(keys, blocks[k], end)
        bounds[k] = start
        if start is None:  # nothing after it, or the order is broken there: start over
            start = _last_start(keys, blocks[k], keys.size)
        end = start
    return bounds


def _last_start(keys: KeyText, block: Block, end: int) -> int | None:
    starts = [s for form in block if (s := keys.last(form, end)) is not None]
    return max(starts, default=None)


def choose(
    places: Sequence[int], *, stated: int | None = None, bound: int | None = None
) -> int | list[int]:
    """The place to use of ``places`` (one rung's, in file order): of those the order allows
    (at or before ``bound``), the only one, or the one at the ``stated`` line; several left
    are returned as a tie, for the caller to refuse. When the order allows none, the later
    blocks cannot all follow any of them: the stated place or the first is taken, and the
    block that cannot follow is refused where it is."""
    if not places:
        return []
    fit = [p for p in places if bound is None or p <= bound]
    if not fit:
        return stated if stated is not None and stated in places else places[0]
    if len(fit) == 1:
        return fit[0]
    if stated is not None and stated in fit:
        return stated
    return fit


__all__ = ["Block", "KeyText", "choose", "forms", "latest_starts"]

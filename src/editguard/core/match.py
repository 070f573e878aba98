"""Exact matching: every occurrence of many needles, found in one pass over the text.

With a handful of needles, ``str.find`` is the fastest scan there is. With many (a request of a
thousand edits), an Aho-Corasick automaton finds all of them in a single pass, so the cost grows
with the text plus the needles, not with their product. The automaton runs on bytes where the
text allows (a stretch of text within Latin-1, where a character is a byte: 3-4 times faster
than on ``str``, which the automaton would first convert to UTF-8 and map back).
"""

from __future__ import annotations

from collections.abc import Sequence

import ahocorasick_rs

# Up to this many distinct needles, one str.find scan each beats building an automaton.
_FEW = 12
# The automaton works on a copy of the text; scanning a chunk at a time bounds that copy.
_SCAN_CHUNK = 1 << 20


def find_all(
    text: str, needle: str, start: int = 0, end: int | None = None, limit: int | None = None
) -> list[int]:
    """Starts of every occurrence of ``needle`` in ``text[start:end]``, overlapping ones too;
    only the first ``limit`` when given (a one-letter needle in a big file has millions)."""
    stop = len(text) if end is None else end
    out: list[int] = []
    pos = text.find(needle, start, stop)
    while pos >= 0 and (limit is None or len(out) < limit):
        out.append(pos)
        pos = text.find(needle, pos + 1, stop)
    return out


def find_separate(text: str, needle: str, limit: int | None = None) -> list[int]:
    """Starts of the leftmost non-overlapping occurrences of ``needle`` (what ``str.count``
    counts), the first ``limit`` of them when given."""
    out: list[int] = []
    pos = text.find(needle)
    while pos >= 0 and (limit is None or len(out) < limit):
        out.append(pos)
        pos = text.find(needle, pos + len(needle))
    return out


def select_non_overlapping(starts: Sequence[int], length: int) -> list[int]:
    """Leftmost non-overlapping choice among sorted ``starts`` (what ``str.count`` counts)."""
    out: list[int] = []
    free = -1
    for s in starts:
        if s >= free:
            out.append(s)
            free = s + length
    return out


class NeedleSet:
    """A fixed set of needles that can be searched for, all at once, in any text.

    ``scan(text)`` returns, per needle id (its position in the constructor's list), the sorted
    start offsets of all its occurrences, overlapping ones included.
    """

    def __init__(self, needles: Sequence[str]) -> None:
        if any(not n for n in needles):
            raise ValueError("needles must not be empty")
        self.needles: tuple[str, ...] = tuple(needles)
        self.lengths = [len(n) for n in self.needles]
        self.max_length = max(self.lengths, default=0)
        self._automaton: ahocorasick_rs.AhoCorasick | None = None
        self._bytes: ahocorasick_rs.BytesAhoCorasick | None = None
        self._bytes_ids: list[int] = []  # the needle id of each pattern of the bytes automaton
        if len(self.needles) > _FEW:
            standard = ahocorasick_rs.MatchKind.Standard  # (overlapping matches need it)
            self._automaton = ahocorasick_rs.AhoCorasick(self.needles, matchkind=standard)
            narrow = [(nid, n) for nid, n in enumerate(self.needles) if _narrow(n)]
            # A needle beyond Latin-1 never occurs in a stretch within it.
            self._bytes_ids = [nid for nid, _ in narrow]
            self._bytes = ahocorasick_rs.BytesAhoCorasick(
                [n.encode("latin-1") for _, n in narrow], matchkind=standard
            )

    def scan(self, text: str, limit: int | None = None) -> dict[int, list[int]]:
        """All occurrences of every needle in ``text``: needle id -> sorted starts (the first
        ``limit`` of each when given)."""
        if self._automaton is None:
            found = {nid: find_all(text, n, limit=limit) for nid, n in enumerate(self.needles)}
            return {nid: hits for nid, hits in found.items() if hits}
        out: dict[int, list[int]] = {}
        overlap = self.max_length - 1
        for base in range(0, max(len(text), 1), _SCAN_CHUNK):
            own_end = base + _SCAN_CHUNK
            segment = text[base : own_end + overlap] if len(text) > _SCAN_CHUNK else text
            for nid, start, _ in self._matches(segment):
                if start + base < own_end:
                    hits = out.setdefault(nid, [])
                    if limit is None or len(hits) < limit:
                        hits.append(start + base)
        for hits in out.values():
            hits.sort()
        return out

    def _matches(self, segment: str) -> list[tuple[int, int, int]]:
        """Every occurrence in ``segment``, overlapping ones too: (needle id, start, end)."""
        assert self._automaton is not None  # many needles
        assert self._bytes is not None
        try:
            data = segment.encode("latin-1")
        except UnicodeEncodeError:  # beyond Latin-1: on str (character offsets)
            return self._automaton.find_matches_as_indexes(segment, overlapping=True)
        ids = self._bytes_ids
        found = self._bytes.find_matches_as_indexes(data, overlapping=True)
        return [(ids[pattern], start, end) for pattern, start, end in found]


def _narrow(text: str) -> bool:
    """Whether every character of ``text`` is within Latin-1 (one byte each as latin-1)."""
    if text.isascii():
        return True
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True

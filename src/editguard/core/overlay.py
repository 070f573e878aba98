"""The text as a sequence of edits leaves it, kept as an overlay on the original text.

The text is never rebuilt between edits. The state after each edit is an *overlay* on the
original text: sorted, disjoint regions ``[a, b)`` of the original, each replaced by its current
string (:class:`Region`). A place in the current text is either untouched original text or a
spot inside a region's string (:data:`Key`, :class:`Hit`), so a replacement is spliced in by
merging the regions it touches (:meth:`Overlay.splice`), and the text around a region is read
as segments of both kinds (:meth:`Overlay.text_before`, :meth:`Overlay.text_after`,
:meth:`Overlay.window_hits`) without building the whole current text.

A region also keeps, for a file that mixes line endings, the ending of each of its line breaks
(taken from the text it replaced, else the file's usual one), and the *marks* of the edits whose
text it holds (edit index, offset), from which a result names the lines each edit landed on.

:class:`Overlay` is the data structure and its reads; what the edits mean (how many
occurrences, the ladder, edits already applied) is :mod:`editguard.core.formats.search_replace`,
which builds on it. Pure: strings in, strings and offsets out.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from editguard.core.document import LF, Document, code_of
from editguard.core.landed import Reader, reader_of
from editguard.core.match import find_all
from editguard.core.plan import Plan, Replacement


@dataclass(eq=False, slots=True)
class Region:
    """Original text ``[a, b)`` replaced by ``s``; a region merged into a later one points to it."""

    a: int
    b: int
    s: str
    codes: bytes | None  # line-ending codes of s (files with mixed endings only)
    marks: list[list[int]] = field(default_factory=list)  # [edit index, offset in s]
    merged_into: Region | None = None

    def root(self) -> Region:
        """The region this one was merged into last (itself, if none)."""
        region = self
        while region.merged_into is not None:
            region = region.merged_into
        return region


# A character's place in the current text: (original offset, 0) for untouched text, and
# (region start, offset in its string) for text an edit wrote. Both sort in text order.
Key = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of a window: untouched text from ``pos``, or a region's text from ``offset``."""

    text: str
    region: Region | None
    base: int  # original offset (untouched) or offset in region.s


@dataclass(frozen=True, slots=True)
class Hit:
    """An occurrence in the current text: where it starts and ends, in text order and as places."""

    start: Key
    end: Key  # the place just after the last character
    first: tuple[Region | None, int]  # where the first character is
    last: tuple[Region | None, int]  # where the last character is


class Overlay:
    """The current text of ``doc`` as its original text and the regions edits replaced."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.text = doc.text
        self.regions: list[Region] = []
        self.starts: list[int] = []
        self._breaks: list[int] | None = None  # offsets of line breaks (mixed files only)

    def intersects(self, start: int, end: int) -> bool:
        """Whether a region overlaps original text ``[start, end)``."""
        i = bisect_right(self.starts, start) - 1
        if i >= 0 and self.regions[i].b > start:
            return True
        return i + 1 < len(self.starts) and self.starts[i + 1] < end

    # -- splicing in a replacement -----------------------------------------------------

    def splice(self, k: int, hit: Hit, new: str) -> tuple[Region, int, int, int]:
        """Replace the text at ``hit`` by ``new`` for edit ``k``, merging the regions it
        touches: the new region, where ``new`` starts and ends in its string, and its index."""
        first_region, first_off = hit.first
        last_region, last_off = hit.last
        if first_region is None:
            a, prefix, prefix_codes = first_off, "", b""
        else:
            first_region = first_region.root()
            a = first_region.a
            prefix = first_region.s[:first_off]
            prefix_codes = self._codes_of(first_region, 0, first_off)
        if last_region is None:
            b, suffix, suffix_codes = last_off + 1, "", b""
        else:
            last_region = last_region.root()
            b = last_region.b
            suffix = last_region.s[last_off + 1 :]
            suffix_codes = self._codes_of(last_region, last_off + 1, len(last_region.s))
        i0 = bisect_left(self.starts, a)
        i1 = bisect_left(self.starts, b)
        absorbed = self.regions[i0:i1]
        region = Region(a, b, prefix + new + suffix, None)
        if self.doc.line_endings is not None:
            matched = self._matched_codes(
                (first_region, first_off), (last_region, last_off), absorbed
            )
            new_codes = bytes(
                matched[i] if i < len(matched) else self._default_code()
                for i in range(new.count(LF))
            )
            region.codes = prefix_codes + new_codes + suffix_codes
        new_end = len(prefix) + len(new)
        for old in absorbed:
            for mark in old.marks:
                if old is first_region and mark[1] < first_off:
                    pass
                elif old is last_region and mark[1] > last_off:
                    mark[1] = new_end + mark[1] - last_off - 1
                else:
                    mark[1] = len(prefix)  # overwritten: it now lives where the new text starts
                region.marks.append(mark)
            old.merged_into = region
        region.marks.append([k, len(prefix)])
        self.regions[i0:i1] = [region]
        self.starts[i0:i1] = [a]
        return region, len(prefix), new_end, i0

    # -- reading the current text --------------------------------------------------------

    def current(self) -> str:
        """The current text, built whole (the slow path: errors and the ladder)."""
        plan = Plan(tuple(Replacement(r.a, r.b, r.s) for r in self.regions))
        return plan.apply_to_text(self.text)

    def numbering(self) -> Callable[[int], int | None]:
        """The line number each line of the current text had in the file as read (what a
        pasted line number refers to); ``None`` for a line an earlier edit wrote or touched."""
        touched: list[tuple[int, int, int]] = []  # current lines first..last, shift after
        shift = 0  # current line index minus original line index, past the regions so far
        original = 0  # original line index of the place reached
        position = 0
        for region in self.regions:
            original += self.text.count(LF, position, region.a)
            first = original + shift
            last = first + region.s.count(LF)
            removed = self.text.count(LF, region.a, region.b)
            shift += region.s.count(LF) - removed
            touched.append((first, last, shift))
            original += removed
            position = region.b
        firsts = [t[0] for t in touched]

        def number(index: int) -> int | None:
            at = bisect_right(firsts, index) - 1
            if at < 0:
                return index + 1
            _first, last, after = touched[at]
            return None if index <= last else index - after + 1

        return number

    def hit_at(self, start: int, end: int) -> Hit:
        """The hit for ``current[start:end]`` (a non-empty span of the current text)."""
        first = self.locate(start)
        last = self.locate(end - 1)
        return Hit(self._key(first), self._key_after(last), first, last)

    def locate(self, offset: int) -> tuple[Region | None, int]:
        """Where a character of the current text is: in original text or in a region."""
        shift = 0
        for region in self.regions:
            begin = region.a + shift
            if offset < begin:
                return None, offset - shift
            if offset < begin + len(region.s):
                return region, offset - begin
            shift += len(region.s) - (region.b - region.a)
        return None, offset - shift

    # -- windows of the current text -----------------------------------------------------

    def text_before(self, index: int, offset: int, count: int) -> list[Segment]:
        """Up to ``count`` characters of current text before ``offset`` in region ``index``."""
        out: list[Segment] = []
        region = self.regions[index]
        take = min(offset, count)
        if take:
            out.append(Segment(region.s[offset - take : offset], region, offset - take))
            count -= take
        pos = region.a
        i = index - 1
        while count > 0 and pos > 0:
            floor = self.regions[i].b if i >= 0 else 0
            take = min(pos - floor, count)
            if take:
                out.append(Segment(self.text[pos - take : pos], None, pos - take))
                count -= take
            if count <= 0 or i < 0:
                break
            prev = self.regions[i]
            take = min(len(prev.s), count)
            # An empty region still matters: it is a junction a needle may span.
            out.append(Segment(prev.s[len(prev.s) - take :], prev, len(prev.s) - take))
            count -= take
            pos = prev.a
            i -= 1
        out.reverse()
        return out

    def text_after(self, index: int, offset: int, count: int) -> list[Segment]:
        """Up to ``count`` characters of current text after ``offset`` in region ``index``."""
        out: list[Segment] = []
        region = self.regions[index]
        take = min(len(region.s) - offset, count)
        if take:
            out.append(Segment(region.s[offset : offset + take], region, offset))
            count -= take
        pos = region.b
        i = index + 1
        size = len(self.text)
        while count > 0 and pos < size:
            ceiling = self.regions[i].a if i < len(self.regions) else size
            take = min(ceiling - pos, count)
            if take:
                out.append(Segment(self.text[pos : pos + take], None, pos))
                count -= take
            if count <= 0 or i >= len(self.regions):
                break
            nxt = self.regions[i]
            take = min(len(nxt.s), count)
            out.append(Segment(nxt.s[:take], nxt, 0))
            count -= take
            pos = nxt.b
            i += 1
        return out

    def window_hits(self, region: Region, old: str) -> list[Hit]:
        """Occurrences of ``old`` around ``region`` that touch text an edit wrote."""
        index = bisect_left(self.starts, region.a)
        context = len(old) - 1
        segments = [
            *self.text_before(index, 0, context),
            Segment(region.s, region, 0),
            *self.text_after(index, len(region.s), context),
        ]
        offsets: list[int] = []
        total = 0
        for seg in segments:
            offsets.append(total)
            total += len(seg.text)
        window = "".join(seg.text for seg in segments)
        hits: list[Hit] = []
        for w in find_all(window, old):
            end = w + len(old) - 1
            si = bisect_right(offsets, w) - 1
            while not segments[si].text:  # a first character never sits in an empty segment
                si += 1
            ei = bisect_right(offsets, end) - 1
            while not segments[ei].text:
                ei -= 1
            first, last = segments[si], segments[ei]
            if si == ei and first.region is None:
                continue  # wholly untouched text: counted among the clean occurrences
            f = (first.region, first.base + w - offsets[si])
            last_at = (last.region, last.base + end - offsets[ei])
            hits.append(Hit(self._key(f), self._key_after(last_at), f, last_at))
        return hits

    @staticmethod
    def _key(place: tuple[Region | None, int]) -> Key:
        region, off = place
        return (off, 0) if region is None else (region.a, off)

    @staticmethod
    def _key_after(place: tuple[Region | None, int]) -> Key:
        region, off = place
        if region is None:
            return (off + 1, 0)
        if off + 1 == len(region.s):
            return (region.b, 0)
        return (region.a, off + 1)

    # -- line endings of files that mix them ---------------------------------------------

    def _default_code(self) -> int:
        return code_of(self.doc.newline)

    def _codes_of(self, region: Region, start: int, end: int) -> bytes:
        if region.codes is None:
            return b""
        first = region.s.count(LF, 0, start)
        return region.codes[first : first + region.s.count(LF, start, end)]

    def _original_codes(self, start: int, end: int) -> bytes:
        assert self.doc.line_endings is not None
        if self._breaks is None:
            self._breaks = find_all(self.text, LF)
        first = bisect_left(self._breaks, start)
        return self.doc.line_endings[first : bisect_left(self._breaks, end)]

    def _matched_codes(
        self,
        first: tuple[Region | None, int],
        last: tuple[Region | None, int],
        absorbed: list[Region],
    ) -> bytes:
        """The endings of the line breaks that the matched text held, in order."""
        out = bytearray()
        start_region, start_off = first
        end_region, end_off = last
        pos = start_off if start_region is None else None
        for region in absorbed:
            if pos is not None:
                out += self._original_codes(pos, region.a)
            lo = start_off if region is start_region else 0
            hi = end_off + 1 if region is end_region else len(region.s)
            out += self._codes_of(region, lo, hi)
            pos = region.b
        if end_region is None:
            out += self._original_codes(pos if pos is not None else start_off, end_off + 1)
        return bytes(out)

    def reader(self) -> tuple[Reader, int]:
        """Reads the current text (as the edits so far left it), and its length."""
        if not self.regions:
            return reader_of(self.text), len(self.text)
        size = len(self.text) + sum(len(r.s) - (r.b - r.a) for r in self.regions)
        return self._read, size

    def _read(self, start: int, end: int) -> str:
        """``current[start:end]``, without building the current text."""
        start = max(start, 0)
        out: list[str] = []
        cur = orig = 0

        def take(source: str, at: int, length: int) -> None:
            lo, hi = max(start, cur), min(end, cur + length)
            if lo < hi:
                out.append(source[at + lo - cur : at + hi - cur])

        for region in self.regions:
            if cur >= end:
                break
            take(self.text, orig, region.a - orig)
            cur += region.a - orig
            take(region.s, 0, len(region.s))
            cur += len(region.s)
            orig = region.b
        if cur < end:
            take(self.text, orig, len(self.text) - orig)
        return "".join(out)

    def position(self, place: tuple[Region | None, int]) -> int:
        """The offset in the current text of a character's place."""
        region, off = place
        if region is not None:
            region = region.root()
        shift = 0
        for r in self.regions:
            if r is region:
                return r.a + shift + off
            if region is None and r.b > off:
                break
            shift += len(r.s) - (r.b - r.a)
        return off + shift

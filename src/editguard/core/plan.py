"""Plans: what every edit language compiles into, and the one pass that applies them.

A plan is a sorted list of non-overlapping replacements ``(start, end, text)`` on the normalized
text of the document as it was read. Applying it never rescans the text: the result is the
untouched spans and the new texts, in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from editguard.core.delta import Splice
from editguard.core.document import LF, Document, code_of, encode_pieces, encode_text

# Untouched text is encoded this many characters at a time (see _untouched).
_SLICE = 1 << 20


@dataclass(frozen=True, slots=True)
class Replacement:
    """Replace ``text[start:end]`` (normalized coordinates) by ``text``.

    ``codes`` gives the ending of each ``\\n`` in ``text`` for a file that mixes line endings
    (see :attr:`Document.line_endings`); ``None`` gives every new break the file's usual ending.
    ``asked`` says that the request itself asked for these endings (whole content that holds its
    own CR or CRLF): then a change of line endings alone is a change of the file.
    """

    start: int
    end: int
    text: str
    codes: bytes | None = None
    asked: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"bad replacement span [{self.start}, {self.end})")
        if self.codes is not None and len(self.codes) != self.text.count(LF):
            raise ValueError("codes must hold one entry per line break of text")


@dataclass(frozen=True, slots=True)
class Plan:
    """Sorted, non-overlapping replacements on one document's text."""

    replacements: tuple[Replacement, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for before, after in zip(self.replacements, self.replacements[1:], strict=False):
            if before.end > after.start:
                raise ValueError(
                    f"replacements overlap: [{before.start}, {before.end}) and "
                    f"[{after.start}, {after.end})"
                )

    def __bool__(self) -> bool:
        return bool(self.replacements)

    def changes(self, text: str) -> bool:
        """Whether applying the plan to ``text`` changes it."""
        return any(text[r.start : r.end] != r.text for r in self.replacements)

    def modifies(self, doc: Document) -> bool:
        """Whether the plan changes ``doc``: its text, or the ending of a line break where the
        request asked for one (a replacement's ``asked`` codes). Endings that only follow from
        the edits' text (the same text removed and put back) do not count."""
        if self.changes(doc.text):
            return True
        codes = doc.line_endings
        usual = code_of(doc.newline)
        brk = 0  # index of the line break at or after pos
        pos = 0
        for r in self.replacements:
            if r.codes is None or not r.asked:
                continue
            brk += doc.text.count(LF, pos, r.start)
            n = len(r.codes)
            old = codes[brk : brk + n] if codes is not None else bytes([usual]) * n
            if r.codes != old:
                return True
            brk += n
            pos = r.end
        return False

    def size_change(self) -> int:
        """How many characters the plan adds to a text (negative when it removes more)."""
        return sum(len(r.text) - (r.end - r.start) for r in self.replacements)

    def apply_to_text(self, text: str) -> str:
        """The normalized text after the plan (for callers that need the whole new text)."""
        parts: list[str] = []
        pos = 0
        for r in self.replacements:
            parts.append(text[pos : r.start])
            parts.append(r.text)
            pos = r.end
        parts.append(text[pos:])
        return "".join(parts)


def render(doc: Document, plan: Plan) -> Iterator[bytes]:
    """The bytes of ``doc`` with ``plan`` applied, as chunks, BOM first.

    Bytes outside the replaced spans come out exactly as they were read: same encoding, same
    line endings, same final newline.

    Raises:
        EncodingError: a new text holds a character the file's encoding cannot store.
    """
    return encode_pieces(doc, _pieces(doc, plan))


def render_tracked(doc: Document, plan: Plan, splices: list[Splice]) -> Iterator[bytes]:
    """:func:`render`, noting in ``splices`` (as the chunks are taken) each span of the new
    bytes that differs from the old, with the old bytes it replaced: what takes the change
    back (:func:`editguard.core.delta.take_back`), at a cost that grows with the change."""
    pos = 0
    if doc.bom:
        yield doc.bom
        pos = len(doc.bom)
    for text, codes, old in _spans(doc, plan):
        if old is None:
            for chunk in encode_text(doc, text, codes):
                pos += len(chunk)
                yield chunk
            continue
        new = b"".join(encode_text(doc, text, codes))
        was = b"".join(encode_text(doc, *old))
        if new != was:
            splices.append(Splice(pos, len(new), was))
        pos += len(new)
        yield new


def applied(doc: Document, plan: Plan) -> Document:
    """``doc`` with ``plan`` applied, as a Document (same encoding, BOM and name; each line
    break keeps the ending :func:`render` would write), for a caller that edits it again."""
    usual = code_of(doc.newline)
    texts: list[str] = []
    codes: list[bytes] = []
    for piece, piece_codes in _pieces(doc, plan):
        texts.append(piece)
        codes.append(piece_codes if piece_codes is not None else bytes([usual]) * piece.count(LF))
    text, endings = "".join(texts), b"".join(codes)
    mixed = endings.strip(bytes([usual])) != b""
    return Document(
        text,
        encoding=doc.encoding,
        bom=doc.bom,
        newline=doc.newline,
        line_endings=endings if mixed else None,
        name=doc.name,
        utf8_view=doc.utf8_view,
    )


def _pieces(doc: Document, plan: Plan) -> Iterator[tuple[str, bytes | None]]:
    for text, codes, _ in _spans(doc, plan):
        yield text, codes


def _spans(
    doc: Document, plan: Plan
) -> Iterator[tuple[str, bytes | None, tuple[str, bytes | None] | None]]:
    """The new text's pieces ``(text, codes, old)`` in order: ``old`` is ``None`` for an
    untouched piece, and the replaced text with its line-ending codes for a new one."""
    text, codes = doc.text, doc.line_endings
    pos = 0
    brk = 0  # index of the next line break at or after pos (mixed files only)
    for r in plan.replacements:
        for piece, piece_codes in _untouched(text, codes, pos, r.start, brk):
            yield piece, piece_codes, None
        new_codes = r.codes
        old_codes = None
        if codes is not None:
            first = brk + text.count(LF, pos, r.start)
            brk = first + text.count(LF, r.start, r.end)
            old_codes = codes[first:brk]
            if new_codes is None:
                # Mixed endings: the replaced breaks keep their endings by position; extra
                # breaks take the usual one.
                wanted = r.text.count(LF)
                kept = codes[first : min(brk, first + wanted)]
                new_codes = kept + bytes([code_of(doc.newline)]) * (wanted - len(kept))
        yield r.text, new_codes, (text[r.start : r.end], old_codes)
        pos = r.end
    for piece, piece_codes in _untouched(text, codes, pos, len(text), brk):
        yield piece, piece_codes, None


def _untouched(
    text: str, codes: bytes | None, start: int, end: int, brk: int
) -> Iterator[tuple[str, bytes | None]]:
    if start >= end:
        return
    if codes is None:
        # A bounded slice at a time: one slice of the untouched half of a large file would be
        # a copy of half the file beside it (twice or four times its bytes beyond Latin-1).
        for at in range(start, end, _SLICE):
            yield text[at : min(end, at + _SLICE)], None
        return
    # Mixed endings: hand each line's own ending back, a bounded slice at a time.
    step = 1 << 16
    while start < end:
        stop = min(end, start + step)
        piece = text[start:stop]
        n = piece.count(LF)
        yield piece, codes[brk : brk + n]
        brk += n
        start = stop


@dataclass(slots=True)
class Changed:
    """Where a text differs from the text it started as, through plans applied one after the
    other: sorted, disjoint spans ``(start, end, old_length)`` of the current text, each
    standing for ``old_length`` characters of the original. Everything between spans is the
    original text, unchanged. Costs the number of changes, never the text's length."""

    spans: list[tuple[int, int, int]] = field(default_factory=list)

    def then(self, plan: Plan) -> None:
        """Apply ``plan`` (on the current text) to the spans: spans and replacements that
        overlap or touch become one span."""
        out: list[tuple[int, int, int]] = []
        shift = 0  # how much longer the new text is than the current, before the group
        group: list[int] = []  # start, end (current text), covered by spans, their old, growth
        for start, end, old, grow in _by_start(self.spans, plan.replacements):
            if group and start <= group[1]:
                group[1] = max(group[1], end)
            else:
                if group:
                    shift = _close(group, shift, out)
                group = [start, end, 0, 0, 0]
            if old >= 0:  # a span
                group[2] += end - start
                group[3] += old
            group[4] += grow
        if group:
            _close(group, shift, out)
        self.spans = out

    def plan(self, original: str, current: str) -> Plan:
        """The one plan on ``original`` that gives ``current``."""
        out: list[Replacement] = []
        delta = 0  # current - original, before the span
        for start, end, old in self.spans:
            o_start = start - delta
            out.append(Replacement(o_start, o_start + old, current[start:end]))
            delta += (end - start) - old
        return Plan(tuple(out))


def _by_start(
    spans: list[tuple[int, int, int]], reps: tuple[Replacement, ...]
) -> Iterator[tuple[int, int, int, int]]:
    """Spans ``(start, end, old, 0)`` and replacements ``(start, end, -1, growth)`` in order
    of their start."""
    i = j = 0
    while i < len(spans) or j < len(reps):
        if j >= len(reps) or (i < len(spans) and spans[i][0] <= reps[j].start):
            start, end, old = spans[i]
            i += 1
            yield start, end, old, 0
        else:
            r = reps[j]
            j += 1
            yield r.start, r.end, -1, len(r.text) - (r.end - r.start)


def _close(group: list[int], shift: int, out: list[tuple[int, int, int]]) -> int:
    """Add a finished group as a span of the new text; returns the shift after it."""
    start, end, covered, old, grow = group
    new_start = start + shift
    out.append((new_start, new_start + (end - start) + grow, old + (end - start - covered)))
    return shift + grow

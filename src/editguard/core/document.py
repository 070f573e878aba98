"""A text file as editguard sees it: decoded, line endings normalized, and how to write it back.

A :class:`Document` holds the text with every line break as ``\\n`` (so that edits written with
``\\n`` match CRLF and CR files too) and remembers what it needs to give back every byte that an
edit does not touch: the encoding, the byte-order mark, and each line break's own ending.

Pure: bytes in, bytes out. No file access here.
"""

from __future__ import annotations

import codecs
import hashlib
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from editguard.errors import BinaryFile, EncodingError, InvalidRequest

LF, CRLF, CR = "\n", "\r\n", "\r"
# Line-ending codes of mixed files, one byte per line break (see Document.line_endings).
_CODE_OF = {LF: 0, CRLF: 1, CR: 2}
_EOL_OF = (LF, CRLF, CR)
_BREAK = re.compile(r"\r\n|\r|\n")

EolStyle = Literal["LF", "CRLF", "CR", "mixed", "none"]

# Ordered so that UTF-32 LE (FF FE 00 00) is tried before UTF-16 LE (FF FE).
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
# Control characters that do not occur in text files (tab, LF, VT, FF, CR, ESC do).
_BINARY_CONTROLS = frozenset(chr(c) for c in range(32) if c not in (9, 10, 11, 12, 13, 27))
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Document:
    """Decoded text plus everything needed to write untouched bytes back identically.

    Attributes:
        text: the content with every line break normalized to ``\\n``.
        encoding: the Python codec that reads and writes the file (``utf-8``, ``utf-16-le``,
            ``cp1252``, ``latin-1`` ...), without the BOM.
        bom: the byte-order mark the file starts with (``b""`` when none).
        newline: the most common line ending; line breaks that an edit adds take it.
        line_endings: ``None`` when every line break uses ``newline``; for a file that mixes
            endings, one code per line break (0 LF, 1 CRLF, 2 CR).
        name: the file's name as messages show it (relative to its root), or ``""``.
        utf8_view: the file is UTF-8 and ``text`` holds its bytes one character each (read as
            latin-1, which ``encoding`` then is): see :func:`decode_stream` and :func:`to_view`.
    """

    text: str
    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = LF
    line_endings: bytes | None = None
    name: str = ""
    utf8_view: bool = False

    @property
    def eol_style(self) -> EolStyle:
        """``LF``, ``CRLF``, ``CR``, ``mixed``, or ``none`` for a file without line breaks."""
        if self.line_endings is not None:
            return "mixed"
        if LF not in self.text:
            return "none"
        return {LF: "LF", CRLF: "CRLF", CR: "CR"}[self.newline]  # type: ignore[return-value]

    @property
    def ends_with_newline(self) -> bool:
        """Whether the last line ends with a line break."""
        return self.text.endswith(LF)

    @property
    def line_count(self) -> int:
        """Lines as an editor numbers them (a final line break does not start a new line)."""
        if not self.text:
            return 0
        return self.text.count(LF) + (0 if self.text.endswith(LF) else 1)

    def lines(self, first: int, last: int) -> list[str]:
        """Lines ``first``..``last`` (1-based, inclusive), without their line breaks."""
        if last < first:
            return []
        text = self.text
        pos = 0
        for _ in range(first - 1):
            pos = text.index(LF, pos) + 1
        out: list[str] = []
        for _ in range(last - first + 1):
            nl = text.find(LF, pos)
            if nl < 0:
                out.append(text[pos:])
                break
            out.append(text[pos:nl])
            pos = nl + 1
        return out

    def last_lines_start(self, count: int) -> tuple[int, int]:
        """The number of the first of the last ``count`` lines (all of them in a shorter file),
        and where it starts in the text. Found from the end: the lines before it are never
        split or walked one by one."""
        text = self.text
        count = min(max(count, 0), self.line_count)
        end = len(text) - 1 if text.endswith(LF) else len(text)  # a final break ends no line
        start = end
        for _ in range(count):
            start = text.rfind(LF, 0, start)
            if start < 0:
                break
        return self.line_count - count + 1, start + 1

    def ending_of_break(self, index: int) -> str:
        """The original ending of line break number ``index`` (0-based)."""
        if self.line_endings is None:
            return self.newline
        return _EOL_OF[self.line_endings[index]]

    def check_encodable(self, new_text: str) -> None:
        """Raise EncodingError if ``new_text`` cannot be stored in this file's encoding.

        Raises:
            EncodingError: naming the first character that does not fit.
        """
        try:
            new_text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start : exc.end]
            raise EncodingError(
                f"the new text contains {bad!r} (U+{ord(bad[0]):04X}), which the file's "
                f"encoding {self.encoding} cannot store",
                data={"encoding": self.encoding, "character": bad, "offset": exc.start},
                suggestions=[
                    "Write the character differently (an escape the language understands), "
                    "or convert the file to UTF-8 first with write_file.",
                ],
            ) from None

    def check_writable(self, new_text: str, field: str = "") -> None:
        """Raise unless ``new_text`` can be written into this file and read back as text.

        Raises:
            EncodingError: a character the file's encoding cannot store.
            InvalidRequest: a NUL character, which would make a UTF-8 or legacy file binary (only
                UTF-16 and UTF-32 files hold NULs as a matter of course); ``field`` names the
                request field it came from, if known.
        """
        self.check_encodable(new_text)
        self.check_no_nul(new_text, field)

    def check_no_nul(self, new_text: str, field: str = "") -> None:
        """Raise if ``new_text`` holds a NUL character and this file is not UTF-16 or UTF-32.

        Raises:
            InvalidRequest: naming ``field`` when given.
        """
        if "\x00" in new_text and not self.encoding.startswith(("utf-16", "utf-32")):
            raise InvalidRequest(
                f"the new text of {self.name or 'the file'} contains a NUL character "
                "(\\u0000), which would make the file binary; nothing was written",
                data={"field": field} if field else {},
                suggestions=[
                    "Leave the NUL out, or write it as an escape the language understands."
                ],
            )


def code_of(newline: str) -> int:
    """The code of a line ending in :attr:`Document.line_endings` (0 LF, 1 CRLF, 2 CR)."""
    return _CODE_OF[newline]


def newline_of(code: int) -> str:
    """The line ending of a code in :attr:`Document.line_endings` (the inverse of code_of)."""
    return _EOL_OF[code]


def split_endings(raw: str) -> tuple[str, bytes]:
    """``raw`` with every line break normalized to ``\\n``, and the code of each break."""
    codes = bytes(_CODE_OF[m.group()] for m in _BREAK.finditer(raw))
    return normalize_newlines(raw), codes


ChunkSource = Callable[[], Iterable[bytes]]
"""A fresh pass over a file's bytes, chunk by chunk, each time it is called."""


def decode(data: bytes) -> Document:
    """Read raw file bytes into a Document (see :func:`decode_stream`).

    Raises:
        BinaryFile: NUL bytes outside UTF-16/32, or content that no supported encoding reads.
    """
    view = memoryview(data)
    return decode_stream(
        bytes(view[:4]),
        lambda: (bytes(view[i : i + _CHUNK]) for i in range(0, len(data), _CHUNK)),
    )


def decode_stream(head: bytes, source: ChunkSource, *, utf8_view: bool = False) -> Document:
    """Read a file, given as chunks of bytes, into a Document.

    ``head`` is the file's first four bytes (for the byte-order mark); ``source`` gives the whole
    content again on each call. UTF-8 (with or without BOM), UTF-16 and UTF-32 with a BOM, and
    legacy 8-bit files (cp1252, else latin-1) are read so that writing them back gives the same
    bytes; undecodable bytes are never replaced by U+FFFD. Chunks are decoded and normalized one
    at a time, so the whole file's bytes never sit in memory beside its text.

    With ``utf8_view``, a UTF-8 file that is not all ASCII is checked as UTF-8 but read as
    latin-1: its text holds one character per byte (a view, see :func:`to_view`). CPython stores
    a string at the width of its widest character, so one emoji makes a decoded text four bytes
    a character; the view is always one.

    Raises:
        BinaryFile: NUL bytes outside UTF-16/32, or content that no supported encoding reads.
    """
    for mark, codec in _BOMS:
        if head.startswith(mark):
            try:
                return _decode_pass(source, codec, mark, utf8_view)
            except UnicodeDecodeError:
                raise BinaryFile(
                    f"the file starts with a {codec} byte-order mark but is not valid {codec}",
                    data={"reason": "undecodable", "encoding": codec},
                ) from None
    for codec in ("utf-8", "cp1252", "latin-1"):
        # Not UTF-8: a legacy 8-bit file. cp1252 reads Windows text with its proper
        # characters; latin-1 reads any byte. Both write back the same bytes.
        try:
            return _decode_pass(source, codec, b"", utf8_view)
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def _decode_pass(source: ChunkSource, codec: str, bom: bytes, utf8_view: bool) -> Document:
    decoder = codecs.getincrementaldecoder(codec)("strict")
    lines = _LineEndings()
    skip, offset = len(bom), 0
    view = utf8_view and codec == "utf-8"
    ascii_only = True
    # The text grows by ``+=`` on a local name that holds the only reference: CPython then
    # extends the string in place (a realloc), so the decoded pieces never sit beside the whole
    # text as they would for a join (one arrow at its start made a 100 MB file's text 200 MB,
    # and the join's pieces 100 MB more). A wider character than the text holds so far still
    # copies it once, into the wider kind.
    text = ""
    for block in source():
        chunk = block[skip:] if skip else block
        skip = max(0, skip - len(block))
        if not bom and b"\x00" in chunk:
            raise BinaryFile(
                "the file contains NUL bytes, so it is binary (or UTF-16 without a byte-order "
                "mark); editguard edits text files only",
                data={"reason": "nul_byte", "offset": offset + chunk.index(b"\x00")},
            )
        offset += len(chunk)
        if view:
            decoder.decode(chunk)  # only to check it is UTF-8: the text is the bytes
            ascii_only = ascii_only and chunk.isascii()
            text += lines.feed(chunk.decode("latin-1"))
        else:
            text += lines.feed(decoder.decode(chunk))
    text += lines.feed(decoder.decode(b"", final=True)) if not view else ""
    if view:
        decoder.decode(b"", final=True)
    text += lines.feed("", final=True)
    doc = lines.finish(text, codec, bom)
    if view and not ascii_only:  # (an ASCII text is the same either way)
        return replace(doc, encoding="latin-1", utf8_view=True)
    if codec in ("cp1252", "latin-1"):
        sample = doc.text[:65536]
        controls = sum(1 for ch in sample if ch in _BINARY_CONTROLS)
        if sample and controls / len(sample) > 0.05:
            raise BinaryFile(
                "the file is not valid UTF-8 and holds many control bytes, so it looks binary; "
                "editguard edits text files only",
                data={"reason": "control_bytes"},
            )
    return doc


class _LineEndings:
    """Normalizes decoded text piece by piece and remembers the line endings it met."""

    def __init__(self) -> None:
        self.counts = [0, 0, 0]  # LF, CRLF, CR
        self.codes: bytearray | None = None  # one per break, once a second kind shows up
        self.pending_cr = False

    def feed(self, piece: str, *, final: bool = False) -> str:
        """``piece`` normalized; a CR at its end waits for the next piece (unless ``final``)."""
        if self.pending_cr:
            piece = CR + piece
            self.pending_cr = False
        if piece.endswith(CR) and not final:
            # It may be the first half of a CRLF that the chunk boundary cut.
            piece = piece[:-1]
            self.pending_cr = True
        if not piece:
            return ""
        has_cr = CR in piece
        if has_cr:
            crlf = piece.count(CRLF)
            found = (piece.count(LF) - crlf, crlf, piece.count(CR) - crlf)
        else:  # the usual case: one count, not three
            found = (piece.count(LF), 0, 0)
        before = sum(self.counts)
        kinds = {k for k in range(3) if self.counts[k] or found[k]}
        if self.codes is None and len(kinds) > 1:
            first = next((k for k in range(3) if self.counts[k]), 0)
            self.codes = bytearray([first]) * before
        if self.codes is not None:
            self.codes += bytes(_CODE_OF[m.group()] for m in _BREAK.finditer(piece))
        for k in range(3):
            self.counts[k] += found[k]
        if has_cr:
            piece = piece.replace(CRLF, LF).replace(CR, LF)
        return piece

    def finish(self, text: str, encoding: str, bom: bytes) -> Document:
        """The Document of ``text``, all the pieces fed (the last one ``final``)."""
        best = max(range(3), key=lambda k: (self.counts[k], -k))
        newline = _EOL_OF[best] if self.counts[best] else LF
        codes = bytes(self.codes) if self.codes is not None else None
        return Document(text, encoding, bom, newline, codes)


def text_document(raw: str, name: str = "") -> Document:
    """A text that is not a file (a notebook cell's source) as a Document: its line breaks
    normalized to ``\\n`` with each one's ending kept, as :func:`decode` reads a file's, so that
    an edit of it keeps CRLF where it was (:func:`text_of` writes it back)."""
    lines = _LineEndings()
    text = lines.feed(raw, final=True)
    return replace(lines.finish(text, "utf-8", b""), name=name)


def text_of(doc: Document) -> str:
    """The text of a Document made by :func:`text_document` (or edited from one), each line
    break with its own ending again."""
    return restore_endings(doc.text, doc.line_endings, doc.newline)


def eol_style(raw: str) -> EolStyle:
    """The line-ending style of text as it is on disk (not normalized)."""
    lines = _LineEndings()
    text = lines.feed(raw, final=True)
    return lines.finish(text, "utf-8", b"").eol_style


def normalize_newlines(text: str) -> str:
    """Turn every CRLF and lone CR of ``text`` into LF (how requests are compared with files)."""
    if CR not in text:
        return text
    return text.replace(CRLF, LF).replace(CR, LF)


def to_view(text: str) -> str:
    """``text`` as the view of a UTF-8 file holds it: one character per byte of its UTF-8.

    UTF-8 is self-synchronizing: the bytes of one text occur in another's at exactly the places
    where the text occurs, so an exact search in a view finds what it finds in the text.

    Raises:
        UnicodeEncodeError: ``text`` holds a lone surrogate, which UTF-8 cannot store.
    """
    return text if text.isascii() else text.encode("utf-8").decode("latin-1")


def from_view(view: str) -> str:
    """The text of a view's whole lines (the inverse of :func:`to_view`; a cut character
    reads as U+FFFD)."""
    return view if view.isascii() else view.encode("latin-1").decode("utf-8", "replace")


def restore_endings(segment: str, codes: bytes | None, newline: str) -> str:
    """Give the ``\\n`` breaks of ``segment`` their real endings.

    ``codes`` holds one code per ``\\n`` of the segment (mixed files), or is ``None`` to give every
    break ``newline``.
    """
    if codes is None:
        return segment if newline == LF else segment.replace(LF, newline)
    parts = segment.split(LF)
    out = [parts[0]]
    for code, part in zip(codes, parts[1:], strict=True):
        out.append(_EOL_OF[code])
        out.append(part)
    return "".join(out)


def encode_pieces(doc: Document, pieces: Iterable[tuple[str, bytes | None]]) -> Iterator[bytes]:
    """Encode normalized pieces ``(text, codes)`` into the file's bytes, BOM first.

    ``codes`` follows :func:`restore_endings`. Long pieces are cut into chunks so that memory
    stays bounded by the chunk size, not the file size.

    Raises:
        EncodingError: a piece holds a character the file's encoding cannot store.
    """
    if doc.bom:
        yield doc.bom
    for text, codes in pieces:
        yield from encode_text(doc, text, codes)


def encode_text(doc: Document, text: str, codes: bytes | None) -> Iterator[bytes]:
    """One normalized piece in the file's encoding and line endings (no BOM), in chunks.

    Raises:
        EncodingError: the piece holds a character the file's encoding cannot store.
    """
    if codes is not None or len(text) <= _CHUNK:
        yield _encode(doc, restore_endings(text, codes, doc.newline))
        return
    for start in range(0, len(text), _CHUNK):
        yield _encode(doc, restore_endings(text[start : start + _CHUNK], None, doc.newline))


def _encode(doc: Document, text: str) -> bytes:
    try:
        return text.encode(doc.encoding)
    except UnicodeEncodeError:
        doc.check_encodable(text)
        raise  # pragma: no cover - check_encodable raised already


def encode_document(doc: Document) -> bytes:
    """The whole document as bytes (what :func:`decode` read, for an unchanged document)."""
    return b"".join(encode_pieces(doc, [(doc.text, doc.line_endings)]))


def content_version(chunks: Iterable[bytes]) -> str:
    """The version of a file's content: a short hash of its bytes, as every tool reports it."""
    digest = hashlib.blake2b(digest_size=8)
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def line_numbers(text: str, positions: Iterable[int]) -> list[int]:
    """1-based line numbers of sorted ``positions`` in ``text``, in one pass over the text."""
    out: list[int] = []
    line, last = 1, 0
    for pos in positions:
        if pos < last:
            raise ValueError("positions must be sorted")
        line += text.count(LF, last, pos)
        last = pos
        out.append(line)
    return out


def line_offsets(lines: Sequence[str], wanted: set[int]) -> dict[int, int]:
    """The offset, in the lines joined with ``\\n``, where each wanted line starts (index
    ``len(lines)``: the end), in one pass up to the last one wanted."""
    out: dict[int, int] = {}
    if not wanted:
        return out
    top = max(wanted)
    position = 0
    for k, line in enumerate(itertools.chain(lines, [""])):
        if k in wanted:
            out[k] = position
        if k >= top:
            break
        position += len(line) + 1
    return out


def line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Extend ``[start, end)`` to whole lines: (start of the first line, end of the last line).

    The end excludes the last line's break. An empty span still covers the line it sits on.
    """
    first = text.rfind(LF, 0, start) + 1
    probe = end - 1 if end > start and text[end - 1 : end] == LF else end
    stop = text.find(LF, probe)
    return first, len(text) if stop < 0 else stop

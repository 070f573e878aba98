"""What differs between the text a request sent and the file's text, named kind by kind.

:func:`describe` compares the whole texts first (backslash escapes for line breaks, line breaks
at either end, line-number prefixes on every line), then pairs their lines in order and names,
for each pair, the normalization that brings it closer by edit distance (trailing whitespace,
tabs, indentation, inner whitespace, case, quotes, punctuation), so a missing letter is never
called punctuation; an unpaired line is a missing or an extra line; what remains is
``content``. Each :class:`Difference` is shown once, at the first line where it shows, with the
real lines of both sides: what a model needs to send the file's text exactly next time.

The line normalization (:func:`comparable`) and the line-number prefixes (:func:`unnumbered`)
are shared with the search for similar regions (:mod:`editguard.core.similar`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

from editguard.core.document import LF


@dataclass(frozen=True, slots=True)
class Difference:
    """One way in which the request's text differs from the file's.

    ``kind`` is one of ``escaping``, ``line_endings``, ``line_numbers``,
    ``trailing_whitespace``, ``tabs_vs_spaces``, ``indentation``, ``whitespace``, ``case``,
    ``quotes``, ``punctuation``, ``missing_line``, ``extra_line``, ``content``.
    ``expected`` is the request's line as sent and ``found`` the file's line as it is, at the
    first place where the difference shows (``""`` for the side that lacks a line).
    """

    kind: str
    detail: str
    expected: str
    found: str


# A line-number prefix as tools print them: "  12│", "12|", "12 |", "12:", "L12:", "    12\t",
# "12→". The separator is required: a line that merely starts with digits is not numbered.
LINE_NUMBER = re.compile(r"[ \t]*(?:L(?=\d))?(\d{1,9})(?:\t| ?[\u2502|:\u2192])")


def unnumbered(lines: Sequence[str]) -> list[list[str]]:
    """``lines`` without line-number prefixes, when every line has one (numbered one after the
    other, for several lines): first as cut right after the separator, then, when every
    non-empty rest starts with a space, also without that space (``12: text``). ``[]`` when the
    lines are not numbered."""
    matches = [LINE_NUMBER.match(line) for line in lines]
    found = [m for m in matches if m is not None]
    if len(found) != len(lines):
        return []
    first = int(found[0].group(1))
    if any(int(m.group(1)) != first + i for i, m in enumerate(found)):
        return []
    rests = [line[m.end() :] for line, m in zip(lines, found, strict=True)]
    out = [rests]
    if all(r.startswith(" ") for r in rests if r) and any(rests):
        out.append([r[1:] for r in rests])
    return out


# Every quote character a model may write for another, mapped to one (translate is one pass).
_QUOTES = str.maketrans(
    dict.fromkeys('\u2018\u2019\u201a\u201c\u201d\u201e\u00ab\u00bb\u2032\u2033`"', "'")
)
_PUNCT = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"[ \t]+")


def comparable(line: str) -> str:
    """A line as the ranking compares it: no indentation or trailing whitespace, runs of spaces
    and tabs as one space, every quote character alike."""
    return _SPACES.sub(" ", line.strip()).translate(_QUOTES)


_TEXT_TRANSFORMS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("escaping", lambda s: s.replace("\\n", LF).replace("\\t", "\t") if LF not in s else s),
    ("line_endings", lambda s: s.strip(LF)),
)

_LINE_TRANSFORMS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("trailing_whitespace", str.rstrip),
    ("tabs_vs_spaces", lambda line: line.expandtabs(4)),
    ("indentation", str.lstrip),
    ("whitespace", lambda line: _SPACES.sub(" ", line).strip()),
    ("case", str.casefold),
    ("quotes", lambda line: line.translate(_QUOTES)),
    ("punctuation", lambda line: _PUNCT.sub("", line)),
)

_ORDER = (
    "escaping",
    "line_endings",
    "line_numbers",
    *(kind for kind, _ in _LINE_TRANSFORMS),
    "missing_line",
    "extra_line",
    "content",
)


def describe(expected: str, found: str) -> tuple[Difference, ...]:
    """What differs between the request's ``expected`` text and the file's ``found`` text.

    First for the whole text (backslash escapes for line breaks, line breaks at either end,
    line-number prefixes on every line), then line by line, with the lines of both paired in
    order: a normalization (trailing whitespace, tabs, indentation, inner whitespace, case,
    quotes, punctuation) is named when it brings a pair closer by edit distance, so a missing
    letter is never called punctuation; an unpaired line is a missing or an extra line; whatever
    remains is ``content``. One difference per kind, at the first line it shows, with the real
    lines of both sides.
    """
    notes: dict[str, Difference] = {}
    a, b = expected, found
    for kind, fn in _TEXT_TRANSFORMS:
        if a == b:
            break
        ta, tb = fn(a), fn(b)
        if (ta, tb) != (a, b) and Indel.distance(ta, tb) < Indel.distance(a, b):
            notes[kind] = _text_difference(kind, a, b)
            a, b = ta, tb
    sent, have = a.split(LF), b.split(LF)
    # The lines shown: the real ones; where escapes were read as line breaks, the one real line.
    escaped = "escaping" in notes
    real_sent = [expected] * len(sent) if escaped and LF not in expected else sent
    real_have = [found] * len(have) if escaped and LF not in found else have
    compared = sent
    if a != b:
        options = unnumbered(sent)
        if options:
            best = min(options, key=lambda o: Indel.distance(LF.join(o), b))
            if Indel.distance(LF.join(best), b) < Indel.distance(a, b):
                prefix = sent[0][: len(sent[0]) - len(best[0])]
                notes["line_numbers"] = Difference(
                    "line_numbers",
                    f"the request's lines start with line-number prefixes ({prefix!r}) copied "
                    "from read_file; send the lines without them",
                    real_sent[0],
                    real_have[0],
                )
                compared = best
    for i, j in _paired(compared, have):
        if i is not None and j is not None:
            _classify(notes, (real_sent[i], real_have[j]), compared[i], have[j])
        elif j is not None:
            before = real_have[j - 1] if j else None
            _note_unpaired(notes, "missing_line", real_have[j], before, sent=False)
        elif i is not None:
            before = real_sent[i - 1] if i else None
            _note_unpaired(notes, "extra_line", real_sent[i], before, sent=True)
    return tuple(notes[kind] for kind in _ORDER if kind in notes)


def _classify(
    notes: dict[str, Difference], real: tuple[str, str], compared: str, theirs: str
) -> None:
    """Note what differs between a pair of lines: ``compared`` the request's (without a
    line-number prefix), ``theirs`` the file's; ``real`` the two as they are, to show."""
    x, y = compared, theirs
    blank = not x.strip() and not y.strip()  # a blank line's whitespace is its indentation
    for kind, fn in _LINE_TRANSFORMS:
        if x == y:
            return
        if blank and kind == "trailing_whitespace":
            continue
        tx, ty = fn(x), fn(y)
        if (tx, ty) != (x, y) and Indel.distance(tx, ty) < Indel.distance(x, y):
            _note(notes, kind, real, compared, theirs)
            x, y = tx, ty
    if x != y:
        _note(notes, "content", real, compared, theirs)


_Pair = tuple[int | None, int | None]  # a line of each side; None where one side has none
_ALIGNED_CELLS = 10_000  # line pairs weighed one by one; longer texts are paired by runs
_ALIKE = 2.0  # worth of a pair of lines equal once normalized (similar ones: 0..1)
_EQUAL = 0.05  # more for lines equal as they are: breaks ties, never worth a line unpaired
_UNPAIRED = 1.0  # cost of a line left without a partner


def _paired(xs: list[str], ys: list[str]) -> list[_Pair]:
    """The lines of ``xs`` and ``ys`` paired in order, a line without a partner paired with
    None: the pairing worth the most, where a pair of lines equal once normalized is worth
    ``_ALIKE``, a bit more when equal as they are (of two lines alike once normalized, the
    equal one gets the partner), less when merely similar, and an unpaired line costs
    ``_UNPAIRED`` (so that a block shifted a level is not paired one line off, where the
    closing braces happen to be equal)."""
    n, m = len(xs), len(ys)
    if n * m > _ALIGNED_CELLS:
        return _paired_by_runs(xs, ys)
    kx, ky = [_pairing_key(x) for x in xs], [_pairing_key(y) for y in ys]
    worth = [
        [
            _ALIKE + _EQUAL if x == y else _ALIKE if a == b else fuzz.ratio(a, b) / 100
            for y, b in zip(ys, ky, strict=True)
        ]
        for x, a in zip(xs, kx, strict=True)
    ]
    # best[i][j]: the most worth of pairing xs[i:] with ys[j:].
    best = [[-_UNPAIRED * (n - i + m - j) for j in range(m + 1)] for i in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            best[i][j] = max(
                best[i + 1][j] - _UNPAIRED,
                best[i][j + 1] - _UNPAIRED,
                best[i + 1][j + 1] + worth[i][j],
            )
    out: list[_Pair] = []
    i = j = 0
    while i < n and j < m:
        if best[i][j] == best[i + 1][j + 1] + worth[i][j]:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j] - _UNPAIRED:
            out.append((i, None))
            i += 1
        else:
            out.append((None, j))
            j += 1
    return out + [(k, None) for k in range(i, n)] + [(None, k) for k in range(j, m)]


def _paired_by_runs(xs: list[str], ys: list[str]) -> list[_Pair]:
    """:func:`_paired` for long texts: runs of lines alike once normalized, and in order
    between them."""
    kx, ky = [_pairing_key(x) for x in xs], [_pairing_key(y) for y in ys]
    out: list[_Pair] = []
    for _, i1, i2, j1, j2 in SequenceMatcher(None, kx, ky, autojunk=False).get_opcodes():
        pairs = list(zip(range(i1, i2), range(j1, j2), strict=False))
        out += pairs
        out += [(i, None) for i in range(i1 + len(pairs), i2)]
        out += [(None, j) for j in range(j1 + len(pairs), j2)]
    return out


def _pairing_key(line: str) -> str:
    return comparable(line).casefold() if line.strip() else f"\0{line}"


def _note(
    notes: dict[str, Difference], kind: str, real: tuple[str, str], compared: str, theirs: str
) -> None:
    """Note ``kind`` for a pair of lines, unless already noted: ``real`` the request's and the
    file's lines as they are, ``compared`` and ``theirs`` as compared (their indentation is
    what an indentation difference tells)."""
    if kind in notes:
        return
    if kind in ("tabs_vs_spaces", "indentation"):
        what = "tabs vs spaces" if kind == "tabs_vs_spaces" else "indentation"
        detail = (
            f"{what} differs: the file has {_describe_indent(_indent(theirs))} where the "
            f"request has {_describe_indent(_indent(compared))}"
        )
    else:
        detail = _DETAILS[kind]
    notes[kind] = Difference(kind, detail, *real)


def _note_unpaired(
    notes: dict[str, Difference], kind: str, line: str, before: str | None, *, sent: bool
) -> None:
    """Note a line that only the request (``sent``) or only the file has, unless a line of
    that kind is already noted; ``before`` is the line before it on the same side."""
    if kind in notes:
        return
    what = "a blank line" if not line.strip() else "a line"
    where = "at the start" if before is None else f"after {before.strip()!r}"
    if sent:
        notes[kind] = Difference(
            kind, f"the request has {what} that the file lacks, {where}", line, ""
        )
    else:
        notes[kind] = Difference(
            kind, f"the file has {what} that the request lacks, {where}", "", line
        )


_DETAILS = {
    "escaping": "the request holds literal backslash escapes (\\n, \\t) where the file "
    "has real line breaks or tabs",
    "line_endings": "line breaks at the start or end differ (the last line of a file "
    "may have no final line break)",
    "trailing_whitespace": "trailing whitespace at the end of lines differs",
    "whitespace": "spaces or tabs inside the lines differ",
    "case": "upper/lower case differs",
    "quotes": "quote characters differ (straight, curly, single, double or backtick)",
    "punctuation": "punctuation differs",
    "content": "the text itself differs",
}


def _text_difference(kind: str, a: str, b: str) -> Difference:
    """A whole-text difference, shown with the first lines where it shows."""
    la, lb = a.split(LF), b.split(LF)
    if kind == "line_endings" and a.startswith(LF) == b.startswith(LF):
        return Difference(kind, _DETAILS[kind], la[-1], lb[-1])
    return Difference(kind, _DETAILS[kind], la[0], lb[0])


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _describe_indent(indent: str) -> str:
    if not indent:
        return "no indentation"
    tabs, spaces = indent.count("\t"), indent.count(" ")
    parts = [
        f"{tabs} tab{'s' * (tabs != 1)}" if tabs else "",
        f"{spaces} space{'s' * (spaces != 1)}" if spaces else "",
    ]
    return " and ".join(p for p in parts if p)

"""Finding what a model probably meant when its text is not in the file, and saying what differs.

The search is bounded: one rapidfuzz scan (C++) of the file's lines per anchor line of the needle,
then a full comparison of a few candidate windows only. Cost grows with the file, not with the
product of the file and the needle.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from editguard.core.document import LF

_BLOCK = 100_000  # lines compared per rapidfuzz call: bounds the memory of the stripped copies
_ANCHOR_HITS = 8  # best lines kept per anchor and block


@dataclass(frozen=True, slots=True)
class Difference:
    """One way in which the request's text differs from the file's.

    ``kind`` is one of ``escaping``, ``line_endings``, ``trailing_whitespace``, ``tabs_vs_spaces``,
    ``indentation``, ``whitespace``, ``case``, ``quotes``, ``punctuation``, ``content``.
    ``expected`` is the request's line, ``found`` the file's.
    """

    kind: str
    detail: str
    expected: str
    found: str


@dataclass(frozen=True, slots=True)
class SimilarRegion:
    """A region of the file close to the searched text: lines (1-based), score and exact text."""

    start_line: int
    end_line: int
    similarity: float
    text: str
    differences: tuple[Difference, ...]
    lines: str = ""  # the whole lines the region lies on (text may be part of one line)


def find_similar(text: str, needle: str, limit: int = 3) -> list[SimilarRegion]:
    """Up to ``limit`` regions of ``text`` most similar to ``needle``, best first."""
    lines = text.split(LF)
    if text.endswith(LF):
        lines.pop()
    wanted = needle.split(LF)
    if len(wanted) > 1 and wanted[-1] == "":
        wanted.pop()
    if not lines or not needle.strip():
        return []
    if len(wanted) == 1:
        return _similar_fragments(lines, needle, limit)
    return _similar_blocks(lines, wanted, limit)


def _best_lines(lines: list[str], query: str, scorer: Callable[..., float]) -> list[int]:
    found: list[tuple[float, int]] = []
    for base in range(0, len(lines), _BLOCK):
        block = [line.strip() for line in lines[base : base + _BLOCK]]
        for _, score, idx in process.extract(query, block, scorer=scorer, limit=_ANCHOR_HITS):
            found.append((score, base + idx))
    found.sort(key=lambda item: -item[0])
    return [idx for _, idx in found[: _ANCHOR_HITS * 2]]


def _similar_fragments(lines: list[str], needle: str, limit: int) -> list[SimilarRegion]:
    query = needle.strip()
    out: list[SimilarRegion] = []
    for idx in _best_lines(lines, query, fuzz.partial_ratio):
        line = lines[idx]
        if len(needle) >= len(line):
            found = line
        else:
            align = fuzz.partial_ratio_alignment(needle, line)
            found = line if align is None else line[align.dest_start : align.dest_end]
        score = fuzz.ratio(needle, found) / 100
        out.append(SimilarRegion(idx + 1, idx + 1, score, found, describe(needle, found), line))
    return _best_distinct(out, limit)


def _similar_blocks(lines: list[str], wanted: list[str], limit: int) -> list[SimilarRegion]:
    needle = LF.join(wanted)
    anchors = sorted(
        {
            i
            for i in (0, max(range(len(wanted)), key=lambda i: len(wanted[i].strip())))
            if wanted[i].strip()
        }
    )
    starts: set[int] = set()
    for ai in anchors:
        for idx in _best_lines(lines, wanted[ai].strip(), fuzz.ratio):
            starts.add(max(0, idx - ai))
    out: list[SimilarRegion] = []
    for start in starts:
        stop = min(len(lines), start + len(wanted))
        found = LF.join(lines[start:stop])
        score = fuzz.ratio(needle, found) / 100
        out.append(SimilarRegion(start + 1, stop, score, found, describe(needle, found), found))
    return _best_distinct(out, limit)


def _best_distinct(regions: list[SimilarRegion], limit: int) -> list[SimilarRegion]:
    regions.sort(key=lambda r: (-r.similarity, r.start_line))
    out: list[SimilarRegion] = []
    for region in regions:
        if region.similarity < 0.5:
            break
        if any(r.start_line <= region.end_line and region.start_line <= r.end_line for r in out):
            continue
        out.append(region)
        if len(out) == limit:
            break
    return out


# -- what differs --------------------------------------------------------------------------

# Every quote character a model may write for another, mapped to one (translate is one pass).
_QUOTES = str.maketrans(dict.fromkeys('\u2018\u2019\u201c\u201d\u00ab\u00bb`"', "'"))
_PUNCT = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"[ \t]+")


def _per_line(fn: Callable[[str], str]) -> Callable[[str], str]:
    return lambda s: LF.join(fn(line) for line in s.split(LF))


_TRANSFORMS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("escaping", lambda s: s.replace("\\n", LF).replace("\\t", "\t") if LF not in s else s),
    ("line_endings", lambda s: s.strip(LF)),
    ("trailing_whitespace", _per_line(str.rstrip)),
    ("tabs_vs_spaces", _per_line(lambda line: line.expandtabs(4))),
    ("indentation", _per_line(str.lstrip)),
    ("whitespace", _per_line(lambda line: _SPACES.sub(" ", line).strip())),
    ("case", str.casefold),
    ("quotes", lambda s: s.translate(_QUOTES)),
    ("punctuation", lambda s: _PUNCT.sub("", s)),
)


def describe(expected: str, found: str) -> tuple[Difference, ...]:
    """What differs between the request's ``expected`` text and the file's ``found`` text.

    Tries each normalization in turn (escaping, line breaks at either end, trailing whitespace,
    tabs, indentation, inner whitespace, case, quotes, punctuation) and keeps those that bring
    the two closer; whatever remains is ``content``.
    """
    out: list[Difference] = []
    a, b = expected, found
    for kind, fn in _TRANSFORMS:
        if a == b:
            break
        ta, tb = fn(a), fn(b)
        if (ta, tb) == (a, b):
            continue
        if ta == tb or fuzz.ratio(ta, tb) > fuzz.ratio(a, b):
            out.append(_difference(kind, a, b))
            a, b = ta, tb
    if a != b:
        out.append(_difference("content", a, b))
    return tuple(out)


def _first_differing(a: str, b: str) -> tuple[str, str]:
    la, lb = a.split(LF), b.split(LF)
    for x, y in zip(la, lb, strict=False):
        if x != y:
            return x, y
    if len(la) != len(lb):
        return (la[len(lb)] if len(la) > len(lb) else ""), (
            lb[len(la)] if len(lb) > len(la) else ""
        )
    return a, b


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


def _difference(kind: str, a: str, b: str) -> Difference:
    exp, got = _first_differing(a, b)
    if kind in ("tabs_vs_spaces", "indentation"):
        detail = (
            f"{'tabs vs spaces' if kind == 'tabs_vs_spaces' else 'indentation'} differs: the file "
            f"has {_describe_indent(_indent(got))} where the request has "
            f"{_describe_indent(_indent(exp))}"
        )
    else:
        detail = {
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
        }[kind]
    return Difference(kind, detail, exp, got)

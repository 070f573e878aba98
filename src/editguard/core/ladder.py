"""The match ladder: its rungs, how a rung compares two lines, and what a hit on it says.

A *rung* is a set of tolerances; two lines match on a rung when they are equal once the rung's
tolerances are applied to both:

* ``trailing_whitespace``: whitespace at the end of a line is ignored;
* ``punctuation``: typographic quotes, dashes, non-breaking and other Unicode spaces, hyphens
  and the ellipsis stand for their ASCII forms (:data:`PUNCTUATION_MAP`);
* ``line_numbers``: every line of the pattern starts with a line-number prefix pasted from a
  listing (``12│``, ``12|``, ``12:``, ``L12:``, ``12<tab>``); the numbers must be consecutive and
  be the numbers of the lines matched;
* ``indentation``: the whole block is shifted by one number of columns, tabs and spaces compared
  by their width.

Line endings are not a rung here: every text is compared with ``\\n`` breaks (callers normalise).

What no rung does: change letters, digits or names; skip, add or merge lines; collapse whitespace
inside a line; anchor on some lines only; or accept text because it is merely similar.

The search over the rungs is :mod:`editguard.core.seek`; carrying a rung's correction to the new
text is :mod:`editguard.core.correct`. Both read this vocabulary; it is pure.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

LF = "\n"

TRAILING = "trailing_whitespace"
PUNCTUATION_TOLERANCE = "punctuation"
NUMBERS = "line_numbers"
INDENT = "indentation"
_ORDER = (TRAILING, PUNCTUATION_TOLERANCE, NUMBERS, INDENT)


@dataclass(frozen=True, slots=True)
class Rung:
    """A set of tolerances, named by them (``"exact"`` for none, ``"a+b"`` for two)."""

    name: str
    tolerances: frozenset[str]


def rung_of(*tolerances: str) -> Rung:
    """The rung with these tolerances, named in ladder order."""
    ordered = [t for t in _ORDER if t in tolerances]
    return Rung("+".join(ordered) or "exact", frozenset(ordered))


EXACT = rung_of()
TRAILING_WHITESPACE = rung_of(TRAILING)
PUNCTUATION = rung_of(PUNCTUATION_TOLERANCE)
LINE_NUMBERS = rung_of(NUMBERS)
INDENTATION = rung_of(INDENT)

LADDER: tuple[Rung, ...] = (
    EXACT,
    TRAILING_WHITESPACE,
    PUNCTUATION,
    LINE_NUMBERS,
    INDENTATION,
    *(
        rung_of(*combo)
        for size in range(2, len(_ORDER) + 1)
        for combo in itertools.combinations(_ORDER, size)
    ),
)
"""The default ladder, strictest first: exact, each tolerance alone, then their combinations
(pairs, then triples, then all four)."""

PUNCTUATION_MAP = str.maketrans(
    {
        "\u2018": "'",  # left single quote
        "\u2019": "'",  # right single quote
        "\u201a": "'",  # low single quote
        "\u201b": "'",  # reversed single quote
        "\u2032": "'",  # prime
        "\u201c": '"',  # left double quote
        "\u201d": '"',  # right double quote
        "\u201e": '"',  # low double quote
        "\u201f": '"',  # reversed double quote
        "\u2033": '"',  # double prime
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2212": "-",  # minus sign
        "\u2015": "-",  # horizontal bar
        "\u00a0": " ",  # no-break space
        # The typographic spaces (en quad to hair space, figure and thin ones among them), as
        # Codex normalises them too.
        **{chr(c): " " for c in range(0x2000, 0x200B)},
        "\u202f": " ",  # narrow no-break space
        "\u205f": " ",  # medium mathematical space
        "\u3000": " ",  # ideographic space
        "\u2026": "...",  # ellipsis
    }
)
TYPOGRAPHIC = frozenset(chr(c) for c in PUNCTUATION_MAP)


# A pasted line-number prefix: optional padding, an optional L, the number, then a separator
# (│, | or :, optionally after padding) or a tab.
PREFIX = re.compile(r"[ \t]*L?([0-9]{1,9})(?:[ \t]*[\u2502|:]|\t)")


@dataclass(frozen=True, slots=True)
class SeekHit:
    """The pattern occurs at ``lines[line : line + len(pattern)]`` on rung ``rung``.

    ``column``: where the match starts in its first line (0 unless the caller allowed the first
    pattern line to be the end of a line). ``shift``: columns added to the pattern's indentation
    to give the file's, with tabs counted as ``tab`` columns. ``pattern``: the pattern's lines
    as compared (without their line-number prefixes, on a ``line_numbers`` rung).
    """

    line: int
    rung: str
    column: int = 0
    shift: int = 0
    tab: int = 0
    pattern: tuple[str, ...] = ()
    padded: bool = False  # line-number prefixes were taken with one space of padding
    number: int = 0  # the first pasted line number (line_numbers rungs)
    pad_unknown: bool = False  # the prefixes fit with and without a space of padding


# -- comparing lines -----------------------------------------------------------------------


def normalize(line: str, rung: Rung) -> str:
    """``line`` with the rung's character tolerances applied (punctuation, trailing
    whitespace); indentation and line numbers are handled on whole blocks."""
    if PUNCTUATION_TOLERANCE in rung.tolerances:
        line = line.translate(PUNCTUATION_MAP)
    if TRAILING in rung.tolerances:
        line = line.rstrip()
    return line


def split_indent(line: str) -> tuple[str, str]:
    """``line`` as its leading spaces and tabs, and the rest."""
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)], body


def columns(indent: str, tab: int) -> int:
    """The width of ``indent`` with tab stops every ``tab`` columns."""
    col = 0
    for ch in indent:
        col = col + tab - col % tab if ch == "\t" else col + 1
    return col


def lines_match(actual: Sequence[str], expected: Sequence[str], rung: Rung = EXACT) -> bool:
    """Whether ``actual`` and ``expected`` are the same lines on a rung without indentation or
    line-number tolerance."""
    return len(actual) == len(expected) and all(
        normalize(a, rung) == normalize(e, rung) for a, e in zip(actual, expected, strict=True)
    )


def strip_numbers(
    lines: Sequence[str], *, padding: bool = False
) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """``lines`` without their line-number prefixes and the numbers, when every line has one;
    ``None`` otherwise. With ``padding``, one space after a ``:`` or ``|`` separator goes with
    the prefix too (``None`` when a line with text after its prefix lacks that space)."""
    found = [PREFIX.match(line) for line in lines]
    if not lines or not all(found):
        return None
    rests = [line[m.end() :] for line, m in zip(lines, found, strict=True) if m]
    if padding:
        seps = {line[m.end() - 1] for line, m in zip(lines, found, strict=True) if m}
        if not seps <= {":", "|"} or not all(r.startswith(" ") for r in rests if r):
            return None
        rests = [r[1:] for r in rests]
    return tuple(rests), tuple(int(m.group(1)) for m in found if m)


def content_key(line: str) -> str:
    """What every rung keeps of a line: its text without indentation, trailing whitespace or
    typographic punctuation."""
    return line.translate(PUNCTUATION_MAP).strip()


# -- the file's habits ----------------------------------------------------------------------


def indent_unit(lines: Iterable[str], sample: int = 5000) -> int:
    """The width in spaces of one indentation level of a file (4 when it cannot tell)."""
    steps: Counter[int] = Counter()
    previous = 0
    for line in itertools.islice(lines, sample):
        indent, body = split_indent(line)
        if not body or "\t" in indent:
            continue
        width = len(indent)
        if width > previous:
            steps[width - previous] += 1
        previous = width
    common = [step for step, _ in steps.most_common(3) if 2 <= step <= 8]
    return common[0] if common else 4


def file_uses_tabs(lines: Iterable[str], sample: int = 5000) -> bool:
    """Whether more of the first ``sample`` indented lines start with a tab than a space."""
    return bool(uses_tabs(itertools.islice(lines, sample)))


def tolerance_names(rung: str) -> str:
    """A rung's name for a sentence: ``trailing whitespace and indentation``."""
    return " and ".join(rung.replace("_", " ").split("+"))


def uses_tabs(lines: Iterable[str]) -> bool | None:
    """Whether more of ``lines`` start with a tab than with a space; None when none is indented."""
    tabs = spaces = 0
    for line in lines:
        if line.startswith("\t"):
            tabs += 1
        elif line.startswith(" ") and line.strip():
            spaces += 1
    return None if tabs == spaces == 0 else tabs > spaces


def rung_named(name: str) -> Rung:
    """The rung a hit names (:attr:`SeekHit.rung`)."""
    return rung_of(*([] if name == "exact" else name.split("+")))

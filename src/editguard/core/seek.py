"""Find a block of lines inside a longer list of lines: strictly first, then with tolerances.

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

:func:`seek` tries the rungs of a ladder in order, strictest first, and stops at the first rung
that matches anything: a looser rung never adds places to what a stricter one found, so a block
that matches exactly somewhere is never also matched loosely somewhere else. Every hit says which
rung matched and how (:class:`SeekHit`), so a caller can report it, refuse when the number of
places is not the one it expects, and apply the same correction to its new text with
:func:`correct`, which undoes only what the old and new text have in common (never the change
itself, when the change is what the rung ignores).

What no rung does: change letters, digits or names; skip, add or merge lines; collapse whitespace
inside a line; anchor on some lines only; or accept text because it is merely similar.

Pure: lists of strings in, positions out. Every format that matches text by lines reuses it.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

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

_ANCHORS = 8  # distinct pattern lines counted in the text to pick the rarest as the anchor
MAX_PLACES = 1_000
"""A block that could match at more places than this (on the loosest comparison) gets no
tolerance: no rung could pick one of them, and checking them all on every rung would cost the
file times the block."""
MAX_ANCHOR = 100_000  # a block whose rarest distinctive line the file has more often: no tolerance

# A pasted line-number prefix: optional padding, an optional L, the number, then a separator
# (│, | or :, optionally after padding) or a tab.
_PREFIX = re.compile(r"[ \t]*L?([0-9]{1,9})(?:[ \t]*[\u2502|:]|\t)")


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


Opcode = tuple[str, int, int, int, int]
"""difflib's form: ``(tag, i1, i2, j1, j2)``, ``a[i1:i2]`` becomes ``b[j1:j2]``."""


class Uncorrectable(ValueError):
    """The correction that made old text match cannot be applied to the new text without a
    guess; the message says why, in a sentence for the model."""


class OnlyIgnored(Uncorrectable):
    """The new text differs from the old only in what the rung ignores: applied to text found
    with that rung, the edit would change nothing that it means to change."""


# -- comparing lines -----------------------------------------------------------------------


def normalize(line: str, rung: Rung) -> str:
    """``line`` with the rung's character tolerances applied (punctuation, trailing
    whitespace); indentation and line numbers are handled on whole blocks."""
    if PUNCTUATION_TOLERANCE in rung.tolerances:
        line = line.translate(PUNCTUATION_MAP)
    if TRAILING in rung.tolerances:
        line = line.rstrip()
    return line


def _split_indent(line: str) -> tuple[str, str]:
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
    found = [_PREFIX.match(line) for line in lines]
    if not lines or not all(found):
        return None
    rests = [line[m.end() :] for line, m in zip(lines, found, strict=True) if m]
    if padding:
        seps = {line[m.end() - 1] for line, m in zip(lines, found, strict=True) if m}
        if not seps <= {":", "|"} or not all(r.startswith(" ") for r in rests if r):
            return None
        rests = [r[1:] for r in rests]
    return tuple(rests), tuple(int(m.group(1)) for m in found if m)


# -- the search ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Variant:
    """The pattern as one rung family compares it: raw, or without line-number prefixes."""

    lines: tuple[str, ...]
    numbers: tuple[int, ...] | None
    padded: bool = False


def seek(
    lines: Sequence[str],
    pattern: Sequence[str],
    *,
    start: int = 0,
    end: int | None = None,
    ladder: Sequence[Rung] = LADDER,
    first_line: int = 1,
    partial_first: bool = False,
    indent_unit: int = 4,
    numbering: Callable[[int], int | None] | None = None,
) -> list[SeekHit]:
    """Every place in ``lines[start:end]`` where ``pattern`` occurs, on the first rung of
    ``ladder`` that finds any; ``[]`` when none does.

    Places may overlap (``a a`` occurs twice in ``a a a``). An empty pattern occurs at every
    position from ``start`` to ``end`` included, on the first rung.

    ``first_line`` is the line number of ``lines[0]`` (what pasted line numbers are checked
    against). ``partial_first`` lets the first pattern line match the end of a line (as a search
    text may start in the middle of one), on rungs without indentation tolerance.
    ``indent_unit`` is the width of one indentation level of the file in spaces: how many
    columns a tab stands for when one side indents with tabs and the other with spaces.
    ``numbering`` gives the line number that ``lines[i]`` had as the model read it (``None``
    for a line written since); by default ``first_line + i``.
    """
    if numbering is None:
        numbering = lambda i: first_line + i  # noqa: E731
    stop = len(lines) if end is None else min(end, len(lines))
    size = len(pattern)
    if not size:
        first = ladder[0].name if ladder else EXACT.name
        return [SeekHit(at, first) for at in range(start, stop + 1)]
    # The pattern as sent; without line-number prefixes; without them and one space after.
    variants: list[_Variant | None] = [_Variant(tuple(pattern), None), None, None]
    if any(NUMBERS in r.tolerances for r in ladder):
        for vi, padding in ((1, False), (2, True)):
            stripped = strip_numbers(pattern, padding=padding)
            if stripped is not None:
                variants[vi] = _Variant(*stripped, padding)
    candidates = [
        _plausible(lines, _candidates(lines, start, stop, v.lines), v.lines, partial_first)
        if v is not None
        else []
        for v in variants
    ]
    tabs = _tab_widths(pattern, indent_unit)
    for rung in ladder:
        # A pasted listing holds whole lines; its padding is read as text first.
        tries = (1, 2) if NUMBERS in rung.tolerances else (0,)
        found: list[list[SeekHit]] = []
        for vi in tries:
            variant = variants[vi]
            if variant is None:
                found.append([])
                continue
            whole = partial_first and variant.numbers is None
            found.append(
                [
                    hit
                    for at in candidates[vi]
                    if (hit := _match_at(lines, at, variant, rung, numbering, whole, tabs))
                ]
            )
            if found[0] and INDENT not in rung.tolerances:
                break
        if found and found[0]:
            if len(found) > 1 and found[1]:
                # Read with or without a space of padding, the block fits with shifts one
                # column apart: a new text sent without the numbers cannot be placed.
                other = {h.line: h.shift for h in found[1]}
                return [
                    dataclasses.replace(h, pad_unknown=other.get(h.line, h.shift) != h.shift)
                    for h in found[0]
                ]
            return found[0]
        if len(found) > 1 and found[1]:
            return found[1]
    return []


def content_key(line: str) -> str:
    """What every rung keeps of a line: its text without indentation, trailing whitespace or
    typographic punctuation."""
    return line.translate(PUNCTUATION_MAP).strip()


def _candidates(
    lines: Sequence[str], start: int, stop: int, pattern: Sequence[str]
) -> Sequence[int]:
    """Positions where ``pattern`` may start on some rung: where its rarest distinctive line's
    text appears in a line at the right offset. A superset of every rung's hits, found with
    C-speed searches of one joined copy of the lines; none when a line's text is nowhere."""
    last = stop - len(pattern)
    if last < start:
        return []
    keys = [content_key(p) for p in pattern]
    if not any(keys):  # only blank lines: every position is a candidate
        return range(start, last + 1)
    text = LF.join(lines[start:stop]).translate(PUNCTUATION_MAP)
    longest = sorted({k for k in keys if k}, key=len, reverse=True)[:_ANCHORS]
    counts = {k: text.count(k) for k in longest}
    needle = min(longest, key=lambda k: counts[k])
    if not counts[needle] or counts[needle] > MAX_ANCHOR:
        return []
    anchor = keys.index(needle)
    found: list[int] = []
    line, pos = start, 0
    at = text.find(needle)
    while at >= 0:
        line += text.count(LF, pos, at)
        begin = line - anchor
        if start <= begin <= last and (not found or found[-1] != begin):
            found.append(begin)
        nxt = text.find(LF, at)
        if nxt < 0:
            break
        # Next line: one candidate per line is enough.
        line += 1
        pos = nxt + 1
        at = text.find(needle, pos)
    return found


def _plausible(
    lines: Sequence[str], starts: Sequence[int], pattern: Sequence[str], partial_first: bool
) -> list[int]:
    """The starts where every line has the pattern's text once indentation, trailing
    whitespace and punctuation are set aside: what any rung needs, checked once here so that
    the rungs only look at places that can match (a common anchor line may give many)."""
    keys = [content_key(p) for p in pattern]
    cache: dict[int, str] = {}
    out = []
    for at in starts:
        for j, key in enumerate(keys):
            line = cache.get(at + j)
            if line is None:
                line = cache[at + j] = content_key(lines[at + j])
            if line != key and not (j == 0 and partial_first and line.endswith(key)):
                break
        else:
            out.append(at)
            if len(out) > MAX_PLACES:
                return []
    return out


def _tab_widths(pattern: Sequence[str], unit: int) -> tuple[int, ...]:
    """The tab widths to try when tabs meet spaces: the file's indentation unit, then the
    pattern's own (the greatest common divisor of its space indents)."""
    widths = [unit]
    spaces = [len(i) for i in (_split_indent(p)[0] for p in pattern) if i and "\t" not in i]
    own = 0
    for width in spaces:
        own = _gcd(own, width)
    if own >= 2 and own not in widths:
        widths.append(own)
    if 4 not in widths:
        widths.append(4)
    return tuple(widths)


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _match_at(
    lines: Sequence[str],
    at: int,
    variant: _Variant,
    rung: Rung,
    numbering: Callable[[int], int | None],
    partial_first: bool,
    tabs: Sequence[int],
) -> SeekHit | None:
    pattern = variant.lines
    found = lines[at : at + len(pattern)]
    number = 0
    if variant.numbers is not None:
        if any(n != numbering(at + j) for j, n in enumerate(variant.numbers)):
            return None
        number = variant.numbers[0]
    if INDENT in rung.tolerances:
        hit = _match_indented(found, at, pattern, rung, tabs)
        if hit is None:
            return None
        return dataclasses.replace(hit, padded=variant.padded, number=number)
    column = 0
    for j, (f, p) in enumerate(zip(found, pattern, strict=True)):
        nf, np = normalize(f, rung), normalize(p, rung)
        if nf == np:
            continue
        # The end of a line, never nothing: a blank first line is a whole line.
        if j or not partial_first or not np.strip() or not nf.endswith(np):
            return None
        start_at = _start_column(f, len(np), rung)
        if start_at is None:
            return None
        column = start_at
    return SeekHit(at, rung.name, column, 0, 0, pattern, variant.padded, number)


def _start_column(line: str, size: int, rung: Rung) -> int | None:
    """Where in ``line`` the text starts whose normalized form is the last ``size``
    characters of the normalized line."""
    body = line.rstrip() if TRAILING in rung.tolerances else line
    mapped = PUNCTUATION_TOLERANCE in rung.tolerances
    count = 0
    i = len(body)
    while count < size and i > 0:
        i -= 1
        count += len(body[i].translate(PUNCTUATION_MAP)) if mapped else 1
    return i if count == size else None


def _match_indented(
    found: Sequence[str], at: int, pattern: Sequence[str], rung: Rung, tabs: Sequence[int]
) -> SeekHit | None:
    pairs = []
    for f, p in zip(found, pattern, strict=True):
        fi, fb = _split_indent(normalize(f, rung))
        pi, pb = _split_indent(normalize(p, rung))
        if fb != pb:
            return None
        if fb:
            pairs.append((fi, pi))
    if not pairs:
        return None
    mixed = any(("\t" in fi) != ("\t" in pi) or ("\t" in fi and " " in fi) for fi, pi in pairs)
    for tab in tabs if mixed else tabs[:1]:
        shifts = {columns(fi, tab) - columns(pi, tab) for fi, pi in pairs}
        if len(shifts) == 1:
            return SeekHit(at, rung.name, 0, shifts.pop(), tab, tuple(pattern))
    return None


# -- correcting the new text ----------------------------------------------------------------


def indent_unit(lines: Iterable[str], sample: int = 5000) -> int:
    """The width in spaces of one indentation level of a file (4 when it cannot tell)."""
    steps: Counter[int] = Counter()
    previous = 0
    for line in itertools.islice(lines, sample):
        indent, body = _split_indent(line)
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
    return bool(_uses_tabs(itertools.islice(lines, sample)))


def tolerance_names(rung: str) -> str:
    """A rung's name for a sentence: ``trailing whitespace and indentation``."""
    return " and ".join(rung.replace("_", " ").split("+"))


def _uses_tabs(lines: Iterable[str]) -> bool | None:
    tabs = spaces = 0
    for line in lines:
        if line.startswith("\t"):
            tabs += 1
        elif line.startswith(" ") and line.strip():
            spaces += 1
    return None if tabs == spaces == 0 else tabs > spaces


def correct(
    hit: SeekHit,
    found: Sequence[str],
    new: Sequence[str],
    *,
    file_uses_tabs: bool = False,
    file_typographic: frozenset[str] = frozenset(),
    structure: Sequence[Opcode] | None = None,
) -> list[str]:
    """The lines to write for ``new``, given the hit that matched the old lines at ``found``.

    The correction that made the old lines match is applied to the new ones: line-number
    prefixes are removed, the indentation shifted (tabs and spaces as the matched lines use
    them, else as ``file_uses_tabs`` says), typographic punctuation that the file's region wrote
    in ASCII mapped to ASCII (every typographic character the file does not use, as
    ``file_typographic`` lists them, when the old lines held some the region writes in
    ASCII). A new line equal to its old one is written as the file has it, byte for byte.

    A correction undoes only what the old and new lines have in common, never the difference
    between them: a new line that differs from its old one only in what the rung ignores (its
    trailing whitespace removed, a tab for spaces, a typographic quote for an ASCII one) is the
    file's line with the parts the model changed taken from the new line; a changed line keeps
    the punctuation it changes. ``structure``: which old lines the new ones keep, when the
    caller knows it (a patch's context lines), as :func:`line_opcodes` takes it.

    Raises:
        OnlyIgnored: the edit changes only what the rung ignores, and the file's lines already
            read as the new ones in it (nothing to write).
        Uncorrectable: a new line's true form
            cannot be known (a line at column 0 under a block that was sent under-indented,
            mixed line-number prefixes, ASCII quotes where the file uses typographic ones).
    """
    rung = _rung_named(hit.rung)
    old = hit.pattern
    tolerances = rung.tolerances
    if NUMBERS in tolerances:
        new = _strip_new_numbers(new, hit)
    key = _line_key(rung, hit.tab)
    old_keys = [key(line) for line in old]
    new_keys = [key(line) for line in new]
    tabs = _uses_tabs(found)
    if tabs is None:
        tabs = file_uses_tabs
    forms = (
        _punctuation_forms(old, found, file_typographic)
        if PUNCTUATION_TOLERANCE in tolerances
        else None
    )
    out: list[str] = []
    tails = _stray_tails(old, found) if TRAILING in tolerances else {}
    for op, i1, i2, j1, j2 in line_opcodes(old_keys, new_keys, structure):
        if op == "equal":
            for k in range(i2 - i1):
                o, n, f = old[i1 + k], new[j1 + k], found[i1 + k]
                out.append(f if o == n else _merge_line(o, n, f, hit, tolerances, j1 + k))
            continue
        for j in range(j1, j2):
            # A changed line that takes the place of an old line at column 0 is at the
            # block's base (what that old line was); an added one may have been clipped.
            paired = i1 + j - j1 if i2 - i1 == j2 - j1 else None
            base = paired is not None and not _split_indent(old[paired])[0]
            # Tabs or spaces as the file's line it replaces, or the one before it, has them.
            ref = paired if paired is not None else (i1 - 1 if i1 else i1)
            style = _uses_tabs(found[ref : ref + 1]) if ref < len(found) else None
            if paired is not None:
                # Unless the line changes tabs for spaces (or back) itself: that is the edit.
                was, now = _split_indent(old[paired])[0], _split_indent(new[j])[0]
                if was and now and ("\t" in was) != ("\t" in now):
                    style = "\t" in now
            keep = _changed_punctuation(old[paired], new[j]) if paired is not None else set()
            line = _fix_line(
                new[j],
                j,
                hit,
                tolerances,
                tabs if style is None else style,
                forms,
                base=base,
                keep=keep,
            )
            if TRAILING in tolerances:
                line = (
                    _same_tail(line, old[paired], found[paired])
                    if paired is not None
                    else _mapped_tail(line, tails)
                )
            out.append(line)
    if old_keys == new_keys and out == list(found):
        raise OnlyIgnored(
            f"the edit changes only what the {hit.rung.replace('+', ' and ').replace('_', ' ')} "
            "tolerance ignores, and the file's lines already read so"
        )
    return out


def _parts(line: str, tolerances: frozenset[str]) -> tuple[str, str, str]:
    """A line as its indentation, body and trailing whitespace, where the rung ignores those
    (else they are part of the body)."""
    indent = _split_indent(line)[0] if INDENT in tolerances else ""
    rest = line[len(indent) :]
    tail = _tail(rest) if TRAILING in tolerances else ""
    return indent, rest[: len(rest) - len(tail)], tail


def _merge_line(
    old: str, new: str, found: str, hit: SeekHit, tolerances: frozenset[str], index: int
) -> str:
    """The line to write for ``new``, which differs from ``old`` only in what the rung
    ignores, ``old`` having matched the file's ``found``: each part the model kept (the
    indentation, each punctuation character, the trailing whitespace) as the file has it, each
    part it changed as the new line has it. So the correction never undoes the edit."""
    if not new.strip() or not found.strip():
        return new
    oi, ob, ot = _parts(old, tolerances)
    ni, nb, nt = _parts(new, tolerances)
    fi, fb, ft = _parts(found, tolerances)
    tail = ft if nt == ot else nt
    if nb == ob:
        body = fb
    elif len(nb) == len(ob) == len(fb) and "\u2026" not in nb + ob + fb:
        body = "".join(f if n == o else n for o, n, f in zip(ob, nb, fb, strict=True))
    else:
        raise Uncorrectable(
            f"new_text line {index + 1} changes punctuation in a line whose old text differs "
            "from the file's in punctuation too, so which characters you mean cannot be told; "
            "copy the line from the file and change only what you mean"
        )
    slip = len(oi) - len(fi)
    if ni == oi:
        indent = fi
    elif slip >= 0 and oi.endswith(fi) and ni.startswith(oi[:slip]):
        indent = ni[slip:]  # the old lines' extra leading characters taken off the new line
    elif slip < 0 and fi.endswith(oi):
        indent = fi[:-slip] + ni  # the characters they lacked put back
    else:  # the same width, other characters (tabs for spaces): as sent, shifted
        tab = hit.tab or 4
        target = columns(ni, tab) + hit.shift
        if target < 0:
            raise Uncorrectable(
                f"its indentation was {-hit.shift} columns too deep, which would put new_text "
                f"line {index + 1} before column 0; send new_text with the file's indentation"
            )
        indent = "\t" * (target // tab) + " " * (target % tab) if "\t" in ni else " " * target
    return indent + body + tail


def _changed_punctuation(old: str, new: str) -> set[int]:
    """The positions in ``new`` of punctuation characters that the model changed from the
    old line's (a typographic quote for an ASCII one, or back): the difference the edit makes,
    which no correction may map back."""
    if len(old) > 2000 or len(new) > 2000 or old == new:
        return set()
    keep: set[int] = set()
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or i2 - i1 != j2 - j1:
            continue
        for a, b in zip(range(i1, i2), range(j1, j2), strict=True):
            if old[a] != new[b] and old[a].translate(PUNCTUATION_MAP) == new[b].translate(
                PUNCTUATION_MAP
            ):
                keep.add(b)
    return keep


_DIFF_BUDGET = 10_000
"""Pairs of lines difflib may compare in one :func:`line_opcodes` call: its matcher is cubic
on repeated lines (200 lines against 200 take a tenth of a second, 2000 a minute)."""


def line_opcodes(
    a: Sequence[object], b: Sequence[object], structure: Sequence[Opcode] | None = None
) -> list[Opcode]:
    """Opcodes from ``a`` to ``b`` covering both, equal runs as ``"equal"`` and every other
    run as ``"replace"``, ``"delete"`` or ``"insert"``.

    With ``structure`` (opcodes covering both, from what the caller knows: a patch's context,
    removed and added lines), those, set right in linear time: an ``"equal"`` line that
    differs is changed, and a changed run's first and last lines equal on both sides are kept.
    Without it, the lines both start and end with are kept, and the middle is compared by
    difflib while that is cheap (at most :data:`_DIFF_BUDGET` pairs), else it is one run.
    """
    if structure is None:
        structure = [("replace", 0, len(a), 0, len(b))]
        budget = _DIFF_BUDGET
    else:
        budget = 0
    runs: list[list[int]] = []  # changed runs, adjacent ones merged
    for tag, i1, i2, j1, j2 in structure:
        if tag == "equal":
            for k in range(i2 - i1):
                if a[i1 + k] != b[j1 + k]:
                    _add_run(runs, i1 + k, i1 + k + 1, j1 + k, j1 + k + 1)
        elif i1 < i2 or j1 < j2:
            _add_run(runs, i1, i2, j1, j2)
    out: list[Opcode] = []
    i = j = 0
    for run in runs:
        i1, i2, j1, j2 = run
        while i1 < i2 and j1 < j2 and a[i1] == b[j1]:
            i1, j1 = i1 + 1, j1 + 1
        while i1 < i2 and j1 < j2 and a[i2 - 1] == b[j2 - 1]:
            i2, j2 = i2 - 1, j2 - 1
        if i1 == i2 and j1 == j2:
            continue
        if i < i1:
            out.append(("equal", i, i1, j, j1))
        if 0 < (i2 - i1) * (j2 - j1) <= budget:
            budget -= (i2 - i1) * (j2 - j1)
            matcher = SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False)
            out += [(t, p + i1, q + i1, r + j1, s + j1) for t, p, q, r, s in matcher.get_opcodes()]
        else:
            out.append(
                (
                    "replace" if i1 < i2 and j1 < j2 else "delete" if i1 < i2 else "insert",
                    i1,
                    i2,
                    j1,
                    j2,
                )
            )
        i, j = i2, j2
    if i < len(a) or j < len(b):
        out.append(("equal", i, len(a), j, len(b)))
    return out


def _add_run(runs: list[list[int]], i1: int, i2: int, j1: int, j2: int) -> None:
    if runs and runs[-1][1] == i1 and runs[-1][3] == j1:
        runs[-1][1], runs[-1][3] = i2, j2
    else:
        runs.append([i1, i2, j1, j2])


def _rung_named(name: str) -> Rung:
    return rung_of(*([] if name == "exact" else name.split("+")))


def _line_key(rung: Rung, tab: int) -> Callable[[str], object]:
    indented = INDENT in rung.tolerances

    def key(line: str) -> object:
        text = normalize(line, rung)
        if not indented:
            return text
        indent, body = _split_indent(text)
        return (columns(indent, tab or 4) if body else 0, body)

    return key


def _strip_new_numbers(new: Sequence[str], hit: SeekHit) -> Sequence[str]:
    """``new`` without the line-number prefixes the model pasted on it too: when its first
    line with text starts with the number the old text started with. Otherwise what looks like
    a prefix is text (``1: "one"`` in a dict) and stays."""
    texts = [line for line in new if line]
    first = _PREFIX.match(texts[0]) if texts else None
    if first is None or int(first.group(1)) != hit.number:
        if hit.pad_unknown:
            raise Uncorrectable(
                "its line-number prefixes may or may not end with a space, so new_text sent "
                "without them cannot be indented; send new_text with the file's indentation, "
                "or with the same prefixes"
            )
        return new
    if not all(_PREFIX.match(line) for line in texts):
        raise Uncorrectable(
            "old_text had a line-number prefix on every line, and new_text has one on some "
            "lines only, so it cannot be told which are prefixes; send both without them"
        )
    stripped = strip_numbers(texts, padding=hit.padded) or strip_numbers(texts)
    assert stripped is not None
    rest = iter(stripped[0])
    return [next(rest) if line else line for line in new]


def _tail(line: str) -> str:
    return line[len(line.rstrip()) :]


def _stray_tails(old: Sequence[str], found: Sequence[str]) -> dict[str, str]:
    """The trailing whitespace the old lines were sent with where the file's lines end
    otherwise, and how those end: one file ending per stray ending, or it is left out."""
    seen: dict[str, set[str]] = {}
    for o, f in zip(old, found, strict=False):
        if _tail(o) and _tail(o) != _tail(f):
            seen.setdefault(_tail(o), set()).add(_tail(f))
    return {tail: ends.pop() for tail, ends in seen.items() if len(ends) == 1}


def _mapped_tail(line: str, tails: dict[str, str]) -> str:
    """An added line ending with a stray ending of the old lines ends as the file's did."""
    tail = _tail(line)
    if tail in tails:
        return line[: len(line) - len(tail)] + tails[tail]
    return line


def _same_tail(line: str, old: str, found: str) -> str:
    """A changed line that ends with the same stray whitespace as the old line it replaces
    (whitespace the file's line does not have) ends as the file's line does. A line sent
    without trailing whitespace stays so: that is how a model writes a line it means."""
    tail, old_tail, found_tail = (x[len(x.rstrip()) :] for x in (line, old, found))
    if tail and tail == old_tail and old_tail != found_tail:
        return line[: len(line) - len(tail)] + found_tail
    return line


def _punctuation_forms(
    old: Sequence[str], found: Sequence[str], used: frozenset[str]
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """How the old lines' punctuation stood to the file's, character by character:

    * the typographic characters the old lines wrote where the file has ASCII, and never where
      it has them too (a changed line gets them mapped to ASCII, and with them every other
      typographic character the file does not use: the model writes them all so);
    * the ASCII forms the old lines wrote where the file has a typographic character (a
      changed line holding one is ambiguous);
    * the typographic characters written both for ASCII and for themselves (ambiguous too).
    """
    mismatched: set[str] = set()
    genuine: set[str] = set()
    reverse: set[str] = set()
    for o, f in zip(old, found, strict=False):
        for oc, fc in _aligned(o, f):
            if oc == fc:
                if oc in TYPOGRAPHIC:
                    genuine.add(oc)
            elif oc in TYPOGRAPHIC:
                mismatched.add(oc)
            elif fc in TYPOGRAPHIC:
                reverse.add(oc)
    forward = mismatched - genuine
    if forward:
        forward |= TYPOGRAPHIC - used - genuine
    return frozenset(forward), frozenset(reverse), frozenset(mismatched & genuine)


def _aligned(old: str, found: str) -> list[tuple[str, str]]:
    """The characters of a matched old line and the file's line, paired where they differ
    only in punctuation (an ellipsis pairs with the first of its three dots); ``[]`` when the
    lines differ otherwise (their whitespace, which the other tolerances handle)."""
    o, f = old.strip(), found.strip()
    om = [(i, ch) for i, c in enumerate(o) for ch in c.translate(PUNCTUATION_MAP)]
    fm = [(k, ch) for k, c in enumerate(f) for ch in c.translate(PUNCTUATION_MAP)]
    if [c for _, c in om] != [c for _, c in fm]:
        return []
    pairs: dict[int, str] = {}
    for (i, _), (k, _) in zip(om, fm, strict=True):
        pairs.setdefault(i, f[k])
    return [(o[i], fc) for i, fc in pairs.items()]


def _fix_line(
    line: str,
    index: int,
    hit: SeekHit,
    tolerances: frozenset[str],
    tabs: bool,
    forms: tuple[frozenset[str], frozenset[str], frozenset[str]] | None,
    *,
    base: bool = False,
    keep: set[int] | frozenset[int] = frozenset(),
) -> str:
    if forms is not None:
        ascii_only, reverse, both = forms
        if any(c in both for c in line):
            raise Uncorrectable(
                f"new_text line {index + 1} has typographic characters that old_text wrote both "
                "for the file's ASCII ones and for its own, so it cannot be told which you "
                "mean; copy those characters from the file"
            )
        if any(form in line for form in reverse):
            raise Uncorrectable(
                f"new_text line {index + 1} has ASCII punctuation where the file's lines use "
                "typographic characters, so it cannot be told which one you mean; copy those "
                "characters from the file"
            )
        if ascii_only:
            line = "".join(
                c.translate(PUNCTUATION_MAP) if c in ascii_only and i not in keep else c
                for i, c in enumerate(line)
            )
    if INDENT not in tolerances:
        return line
    indent, body = _split_indent(line)
    if not body:
        return ""  # a blank line's whitespace was shifted too: it has none of its own
    width = columns(indent, hit.tab or 4)
    if hit.shift > 0 and width == 0 and not base:
        raise Uncorrectable(
            f"its indentation was {hit.shift} columns short, and new_text line {index + 1} adds "
            "a line at column 0, whose true column cannot be known; send new_text with the "
            "file's indentation"
        )
    target = width + hit.shift
    if target < 0:
        raise Uncorrectable(
            f"its indentation was {-hit.shift} columns too deep, which would put new_text line "
            f"{index + 1} before column 0; send new_text with the file's indentation"
        )
    tab = hit.tab or 4
    new_indent = "\t" * (target // tab) + " " * (target % tab) if tabs else " " * target
    return new_indent + body


def used(hit: SeekHit, found: Sequence[str]) -> str:
    """The tolerances of the hit's rung that the matched lines needed (a chunk's rung always
    includes trailing whitespace, say, and a combination may hold one that changed nothing),
    named like a rung; the rung's own name when none can be told."""
    rung = _rung_named(hit.rung)
    old = hit.pattern
    pairs = list(zip(found, old, strict=False))
    needed = []
    if TRAILING in rung.tolerances and any(
        f[len(f.rstrip()) :] != p[len(p.rstrip()) :] for f, p in pairs
    ):
        needed.append(TRAILING)
    if PUNCTUATION_TOLERANCE in rung.tolerances and any(
        (c in TYPOGRAPHIC) for f, p in pairs if f != p for c in f + p
    ):
        needed.append(PUNCTUATION_TOLERANCE)
    if NUMBERS in rung.tolerances:
        needed.append(NUMBERS)
    if INDENT in rung.tolerances and (hit.shift or _converted(hit, found)):
        needed.append(INDENT)
    return rung_of(*needed).name if needed else hit.rung


def _converted(hit: SeekHit, found: Sequence[str]) -> bool:
    """Whether tabs stood for spaces or the other way round."""

    def tabbed(lines: Iterable[str]) -> bool:
        return any("\t" in _split_indent(line)[0] for line in lines)

    return tabbed(found) != tabbed(hit.pattern)


def explain(hit: SeekHit, found: Sequence[str], what: str = "old_text") -> str:
    """One sentence telling the model what differed from the file (in ``what`` it sent), so it
    can send the file's text exactly next time."""
    tolerances = _rung_named(used(hit, found)).tolerances
    parts = []
    if TRAILING in tolerances:
        parts.append("trailing whitespace")
    if PUNCTUATION_TOLERANCE in tolerances:
        parts.append("typographic quotes, dashes or spaces (the file has other ones)")
    if NUMBERS in tolerances:
        parts.append("a line-number prefix on every line")
    if INDENT in tolerances:
        shift = f"indentation off by {abs(hit.shift)} column{'s' * (abs(hit.shift) != 1)}"
        if _converted(hit, found):
            tabs = (
                "tabs where the file has spaces"
                if any(line.startswith("\t") for line in hit.pattern)
                else "spaces where the file has tabs"
            )
            parts.append(tabs + (f", {shift}" if hit.shift else ""))
        else:
            parts.append(shift)
    return (
        f"{what} differed from the file in {'; '.join(parts)}, and the new text was corrected "
        "the same way. Send the file's exact text next time."
    )

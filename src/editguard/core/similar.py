"""Finding what a model probably meant when its text is not in the file, and saying what differs.

Where to look. The file's lines are stripped once per pass, in blocks of ``_BLOCK`` lines:

* every line of a multi-line needle votes for the places where its exact copies in the file
  would put the needle (stripped of indentation, curly quotes made straight); a line found in
  many places splits its vote among them, one found in more than ``_COMMON`` places does not
  vote, and two lines in a row vote again as a pair (two common lines may be together once).
  One pass: the cost of the file plus the needle.
* when no place has ``_SURE_VOTES`` (a typo in the one distinctive line), the ``_ANCHORS`` most
  distinctive needle lines are looked up fuzzily (rapidfuzz, C++, one scan of the file).
* a one-line needle is looked up fuzzily as a whole line, and, when no whole line is close, as
  part of a longer line. The part search compares only lines longer than the needle: a short
  line such as ``return`` would otherwise fit inside the needle and score 100.
* a needle whose lines all start with line-number prefixes (``12│``, ``12|``, ``12:``,
  ``L12:``, ``12\\t``, as read_file and other tools show lines) is searched without them, and
  the line it names is a place too.

How the places are ranked. Each place gives a window of the needle's length, compared with the
needle line by line with indentation, trailing whitespace, runs of spaces and quote characters
made alike (so wrong indentation, tabs or curly quotes still rank the intended lines first), by
Levenshtein distance (a changed letter is one edit). The best and the voted places are also
tried a line longer or shorter at either end, and the best windows are then moved a line at a
time while that brings them closer (a line dropped or added). A voted place is not crowded out
by places that are merely similar: the needle may be the intended lines plus a stray line. Only
a bounded number of windows is compared in full, so the cost grows with the file plus the
needle, never with their product.

Each region found says what differs from the needle (:func:`describe`, in
:mod:`editguard.core.differences`; importable from here too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from editguard.core.differences import (
    LINE_NUMBER,
    Difference,
    comparable,
    describe,
    unnumbered,
)
from editguard.core.document import LF

__all__ = [
    "MAX_SIMILARITY_UNEQUAL",
    "SHORT_LINE",
    "Difference",
    "SimilarRegion",
    "describe",
    "find_similar",
    "look_alike",
]

_BLOCK = 100_000  # lines stripped at a time: bounds the memory of the stripped copies
_ANCHOR_HITS = 8  # best lines kept per fuzzy lookup and block
_ANCHORS = 2  # needle lines looked up fuzzily
_FUZZY_CUTOFF = 50  # a line less alike than this (of 100) is no fuzzy hit: lets rapidfuzz skip it
_COMMON = 50  # a needle line with more exact copies than this does not vote
_VOTED = 8  # places kept from the votes
_VOTED_SHORT = 200  # ... for a needle of short lines only, whose places tie by the dozen
SHORT_LINE = 12  # a region of lines no longer than this (stripped) may stand at many places
_EXPANDED = 8  # best places whose windows are also tried a line longer or shorter at either end
_REFINED = 6  # best windows whose ends are then moved line by line
_KEPT = 12  # best windows kept as candidates (besides the best of each voted place)
_MAX_SHIFT = 3  # lines either end of a window may move
_SURE_VOTES = 2.0  # votes for a place that make a fuzzy lookup needless
_VOTED_PLACE = 0.5  # votes of a place that a less similar one may not crowd out
_WHOLE_LINE_CLOSE = 90  # a whole line this close (of 100): no need to look inside longer lines
MAX_SIMILARITY_UNEQUAL = 0.99  # text that differs is never shown as 100% similar


@dataclass(frozen=True, slots=True)
class SimilarRegion:
    """A region of the file close to the searched text: lines (1-based), score and exact text.

    ``similarity`` is at most 0.99 unless ``text`` is the searched text itself.
    """

    start_line: int
    end_line: int
    similarity: float
    text: str
    differences: tuple[Difference, ...]
    lines: str = ""  # the whole lines the region lies on (text may be part of one line)


@dataclass(frozen=True, slots=True)
class _Candidate:
    score: float  # 0..100, the needle and the text compared line by line, normalized
    alike: float  # 0..100, the same by rapidfuzz's ratio (kinder to added text): the threshold
    raw: float  # 0..100, compared as they are: breaks ties
    start: int  # 0-based first line
    stop: int  # 0-based line after the last
    text: str
    lines: str
    votes: float = 0.0  # exact needle lines that put the needle here (1 for a line found once)


def find_similar(text: str, needle: str, limit: int = 3) -> list[SimilarRegion]:
    """Up to ``limit`` regions of ``text`` most similar to ``needle``, best first.

    Regions do not overlap. Each is at least 50% alike, or holds a line of the needle that the
    file has at most twice: the needle may be the intended lines and a line from elsewhere.
    """
    if not needle.strip():
        return []
    lines = text.split(LF)
    if text.endswith(LF):
        lines.pop()
    variants = _variants(needle)
    candidates = _fragments(lines, [(w[0], at) for w, at in variants if len(w) == 1], needle)
    for wanted, at in variants:
        if len(wanted) > 1:
            candidates += _blocks(lines, wanted, needle, at)
    chosen = _best_distinct(candidates, limit)
    blocks = [w for w, _ in variants if len(w) > 1]
    if blocks:
        chosen = _widened(lines, chosen, blocks[-1])
    return [
        SimilarRegion(
            c.start + 1,
            c.stop,
            min(c.score / 100, MAX_SIMILARITY_UNEQUAL) if c.text != needle else 1.0,
            c.text,
            describe(_compared_to(needle, c, text.endswith(LF) or c.stop < len(lines)), c.text),
            c.lines,
        )
        for c in chosen
    ]


def _widened(lines: list[str], chosen: list[_Candidate], wanted: list[str]) -> list[_Candidate]:
    """Each region, widened to take in a line just past either end (up to the needle's length
    and one more) that is an exact copy of a needle line the region lacks: a needle made of
    the intended lines and a line from a little further away shows both."""
    keys = {_key(w) for w in wanted if _key(w)}
    limit = len(wanted) + 1
    out: list[_Candidate] = []
    for index, c in enumerate(chosen):
        start, stop = c.start, c.stop
        if c.text != c.lines:  # part of a line: nothing to widen
            out.append(c)
            continue
        others = [o for i, o in enumerate(chosen) if i != index]
        missing = keys - {_key(line) for line in lines[start:stop]}
        for _ in range(2):
            grown = False
            room = limit - (stop - start)
            for idx in range(stop, min(stop + room, len(lines))):
                if _key(lines[idx]) in missing and not _overlaps(others, start, idx + 1):
                    stop, grown = idx + 1, True
                    break
            room = limit - (stop - start)
            for idx in range(start - 1, max(start - 1 - room, -1), -1):
                if _key(lines[idx]) in missing and not _overlaps(others, idx, stop):
                    start, grown = idx, True
                    break
            missing -= {_key(line) for line in lines[start:stop]}
            if not grown or not missing:
                break
        if (start, stop) == (c.start, c.stop):
            out.append(c)
            continue
        found = LF.join(lines[start:stop])
        target = LF.join(comparable(w) for w in wanted)
        value = _likeness(target, LF.join(comparable(line) for line in lines[start:stop]))
        raw = fuzz.ratio(LF.join(wanted), found)
        out.append(_Candidate(value, c.alike, raw, start, stop, found, found, c.votes))
    return out


def look_alike(text: str, region: SimilarRegion, limit: int = 1000) -> list[int]:
    """The other places (1-based first lines) where ``text`` has lines that the ranking cannot
    tell from ``region``'s (equal once normalized), up to ``limit``; ``[]`` unless every line
    of the region is short (brackets, ``end``, ``return``: the blocks that stand at many places,
    where the intended one may not be among the few regions shown). Costs one pass over the
    lines."""
    shown = region.lines.split(LF)
    keys = [comparable(line) for line in shown]
    if not any(keys) or any(len(line.strip()) > SHORT_LINE for line in shown):
        return []
    lines = text.split(LF)
    anchor = max(range(len(keys)), key=lambda i: len(keys[i]))
    probe = keys[anchor]
    out: list[int] = []
    for idx, line in enumerate(lines):
        if probe not in line or comparable(line) != probe:
            continue
        start = idx - anchor
        if start < 0 or start + len(keys) > len(lines) or start + 1 == region.start_line:
            continue
        if all(comparable(lines[start + j]) == key for j, key in enumerate(keys)):
            out.append(start + 1)
            if len(out) == limit:
                break
    return out


def _overlaps(regions: list[_Candidate], start: int, stop: int) -> bool:
    return any(o.start < stop and start < o.stop for o in regions)


def _compared_to(needle: str, region: _Candidate, followed: bool) -> str:
    """The needle as compared with the region's text: without its final line break when the
    region's whole lines are followed by one in the file (a region's text never ends with its
    line break, which is no difference)."""
    if followed and region.text == region.lines and needle.endswith(LF):
        return needle[:-1]
    return needle


def _variants(needle: str) -> list[tuple[list[str], int | None]]:
    """The needle's lines as sent, and as the model may have meant them: backslash escapes
    read as line breaks, line-number prefixes removed; each with the line number its first
    line had (None without one)."""
    wanted = _lines_of(needle)
    out: list[tuple[list[str], int | None]] = [(wanted, None)]
    if len(wanted) == 1 and "\\n" in needle:
        unescaped = _lines_of(needle.replace("\\n", LF).replace("\\t", "\t"))
        if len(unescaped) > 1:
            out.append((unescaped, None))
    for lines, _ in list(out):
        options = unnumbered(lines)
        number = LINE_NUMBER.match(lines[0])
        if options and number:
            # Several lines numbered one after the other are surely prefixes; one line might
            # really start with "12:" (YAML), so it is searched both ways.
            out = [o for o in out if o[0] is not lines or len(lines) == 1]
            out.append((options[0], int(number.group(1))))
    return out


def _lines_of(text: str) -> list[str]:
    lines = text.split(LF)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


# -- where to look ---------------------------------------------------------------------------

# Curly and typographic quotes as the straight one a source file most likely has.
_UNCURL = str.maketrans(
    dict.fromkeys("\u2018\u2019\u201a\u2032", "'")
    | dict.fromkeys("\u201c\u201d\u201e\u00ab\u00bb\u2033", '"')
)


def _key(line: str) -> str:
    """What a needle line is looked up by among the file's stripped lines."""
    return line.strip().translate(_UNCURL)


@dataclass(slots=True)
class _Scan:
    hits: dict[str, list[int]]  # exact copies of needle keys: line indexes (at most _COMMON + 1)
    fuzzy: list[list[tuple[float, int]]]  # per query: best (score, line index), best first


def _scan(
    lines: list[str],
    exact: set[str],
    queries: Sequence[str],
    scorer: Callable[..., float],
    longer_than: int = -1,
) -> _Scan:
    """One pass over the file's stripped lines: where the ``exact`` keys occur, and the lines
    that ``scorer`` finds closest to each of ``queries``, if at least ``_FUZZY_CUTOFF`` alike
    (among lines longer than ``longer_than`` characters only, when given)."""
    hits: dict[str, list[int]] = {}
    fuzzy: list[list[tuple[float, int]]] = [[] for _ in queries]
    for base in range(0, len(lines), _BLOCK):
        keys = [line.strip() for line in lines[base : base + _BLOCK]]
        for i in [i for i, k in enumerate(keys) if k in exact] if exact else []:
            found = hits.setdefault(keys[i], [])
            if len(found) <= _COMMON:
                found.append(base + i)
        if longer_than >= 0:
            keys = [k if len(k) > longer_than else "" for k in keys]
        for query, best in zip(queries, fuzzy, strict=True):
            for _, score, idx in process.extract(
                query, keys, scorer=scorer, limit=_ANCHOR_HITS, score_cutoff=_FUZZY_CUTOFF
            ):
                best.append((score, base + idx))
    for best in fuzzy:
        best.sort(key=lambda item: -item[0])
        del best[_ANCHOR_HITS * 2 :]
    return _Scan(hits, fuzzy)


def _fragments(
    lines: list[str], variants: list[tuple[str, int | None]], needle: str
) -> list[_Candidate]:
    """Lines close to one of the one-line ``variants`` as whole lines, or, when none is close,
    lines holding a part close to one (a variant that starts with indentation means a whole
    line: it is not looked for inside lines). A variant's line number, if any, is a candidate
    too, with a vote."""
    wanted = [w for w, _ in variants if _key(w)]
    if not wanted:
        return []
    hinted = {
        (at - 1, w) for w, at in variants if _key(w) and at is not None and 0 < at <= len(lines)
    }
    queries = [_key(w) for w in wanted]
    found = {
        (idx, w)
        for w, best in zip(wanted, _scan(lines, set(), queries, fuzz.ratio).fuzzy, strict=True)
        for _, idx in best
    }
    parts = [(w, q) for w, q in zip(wanted, queries, strict=True) if _is_part(w)]
    if parts and not any(
        _likeness(comparable(w), comparable(lines[idx])) >= _WHOLE_LINE_CLOSE for idx, w in found
    ):
        shortest = min(len(q) for _, q in parts)
        scan = _scan(lines, set(), [q for _, q in parts], fuzz.partial_ratio, shortest)
        for (w, q), best in zip(parts, scan.fuzzy, strict=True):
            found |= {(idx, w) for _, idx in best if len(lines[idx].strip()) > len(q)}
    return [
        _fragment(lines[idx], idx, w, needle, 1.0 if (idx, w) in hinted else 0.0)
        for idx, w in sorted(found | hinted)
    ]


def _is_part(wanted: str) -> bool:
    """Whether a one-line text may be part of a line: it does not start with indentation."""
    return not wanted[:1].isspace()


def _fragment(line: str, idx: int, wanted: str, needle: str, votes: float) -> _Candidate:
    """The line, or the part of it closest to ``wanted`` when that part is closer. For a
    ``wanted`` that may be part of a line, the line's own indentation and trailing whitespace
    are no difference: the text is taken without them."""
    target = comparable(wanted)
    text, score = line, _likeness(target, comparable(line))
    query = _key(wanted)
    if _is_part(wanted) and line.strip():
        text = line.strip()
    if _is_part(wanted) and len(line.strip()) > len(query):
        align = fuzz.partial_ratio_alignment(query, line)
        if align is not None:
            part = line[align.dest_start : align.dest_end].strip()
            part_score = _likeness(target, comparable(part))
            if part and part_score > score:
                text, score = part, part_score
    alike = fuzz.ratio(target, comparable(text))
    return _Candidate(score, alike, fuzz.ratio(needle, text), idx, idx + 1, text, line, votes)


def _blocks(lines: list[str], wanted: list[str], needle: str, at: int | None) -> list[_Candidate]:
    """Windows of ``lines`` close to the block ``wanted``; ``at`` the line number that its
    first line had, if it was numbered (a place with a vote: the file may have changed since)."""
    keys = [_key(w) for w in wanted]
    present = [k for k in keys if k]
    if not present or not lines:
        return []
    hits = _scan(lines, set(present), [], fuzz.ratio).hits
    # Each place (the file line of the needle's first line) with the file lines that vote for
    # it, and their weights.
    voters: dict[int, list[tuple[int, float]]] = {}
    for i, k in enumerate(keys):
        found = hits.get(k) if k else None
        if found and len(found) <= _COMMON:
            for idx in found:
                voters.setdefault(idx - i, []).append((idx, 1 / len(found)))
    # Two lines in a row vote too, as a pair: two common lines ("{", "return false;") may be
    # found together in one place only.
    for i in range(1, len(keys)):
        pair = _pair_places(lines, hits, keys[i - 1], keys[i])
        for idx in pair:
            voters.setdefault(idx - i, []).append((idx, 1 / len(pair)))
    votes = {s: sum(w for _, w in voters[s]) for s in voters}
    ranked = sorted(votes, key=lambda s: (-votes[s], s))
    short = all(len(k) <= SHORT_LINE for k in present)
    starts = {s: voters[s] for s in ranked[: _VOTED_SHORT if short else _VOTED]}
    if not ranked or votes[ranked[0]] < _SURE_VOTES:
        # Votes too weak to be sure (a typo in the one distinctive line): the most distinctive
        # lines are also looked up fuzzily. Most different characters first (a rule of dashes
        # has one), then the longest.
        anchors = sorted(set(present), key=lambda k: (-len(set(k)), -len(k), k))[:_ANCHORS]
        fuzzy = _scan(lines, set(), anchors, fuzz.ratio).fuzzy
        for anchor, best in zip(anchors, fuzzy, strict=True):
            rows = [i for i, k in enumerate(keys) if k == anchor][:2]
            for _, idx in best:
                for i in rows:
                    starts.setdefault(idx - i, voters.get(idx - i, []))
    if at is not None and 0 < at <= len(lines):
        starts[at - 1] = [*starts.get(at - 1, []), (at - 1, 1.0)]
    return _ranked_windows(lines, wanted, needle, starts)


def _pair_places(
    lines: list[str], hits: dict[str, list[int]], first: str, second: str
) -> list[int]:
    """Where the file has line ``first`` right before line ``second`` (stripped): the index of
    the second. Looked up from the places of whichever of the two is not common; ``[]`` when
    both are (or either is blank or missing)."""
    a, b = hits.get(first, []), hits.get(second, [])
    if not first or not second or not a or not b:
        return []
    if len(b) <= _COMMON:
        return [idx for idx in b if idx > 0 and lines[idx - 1].strip() == first]
    if len(a) <= _COMMON:
        return [idx + 1 for idx in a if idx + 1 < len(lines) and lines[idx + 1].strip() == second]
    return []


def _ranked_windows(
    lines: list[str],
    wanted: list[str],
    needle: str,
    starts: dict[int, list[tuple[int, float]]],
) -> list[_Candidate]:
    """Windows at the ``starts`` (each with its voting lines), of the needle's length give or
    take a line, compared with it; the best ones then moved a line at a time while that helps.
    A window's votes are those that the best place near its start has inside it."""
    target = LF.join(comparable(w) for w in wanted)
    normalized: dict[int, str] = {}

    def score(start: int, stop: int) -> float:
        for i in range(start, stop):
            if i not in normalized:
                normalized[i] = comparable(lines[i])
        return _likeness(target, LF.join(normalized[i] for i in range(start, stop)))

    size, count = len(wanted), len(lines)
    windows: dict[tuple[int, int], tuple[float, int]] = {}  # (start, stop): (score, place)

    def add(start: int, stop: int, place: int) -> None:
        start = min(max(start, 0), count - 1)
        stop = max(min(stop, count), start + 1)
        if (start, stop) not in windows:
            windows[start, stop] = (score(start, stop), place)

    def votes(window: tuple[int, int]) -> float:
        # The votes of the best place that a window this near its start may stand for.
        start, stop = window
        near = range(start - _MAX_SHIFT - 1, start + _MAX_SHIFT + 2)
        return max(
            (sum(w for idx, w in starts[p] if start <= idx < stop) for p in near if p in starts),
            default=0.0,
        )

    for s in starts:
        add(s, s + size, s)
    # A line added or dropped at either end moves the window's start or its end by one: tried
    # at the best places and at the voted ones.
    tried = sorted(windows, key=lambda w: (-windows[w][0], w))[:_EXPANDED]
    for s in {windows[w][1] for w in tried} | {s for s, voters in starts.items() if voters}:
        for shift in (-1, 0, 1):
            for end in range(s + size - 1, s + size + 2):
                add(s + shift, end, s)
    for start0, stop0 in sorted(windows, key=lambda w: (-windows[w][0], w))[:_REFINED]:
        start, stop = start0, stop0
        value, place = windows[start, stop]
        moved = True
        while moved:
            moved = False
            for a, b in (
                (start - 1, stop),
                (start + 1, stop),
                (start, stop - 1),
                (start, stop + 1),
            ):
                if (
                    0 <= a < b <= count
                    and abs(a - start0) <= _MAX_SHIFT
                    and abs(b - stop0) <= _MAX_SHIFT
                    and (a, b) not in windows
                ):
                    windows[a, b] = (score(a, b), place)
                    if windows[a, b][0] > value:
                        start, stop, value, moved = a, b, windows[a, b][0], True
    # Only the best windows, and the best of each voted place, are candidates (each one costs
    # two more full comparisons).
    ranked = sorted(windows, key=lambda w: (-windows[w][0], w))
    kept = dict.fromkeys(ranked[:_KEPT])
    places: set[int] = set()
    for window in ranked:
        if windows[window][1] not in places and votes(window) >= _VOTED_PLACE:
            places.add(windows[window][1])
            kept[window] = None
    out = []
    for start, stop in kept:
        found = LF.join(lines[start:stop])
        alike = fuzz.ratio(target, LF.join(normalized[i] for i in range(start, stop)))
        raw = fuzz.ratio(needle, found)
        value = windows[start, stop][0]
        out.append(_Candidate(value, alike, raw, start, stop, found, found, votes((start, stop))))
    return out


def _likeness(a: str, b: str) -> float:
    """0..100: one minus the Levenshtein distance over the longer length. A typo (one
    character changed) costs one edit, as it does for the eye; rapidfuzz's ratio would count it
    twice and tie it with a character added and another removed."""
    return Levenshtein.normalized_similarity(a, b) * 100


def _best_distinct(candidates: list[_Candidate], limit: int) -> list[_Candidate]:
    """The ``limit`` best candidates that do not overlap, best first, of those at least 50%
    alike by either measure. The best place where a distinctive line of the needle occurs
    exactly (a vote of at least ``_VOTED_PLACE``), if not shown, takes the last slot from a
    candidate with fewer votes, however unlike the rest is: the needle may be two pieces of the
    file, a line from elsewhere added to the intended lines."""
    candidates.sort(key=lambda c: (-c.score, -c.raw, c.start, c.stop))
    out: list[_Candidate] = []
    for c in candidates:
        if max(c.score, c.alike) < 50:
            continue
        if any(o.start < c.stop and c.start < o.stop for o in out):
            continue
        out.append(c)
        if len(out) == limit:
            break
    voted = [
        c
        for c in candidates
        if c.votes >= _VOTED_PLACE and not any(o.start < c.stop and c.start < o.stop for o in out)
    ]
    if voted and limit:
        place = min(voted, key=lambda c: (-c.votes, -c.score, -c.raw, c.start, c.stop))
        if len(out) < limit:
            out.append(place)
        elif out[-1].votes < place.votes:
            out[-1] = place
        out.sort(key=lambda c: (-c.score, -c.raw, c.start, c.stop))
    return out

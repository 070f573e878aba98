"""The single mistakes a model makes when it copies lines of a file into ``old_text``, applied to
blocks of real released source files (``tests/symbol_samples``, without the handwritten ones, and
``tests/corpus/*.old``).

:func:`samples` draws blocks of 1 to 50 lines (many of 1 to 8) with a seeded generator, applies
one mistake to each, and keeps the samples a diagnosis can be held to. The mistakes: one
character changed, added or removed (also in part of a line), a blank line missing or extra,
indentation a level deeper or shallower, tabs for spaces or spaces for tabs, a stray line of the
file (from at least 10 lines away) added at the start or the end, a line dropped inside, trailing
whitespace, curly quotes, and line-number prefixes as tools print them (``12│``, ``12|``,
``12: ``, ``L12:``, ``    12\t``). Dropping a line at either end of a block is not drawn: the
rest of the block is still in the file, so the edit matches. A sample is skipped, and counted,
when:

* ``trivial``: no line of the block has 3 or more non-space characters (``}``, blank lines);
* ``not_unique``: the block's lines, stripped, occur elsewhere in the file too, so "the intended
  lines" are not one place;
* ``still_matches``: the mistaken text still occurs in the file (a blank line added where the
  file has one, one line shifted left);
* ``ambiguous``: at least 3 other places of the file, apart from each other and from the block,
  are at least as close to the mistaken text (Levenshtein distance) as the block itself, so no
  ranking of 3 regions could be asked to show it. Checked for blocks of up to 8 lines, and for
  a part of a line against the closest part of every line.

A block that a mistake cannot apply to (no quote to curl, no indentation to shift, no blank line
inside) is not a skip: another block is drawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from editguard.core.document import decode

HERE = Path(__file__).parent

SOURCES: tuple[Path, ...] = tuple(
    sorted(
        [
            p
            for p in (HERE / "symbol_samples").rglob("*.txt")
            if not p.name.startswith("handwritten_")
        ]
        + [p for p in (HERE / "corpus").rglob("*.old") if p.stat().st_size > 200]
    )
)
"""Real released files only (the handwritten symbol samples are left out)."""

Lines = list[str]
Change = Callable[[Lines, random.Random, int, Lines], Lines | None]
"""(block, rng, first line number 1-based, all lines of the file) -> mistaken block or None."""

Mistake = Callable[[Lines, random.Random, int, Lines], tuple[str, Lines] | None]
"""The same, returning the intended text (the block, or part of its line) with the mistaken
lines."""


def _whole(change: Change) -> Mistake:
    def apply(
        block: Lines, rng: random.Random, first: int, lines: Lines
    ) -> tuple[str, Lines] | None:
        mistaken = change(block, rng, first, lines)
        return None if mistaken is None else ("\n".join(block), mistaken)

    return apply


def _code_lines(block: Lines) -> list[int]:
    return [i for i, line in enumerate(block) if len(line.strip()) >= 3]


def _typo(change: str) -> Change:
    def apply(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
        rows = _code_lines(block)
        if not rows:
            return None
        row = rng.choice(rows)
        line = block[row]
        spots = [i for i, c in enumerate(line) if c.isalnum()]
        if not spots:
            return None
        at = rng.choice(spots)
        old = line[at]
        pool = "0123456789" if old.isdigit() else "abcdefghijklmnopqrstuvwxyz"
        new = rng.choice([c for c in pool if c != old.lower()])
        new = new.upper() if old.isupper() else new
        if change == "changed":
            line = line[:at] + new + line[at + 1 :]
        elif change == "added":
            line = line[:at] + new + line[at:]
        else:
            line = line[:at] + line[at + 1 :]
        return [*block[:row], line, *block[row + 1 :]]

    return apply


def _typo_in_part(
    block: Lines, rng: random.Random, first: int, lines: Lines
) -> tuple[str, Lines] | None:
    # Part of one line, from a word's start to a word's end, of at least 8 characters, that
    # occurs nowhere else in the file; then one character changed in it.
    line = block[0]
    starts = [
        i for i, c in enumerate(line) if c.isalnum() and (i == 0 or not line[i - 1].isalnum())
    ]
    ends = [
        i + 1
        for i, c in enumerate(line)
        if c.isalnum() and (i + 1 == len(line) or not line[i + 1].isalnum())
    ]
    spans = [(a, b) for a in starts for b in ends if b - a >= 8 and (a, b) != (starts[0], ends[-1])]
    if len(block) != 1 or not spans:
        return None
    a, b = rng.choice(spans)
    part = line[a:b]
    if sum(row.count(part) for row in lines) != 1:
        return None
    mistaken = _typo("changed")([part], rng, first, lines)
    return None if mistaken is None else (part, mistaken)


def _blank_missing(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
    rows = [i for i in range(1, len(block) - 1) if not block[i].strip()]
    if not rows:
        return None
    row = rng.choice(rows)
    return block[:row] + block[row + 1 :]


def _blank_extra(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
    if len(block) < 2:
        return None
    row = rng.randrange(1, len(block))
    return [*block[:row], "", *block[row:]]


def _unit(lines: Lines) -> str:
    tabs = sum(1 for line in lines if line.startswith("\t"))
    spaces = sum(1 for line in lines if line.startswith(" "))
    return "\t" if tabs > spaces else "    "


def _indent_deeper(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
    unit = _unit(lines)
    return [unit + line if line.strip() else line for line in block]


def _indent_shallower(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
    # One line shifted left is still part of the file's line: it matches.
    unit = _unit(lines)
    code = [line for line in block if line.strip()]
    if len(block) < 2 or not code or not all(line.startswith(unit) for line in code):
        return None
    return [line[len(unit) :] if line.strip() else line for line in block]


def _tabs_vs_spaces(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
    out = []
    for line in block:
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        if "\t" in indent:
            indent = indent.expandtabs(4)
        else:
            indent = "\t" * (len(indent) // 4) + " " * (len(indent) % 4)
        out.append(indent + body)
    return None if out == block else out


def _line_added(at_end: bool) -> Change:
    def apply(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
        # A line of the same file from elsewhere, at least 10 lines away (a line from right
        # beside the block would make it lines dropped in between): what a model that
        # misremembers writes.
        start = first - 1
        others = [
            line
            for i, line in enumerate(lines)
            if len(line.strip()) >= 3 and not start - 10 <= i < start + len(block) + 10
        ]
        if not others:
            return None
        extra = rng.choice(others)
        return [*block, extra] if at_end else [extra, *block]

    return apply


def _line_dropped_inside(
    block: Lines, rng: random.Random, first: int, lines: Lines
) -> Lines | None:
    rows = [i for i in range(1, len(block) - 1) if block[i].strip()]
    if not rows:
        return None
    row = rng.choice(rows)
    return block[:row] + block[row + 1 :]


def _trailing_whitespace(
    block: Lines, rng: random.Random, first: int, lines: Lines
) -> Lines | None:
    rows = _code_lines(block)
    if not rows:
        return None
    row = rng.choice(rows)
    return [*block[:row], block[row] + rng.choice(["  ", " ", "\t"]), *block[row + 1 :]]


_CURLY = {'"': ("\u201c", "\u201d"), "'": ("\u2018", "\u2019")}


def _curly_quotes(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
    out = []
    for line in block:
        chars = []
        opened = dict.fromkeys(_CURLY, False)
        for c in line:
            if c in _CURLY:
                chars.append(_CURLY[c][opened[c]])
                opened[c] = not opened[c]
            else:
                chars.append(c)
        out.append("".join(chars))
    return None if out == block else out


def _numbered(form: Callable[[int, int], str]) -> Change:
    def apply(block: Lines, rng: random.Random, first: int, lines: Lines) -> Lines | None:
        width = len(str(first + len(block) - 1))
        return [form(n, width) + line for n, line in enumerate(block, first)]

    return apply


MISTAKES: dict[str, Mistake] = {
    "typo_changed": _whole(_typo("changed")),
    "typo_added": _whole(_typo("added")),
    "typo_removed": _whole(_typo("removed")),
    "typo_in_part_of_a_line": _typo_in_part,
    "blank_line_missing": _whole(_blank_missing),
    "blank_line_extra": _whole(_blank_extra),
    "indentation_deeper": _whole(_indent_deeper),
    "indentation_shallower": _whole(_indent_shallower),
    "tabs_vs_spaces": _whole(_tabs_vs_spaces),
    "line_added_at_start": _whole(_line_added(at_end=False)),
    "line_added_at_end": _whole(_line_added(at_end=True)),
    "line_dropped_inside": _whole(_line_dropped_inside),
    "trailing_whitespace": _whole(_trailing_whitespace),
    "curly_quotes": _whole(_curly_quotes),
    "line_numbers_box": _whole(_numbered(lambda n, w: f"{n:>{w}}\u2502")),
    "line_numbers_pipe": _whole(_numbered(lambda n, w: f"{n:>{w}}|")),
    "line_numbers_colon": _whole(_numbered(lambda n, w: f"{n:>{w}}: ")),
    "line_numbers_l_colon": _whole(_numbered(lambda n, w: f"L{n}:")),
    "line_numbers_tab": _whole(_numbered(lambda n, w: f"{n:>6}\t")),
}


@dataclass(frozen=True, slots=True)
class Sample:
    """One mistaken ``needle`` for the intended lines ``start_line..end_line`` (1-based) of
    ``text``, the file as ``source`` holds it."""

    source: Path
    text: str
    kind: str
    start_line: int
    end_line: int
    needle: str
    intended: str  # the text the needle stands for: the block, or the part of its one line

    def overlaps(self, start_line: int, end_line: int) -> bool:
        """Whether lines ``start_line..end_line`` share a line with the intended ones."""
        return start_line <= self.end_line and self.start_line <= end_line

    def __str__(self) -> str:
        return f"{self.source.name}:{self.start_line}-{self.end_line} {self.kind} {self.needle!r}"


@dataclass(slots=True)
class Draw:
    """The samples drawn for one mistake, and how many were skipped for each reason."""

    samples: list[Sample]
    skipped: dict[str, int]

    @property
    def skip_rate(self) -> float:
        """Skipped samples over all samples drawn."""
        skipped = sum(self.skipped.values())
        return skipped / (skipped + len(self.samples))


def read(path: Path) -> str:
    """A source file's text as editguard sees it (decoded, line breaks normalized)."""
    return decode(path.read_bytes()).text


def _size(rng: random.Random) -> int:
    return rng.choice([1, 1, 1, 2, 2, 3, 4, 6, 8]) if rng.random() < 0.6 else rng.randint(1, 50)


def _unique(keys: Lines, start: int, size: int) -> bool:
    block = keys[start : start + size]
    return not any(
        keys[i : i + size] == block
        for i in range(len(keys) - size + 1)
        if i != start and keys[i] == block[0]
    )


def _distance_in(needle: str, line: str) -> int:
    """The least Levenshtein distance from ``needle`` to a part of ``line`` (semi-global)."""
    row = [0] * (len(line) + 1)
    for i, c in enumerate(needle, 1):
        prev, row[0] = row[0], i
        for j, d in enumerate(line, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (c != d))
    return min(row)


def _ambiguous_part(lines: Lines, row: int, needle: str) -> bool:
    best = _distance_in(needle, lines[row])
    close = process.extract(needle, lines, scorer=fuzz.partial_ratio, limit=100, score_cutoff=50)
    rivals = [i for _, _, i in close if i != row and _distance_in(needle, lines[i]) <= best]
    return len(rivals) >= 3


def _ambiguous(lines: Lines, start: int, block: Lines, needle: str, *, part: bool) -> bool:
    size = len(block)
    if part:
        return _ambiguous_part(lines, start, needle)
    if size > 8:
        return False
    best = Levenshtein.distance(needle, "\n".join(block))
    rivals, last = 0, -size
    for i in range(len(lines) - size + 1):
        if abs(i - start) < size or i < last + size:
            continue
        window = "\n".join(lines[i : i + size])
        if Levenshtein.distance(needle, window, score_cutoff=best) <= best:
            rivals, last = rivals + 1, i
            if rivals >= 3:
                return True
    return False


def _draws(kind: str, per_file: int, seed: int) -> Iterator[Sample | str]:
    mistake = MISTAKES[kind]
    for path in SOURCES:
        text = read(path)
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        keys = [line.strip() for line in lines]
        rng = random.Random(f"{seed}:{kind}:{path.relative_to(HERE).as_posix()}")
        drawn = tries = 0
        while drawn < per_file and tries < 200:
            tries += 1
            size = min(_size(rng), len(lines))
            start = rng.randrange(len(lines) - size + 1)
            block = lines[start : start + size]
            made = mistake(block, rng, start + 1, lines)
            if made is None or made[1] == block:
                continue
            intended, mistaken = made
            drawn += 1
            needle = "\n".join(mistaken)
            if not _code_lines(block):
                yield "trivial"
            elif not _unique(keys, start, size):
                yield "not_unique"
            elif needle in text:
                yield "still_matches"
            elif _ambiguous(lines, start, block, needle, part=kind == "typo_in_part_of_a_line"):
                yield "ambiguous"
            else:
                yield Sample(path, text, kind, start + 1, start + size, needle, intended)


def samples(kind: str, per_file: int = 4, seed: int = 20250101) -> Draw:
    """``per_file`` samples of mistake ``kind`` from every source file (fewer where the mistake
    applies to no block of a file), minus the skipped ones."""
    draw = Draw([], {})
    for item in _draws(kind, per_file, seed):
        if isinstance(item, str):
            draw.skipped[item] = draw.skipped.get(item, 0) + 1
        else:
            draw.samples.append(item)
    return draw

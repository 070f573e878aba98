"""Real edits from real code, and the ways a model mis-copies the text it means to replace.

A :class:`RealEdit` is one exact edit of a real file: the hunks of the release pairs in
``tests/corpus/`` (see ``release_pairs.py``), and edits made up on real blocks of the real files
in ``tests/symbol_samples/`` (Go, JavaScript, TypeScript, Rust, Java, C, C++, C#, Ruby, PHP ...):
one identifier or number changed, a line inserted at the block's indentation, a line deleted, a
line commented out. Each knows the file's bytes, its ``old_text`` (exact and unique in the file),
its ``new_text``, the bytes that the exact edit gives, and the lines of the block it means.

A :class:`Mistake` turns ``(old_text, new_text)`` into what a model sends when it mis-copies the
file: CRLF line breaks, trailing whitespace, typographic punctuation, read_file's line-number
prefixes, the whole block one indentation level off, tabs for spaces, and combinations of them.
Such an edit may land (exactly as the exact edit would) or be refused; it must never write a
third file. Traps are mistakes that change what the text says (a letter, a digit, a name, a blank
line, a line at either end, inner spaces): they must always be refused.

:func:`mistake_cases` skips a transformed edit that is no mistake at all: a text that occurs
exactly in the file (a legitimate edit elsewhere), and for the tolerable kinds a text whose lines,
read loosely, also match some other place of the file (a different edit, or an ambiguity that
the ladder must refuse; the ambiguity tests cover that on purpose).
"""

from __future__ import annotations

import random
import re
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from editguard import EditError, Workspace
from editguard.core.document import decode, normalize_newlines
from editguard.core.formats.search_replace import SearchReplace, compile_search_replace
from editguard.core.plan import render

from .release_pairs import (
    CORPUS,
    PAIRS,
    build_edits,
    count_overlapping,
    split_lines,
    widen_until_unique,
)

SAMPLES = Path(__file__).parent / "symbol_samples"
EDITS_PER_SAMPLE = 12
BLOCK_SIZES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 30, 40, 50)
MAX_BLOCK_LINES = 60  # a made-up block widened past this to be unique is tried elsewhere
# Typographic characters a word processor (or a model) puts for ASCII ones, and the ASCII that the
# punctuation rung maps them to.
TO_ASCII_CHARS = {
    "\u2018": "'",  # left single quotation mark
    "\u2019": "'",  # right single quotation mark
    "\u201c": '"',  # left double quotation mark
    "\u201d": '"',  # right double quotation mark
    "\u2013": "-",  # en dash
    "\u2014": "-",  # em dash
    "\u00a0": " ",  # no-break space
    "\u2011": "-",  # non-breaking hyphen
    "\u2026": "...",  # horizontal ellipsis
}
TYPOGRAPHIC = "".join(TO_ASCII_CHARS)
TO_ASCII = str.maketrans(TO_ASCII_CHARS)


# --------------------------------------------------------------------------------------------
# Real edits


@dataclass(frozen=True, slots=True)
class RealEdit:
    """One exact, unique edit of a real file.

    Attributes:
        source: where it comes from (a corpus pair and hunk, or a sample file and what changed).
        file_name: the file's name as written to disk (its real extension).
        data: the file's bytes before the edit.
        old_text: occurs exactly once in the file (``\\n`` line breaks, as edit_file takes them).
        new_text: what replaces it.
        expected: the file's bytes after the exact edit.
        first_line: 1-based line where ``old_text`` starts.
        last_line: 1-based line where it ends (inclusive).
        text: the file's decoded text, line breaks normalized to ``\\n``.
        indent_unit: one level of the file's indentation (a tab, or some spaces).
    """

    source: str
    file_name: str
    data: bytes
    old_text: str
    new_text: str
    expected: bytes
    first_line: int
    last_line: int
    text: str
    indent_unit: str

    @property
    def context(self) -> FileContext:
        """What a mistake transform may know of the file."""
        return FileContext(
            text=self.text,
            first_line=self.first_line,
            indent_unit=self.indent_unit,
            seed=zlib.crc32(self.source.encode()),
        )


def apply_exact(data: bytes, old_text: str, new_text: str) -> bytes:
    """The file's bytes after the exact edit, by editguard's engine in memory (encoding, BOM and
    line endings kept).

    Raises:
        EditError: when ``old_text`` does not occur exactly once.
    """
    doc = decode(data)
    compiled = compile_search_replace(doc, [SearchReplace(old_text, new_text)])
    return b"".join(render(doc, compiled.plan))


# Corpus files whose lines end in whitespace, which no hunk of theirs touches: edits made up
# around those lines give the trailing-whitespace mistakes something to strip.
PADDED_FILES = (
    "configobj-5.0.8-5.0.9/src/configobj/__init__.py",
    "configobj-5.0.8-5.0.9/README.derived-utf16le-bom.md",
    "xlwt-1.2.0-1.3.0/xlwt/UnicodeUtils.py",
)
EDITS_PER_PADDED_FILE = 8


@cache
def real_edits() -> tuple[RealEdit, ...]:
    """Every real edit: the corpus hunks, then edits made up on real blocks of the sample files,
    then edits made up around the lines with trailing whitespace of ``PADDED_FILES``."""
    samples = [(p.parent.name, p.name.removesuffix(".txt"), p.read_bytes()) for p in sample_files()]
    padded = [
        (name.rsplit("/", 1)[0], name.rsplit("/", 1)[-1], (CORPUS / f"{name}.old").read_bytes())
        for name in PADDED_FILES
    ]
    return (
        *_corpus_edits(),
        *_made_up_edits(samples, EDITS_PER_SAMPLE, padded_only=False),
        *_made_up_edits(padded, EDITS_PER_PADDED_FILE, padded_only=True),
    )


def _real_edit(source: str, file_name: str, data: bytes, old_text: str, new_text: str) -> RealEdit:
    text = decode(data).text
    start = text.find(old_text)
    assert start >= 0, source
    assert count_overlapping(text, old_text) == 1, source
    first = text.count("\n", 0, start) + 1
    lines = old_text.count("\n") + (0 if old_text.endswith("\n") else 1)
    return RealEdit(
        source=source,
        file_name=file_name,
        data=data,
        old_text=old_text,
        new_text=new_text,
        expected=apply_exact(data, old_text, new_text),
        first_line=first,
        last_line=first + lines - 1,
        text=text,
        indent_unit=indent_unit(text),
    )


def _corpus_edits() -> list[RealEdit]:
    """Each hunk of each release pair, on the file as the hunks below it left it (bottom-up)."""
    out: list[RealEdit] = []
    for pair in PAIRS:
        old, new = pair.texts()
        edits, _ = build_edits(old, new, "bottom_up")
        data = pair.old_bytes
        for number, edit in enumerate(edits, 1):
            old_text, new_text = str(edit["old_text"]), str(edit["new_text"])
            source = f"{pair.name} hunk {number}"
            real = _real_edit(source, pair.file_name, data, old_text, new_text)
            out.append(real)
            data = real.expected
        assert data == pair.new_bytes, pair.name
    return out


def sample_files() -> list[Path]:
    """The real (not handwritten) source files of ``tests/symbol_samples/``."""
    return sorted(p for p in SAMPLES.glob("*/*.txt") if not p.name.startswith("handwritten_"))


def _made_up_edits(
    files: Sequence[tuple[str, str, bytes]], per_file: int, *, padded_only: bool
) -> list[RealEdit]:
    """``per_file`` edits of each ``(folder, file name, bytes)``, on blocks drawn at random (with a
    fixed seed); with ``padded_only``, blocks that hold a line ending in whitespace."""
    out: list[RealEdit] = []
    operations = ("rename", "number", "insert", "delete", "comment_out")
    for folder, file_name, data in files:
        lines = split_lines(decode(data).text)
        padded = [i for i, line in enumerate(lines) if line.rstrip("\n") != line.rstrip()]
        rng = random.Random(file_name)
        made: set[str] = set()
        attempts = 0
        while len(made) < per_file and attempts < 50 * per_file:
            attempts += 1
            operation = operations[attempts % len(operations)]  # a file may have no number
            size = BLOCK_SIZES[(len(made) * 7 + attempts) % len(BLOCK_SIZES)]
            if padded_only:
                start = max(0, rng.choice(padded) - rng.randrange(size))
            else:
                start = rng.randrange(len(lines))
            edit = _made_up_edit(lines, file_name, operation, start, size, rng)
            if edit is None or edit[0] in made:
                continue
            old_text, new_text, what = edit
            made.add(old_text)
            source = f"{folder}/{file_name} {what}"
            out.append(_real_edit(source, file_name, data, old_text, new_text))
    return out


IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{2,}\b")
NUMBER = re.compile(r"\b\d+\b")


def _made_up_edit(
    lines: list[str], file_name: str, operation: str, start: int, size: int, rng: random.Random
) -> tuple[str, str, str] | None:
    """An edit of the real block of about ``size`` lines from ``start`` (0-based):
    ``(old_text, new_text, description)``, or None when the block does not suit ``operation``."""
    stop = min(start + size, len(lines))
    while stop > start + 1 and not lines[stop - 1].strip():
        stop -= 1
    if not lines[start].strip():
        return None
    start, stop = widen_until_unique(lines, start, stop)
    if stop - start > MAX_BLOCK_LINES or not lines[stop - 1].endswith("\n"):
        return None
    block = lines[start:stop]
    code = [i for i, line in enumerate(block) if line.strip()]
    comment = "# " if file_name.endswith((".py", ".rb")) else "// "
    changed = list(block)
    where = rng.choice(code)
    line = block[where]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if operation == "rename":
        names = list(IDENTIFIER.finditer(line))
        if not names:
            return None
        name = rng.choice(names)
        changed[where] = f"{line[: name.end()]}2{line[name.end() :]}"
        what = f"renames {name.group()} on line {start + where + 1}"
    elif operation == "number":
        numbers = [(i, m) for i in code for m in NUMBER.finditer(block[i])]
        if not numbers:
            return None
        where, found = rng.choice(numbers)
        line = block[where]
        changed[where] = f"{line[: found.start()]}{int(found.group()) + 1}{line[found.end() :]}"
        what = f"changes {found.group()} on line {start + where + 1}"
    elif operation == "insert":
        changed.insert(where + 1, f"{indent}{comment}checked by the caller\n")
        what = f"inserts a line after line {start + where + 1}"
    elif operation == "delete":
        del changed[where]
        what = f"deletes line {start + where + 1}"
    else:
        changed[where] = f"{indent}{comment}{line.strip()}\n"
        what = f"comments out line {start + where + 1}"
    old_text, new_text = "".join(block), "".join(changed)
    if rng.random() < 0.5 and new_text.endswith("\n"):
        trimmed = old_text[:-1]
        text = "".join(lines)
        if count_overlapping(text, trimmed) == 1:
            old_text, new_text = trimmed, new_text[:-1]
    if old_text == new_text:
        return None
    return old_text, new_text, f"lines {start + 1}-{stop}: {what}"


def indent_unit(text: str) -> str:
    """One indentation level of ``text``: a tab when most indented lines start with one, else the
    most common increase of leading spaces from one line to the next (4 when there is none)."""
    tabs = spaces = 0
    steps: Counter[int] = Counter()
    previous = 0
    for line in text.split("\n"):
        if not line.strip():
            continue
        stripped = line.lstrip(" \t")
        lead = line[: len(line) - len(stripped)]
        if lead.startswith("\t"):
            tabs += 1
            continue
        if lead:
            spaces += 1
        if len(lead) > previous:
            steps[len(lead) - previous] += 1
        previous = len(lead)
    if tabs > spaces:
        return "\t"
    usual = [step for step, _ in steps.most_common() if step in (2, 3, 4, 8)]
    return " " * (usual[0] if usual else 4)


# --------------------------------------------------------------------------------------------
# Mistakes


@dataclass(frozen=True, slots=True)
class FileContext:
    """What a mistake may know of the file: its text, where the block starts (1-based), its
    indentation unit, and a seed for the choices a transform makes."""

    text: str
    first_line: int
    indent_unit: str
    seed: int


Transform = Callable[[str, str, FileContext], tuple[str, str] | None]


@dataclass(frozen=True, slots=True)
class Mistake:
    """A way of mis-copying an edit. ``trap``: the result says something else and must never
    land."""

    kind: str
    transform: Transform
    trap: bool = False


def _lines_of(text: str) -> list[str]:
    """The lines of ``text`` without their ``\\n`` (the empty piece after a final line break is no
    line)."""
    pieces = text.split("\n")
    return pieces[:-1] if len(pieces) > 1 and not pieces[-1] else pieces


def _map_lines(text: str, change: Callable[[int, str], str]) -> str:
    """``text`` with ``change(index, line)`` applied to each of its lines, line breaks kept."""
    lines = _lines_of(text)
    changed = "\n".join(change(i, line) for i, line in enumerate(lines))
    return changed + "\n" if text.endswith("\n") else changed


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def crlf(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """Every line break written as CRLF."""
    if "\n" not in old:
        return None
    return old.replace("\n", "\r\n"), new.replace("\n", "\r\n")


def trailing_whitespace(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """Spaces or a tab after some lines of old_text, and after their copies in new_text."""
    rng = random.Random(ctx.seed)
    contents = [line for line in _lines_of(old) if line == line.rstrip()]
    if not contents:
        return None
    chosen = rng.sample(sorted(set(contents)), k=max(1, len(set(contents)) // 2))
    suffix = {line: rng.choice((" ", "  ", "\t", "    ", " \t")) for line in chosen}
    return (
        _map_lines(old, lambda _, line: line + suffix.get(line, "")),
        _map_lines(new, lambda _, line: line + suffix.get(line, "")),
    )


def trailing_whitespace_stripped(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """The trailing whitespace that the file has left out of old_text and of its copies."""
    padded = {line for line in _lines_of(old) if line != line.rstrip()}
    if not padded:
        return None
    return (
        _map_lines(old, lambda _, line: line.rstrip() if line in padded else line),
        _map_lines(new, lambda _, line: line.rstrip() if line in padded else line),
    )


_QUOTES = re.compile(r"[\"']")
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])'(?=[A-Za-z])")
_WORD_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")


def _typographic_line(line: str) -> str:
    line = _APOSTROPHE.sub("\u2019", line)
    count = {'"': 0, "'": 0}

    def curl(match: re.Match[str]) -> str:
        quote = match.group()
        count[quote] += 1
        opening = count[quote] % 2 == 1
        if quote == '"':
            return "\u201c" if opening else "\u201d"
        return "\u2018" if opening else "\u2019"

    line = _QUOTES.sub(curl, line)
    line = line.replace(" - ", " \u2013 ").replace("...", "\u2026")
    line = _WORD_HYPHEN.sub("\u2011", line, count=1)
    return line.replace(", ", ",\u00a0", 1)


def punctuation(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """ASCII quotes, dashes, ellipses and spaces turned typographic, as a word processor does."""
    if any(c in TYPOGRAPHIC for c in old + new):
        return None  # the way back to ASCII would not be the file's own characters
    typographic = _map_lines(old, lambda _, line: _typographic_line(line))
    if typographic == old:
        return None
    return typographic, _map_lines(new, lambda _, line: _typographic_line(line))


LINE_NUMBER_STYLES = {
    "box": "{n}│",
    "box_padded": "{n:>6}│",
    "pipe": "{n}|",
    "colon": "{n}: ",
    "L": "L{n}:",
    "tab": "{n}\t",
}


def line_number_style(ctx: FileContext) -> str:
    """The prefix style a transform uses for this edit: each style in turn, by the edit's seed."""
    return list(LINE_NUMBER_STYLES)[ctx.seed % len(LINE_NUMBER_STYLES)]


def _numbered(text: str, ctx: FileContext) -> str:
    prefix = LINE_NUMBER_STYLES[line_number_style(ctx)]
    return _map_lines(text, lambda i, line: prefix.format(n=ctx.first_line + i) + line)


def line_numbers(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """Each line of old_text behind its real line number, as a read_file or ``cat -n`` listing
    shows it (the style depends on the edit); new_text as it is."""
    return _numbered(old, ctx), new


def line_numbers_in_new(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """Line-number prefixes on old_text as in :func:`line_numbers`, and on every line of new_text
    too, counted from the same first line."""
    if not new:
        return None
    return _numbered(old, ctx), _numbered(new, ctx)


def _shifted(text: str, unit: str, deeper: bool) -> str:
    def shift(_: int, line: str) -> str:
        if not line.strip():
            return line
        if deeper:
            return unit + line
        if line.startswith(unit):
            return line[len(unit) :]
        return line.lstrip(" \t")  # clipped at column 0: its real column is lost

    return _map_lines(text, shift)


def indent_deeper(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """Every non-blank line of old_text and new_text one indentation level deeper."""
    return _shifted(old, ctx.indent_unit, True), _shifted(new, ctx.indent_unit, True)


def indent_shallower(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """Every non-blank line one level shallower; a line that has less indentation than that is
    clipped at column 0 (then the block's shape is lost: such an edit must be refused)."""
    return _shifted(old, ctx.indent_unit, False), _shifted(new, ctx.indent_unit, False)


def _convert_indentation(text: str, to_tabs: bool, width: int) -> str:
    def convert(_: int, line: str) -> str:
        lead = _lead(line)
        if to_tabs and lead and set(lead) == {" "}:
            return "\t" * (len(lead) // width) + " " * (len(lead) % width) + line[len(lead) :]
        if not to_tabs and lead.startswith("\t"):
            tabs = len(lead) - len(lead.lstrip("\t"))
            return " " * (width * tabs) + line[tabs:]
        return line

    return _map_lines(text, convert)


def tabs_for_spaces(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """A space-indented file's indentation written with tabs (one per indentation unit)."""
    unit = ctx.indent_unit
    if unit == "\t" or not any(_lead(line).startswith(unit) for line in _lines_of(old)):
        return None
    width = len(unit)
    return _convert_indentation(old, True, width), _convert_indentation(new, True, width)


def spaces_for_tabs(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """A tab-indented block's leading tabs written as 4 spaces each."""
    if not any(line.startswith("\t") for line in _lines_of(old)):
        return None
    return _convert_indentation(old, False, 4), _convert_indentation(new, False, 4)


def combined(*transforms: Transform) -> Transform:
    """The transforms applied one after the other (None when any does not apply)."""

    def transform(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
        result: tuple[str, str] | None = (old, new)
        for step in transforms:
            assert result is not None
            result = step(*result, ctx)
            if result is None:
                return None
        return result

    return transform


# Traps: each changes what old_text says.


def _pick(
    old: str, rng: random.Random, pattern: re.Pattern[str]
) -> tuple[int, re.Match[str]] | None:
    """A random match of ``pattern`` in a line of ``old``, with the line's index."""
    found = [(i, m) for i, line in enumerate(_lines_of(old)) for m in pattern.finditer(line)]
    return rng.choice(found) if found else None


def _replace_in_line(text: str, index: int, start: int, end: int, by: str) -> str:
    return _map_lines(text, lambda i, line: line[:start] + by + line[end:] if i == index else line)


def typo(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """One letter of one line of old_text changed to another letter."""
    rng = random.Random(ctx.seed)
    picked = _pick(old, rng, re.compile(r"[A-Za-z]"))
    if picked is None:
        return None
    index, found = picked
    letter = found.group()
    base = ord("a") if letter.islower() else ord("A")
    other = chr(base + (ord(letter) - base + rng.randrange(1, 26)) % 26)
    return _replace_in_line(old, index, found.start(), found.end(), other), new


def number_changed(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """One digit of old_text changed."""
    rng = random.Random(ctx.seed)
    picked = _pick(old, rng, re.compile(r"\d"))
    if picked is None:
        return None
    index, found = picked
    other = str((int(found.group()) + rng.randrange(1, 10)) % 10)
    return _replace_in_line(old, index, found.start(), found.end(), other), new


def name_changed(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """One identifier renamed everywhere in old_text and new_text (remembered wrong)."""
    rng = random.Random(ctx.seed)
    picked = _pick(old, rng, IDENTIFIER)
    if picked is None:
        return None
    name = picked[1].group()
    other = name[:-1] if name.endswith("s") else name + "s"
    word = re.compile(rf"\b{re.escape(name)}\b")
    return word.sub(other, old), word.sub(other, new)


def blank_dropped(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """One blank line of old_text left out."""
    lines = old.split("\n")
    blanks = [i for i, line in enumerate(lines[:-1]) if not line.strip()]
    if not blanks:
        return None
    drop = random.Random(ctx.seed).choice(blanks)
    return "\n".join(lines[:drop] + lines[drop + 1 :]), new


def blank_added(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """A blank line inserted between two lines of old_text."""
    lines = _lines_of(old)
    if len(lines) < 2:
        return None
    at = random.Random(ctx.seed).randrange(1, len(lines))
    pieces = old.split("\n")
    return "\n".join([*pieces[:at], "", *pieces[at:]]), new


def line_dropped_end(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """The first or the last line of old_text left out (of new_text too when it has it there).

    What is left always occurs in the file; it is a trap only where it occurs more than once.
    """
    lines = _lines_of(old)
    if len(lines) < 2:
        return None
    if random.Random(ctx.seed).random() < 0.5:
        first = lines[0] + "\n"
        return old.removeprefix(first), new.removeprefix(first)
    last = lines[-1] + "\n" if old.endswith("\n") else "\n" + lines[-1]
    return old.removesuffix(last), new.removesuffix(last)


def line_added_end(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """A line of the file that is not the block's neighbour (the one next to it is skipped) added
    at the start or the end of old_text and new_text, as if the model had misread where the block
    begins or ends."""
    file_lines = ctx.text.split("\n")
    count = len(_lines_of(old))
    first, last = ctx.first_line - 1, ctx.first_line - 1 + count - 1
    if random.Random(ctx.seed).random() < 0.5 and first >= 2:
        line = file_lines[first - 2]
        return f"{line}\n{old}", f"{line}\n{new}"
    if last + 2 < len(file_lines) and old.endswith("\n"):
        line = file_lines[last + 2]
        return f"{old}{line}\n", f"{new}{line}\n"
    return None


_INNER_SPACES = re.compile(r"(?<=\S) {2,}(?=\S)")


def whitespace_collapsed(old: str, new: str, ctx: FileContext) -> tuple[str, str] | None:
    """Runs of spaces inside lines of old_text (and of their copies in new_text) made one."""
    collapsed = {
        line: _INNER_SPACES.sub(" ", line) for line in _lines_of(old) if _INNER_SPACES.search(line)
    }
    if not collapsed:
        return None
    return (
        _map_lines(old, lambda _, line: collapsed.get(line, line)),
        _map_lines(new, lambda _, line: collapsed.get(line, line)),
    )


MISTAKES: tuple[Mistake, ...] = (
    Mistake("crlf", crlf),
    Mistake("trailing_whitespace", trailing_whitespace),
    Mistake("trailing_whitespace_stripped", trailing_whitespace_stripped),
    Mistake("punctuation", punctuation),
    Mistake("line_numbers", line_numbers),
    Mistake("line_numbers_in_new", line_numbers_in_new),
    Mistake("indent_deeper", indent_deeper),
    Mistake("indent_shallower", indent_shallower),
    Mistake("tabs_for_spaces", tabs_for_spaces),
    Mistake("spaces_for_tabs", spaces_for_tabs),
    Mistake("trailing_whitespace+indent_deeper", combined(trailing_whitespace, indent_deeper)),
    Mistake("punctuation+line_numbers", combined(punctuation, line_numbers)),
    Mistake("indent_deeper+line_numbers", combined(indent_deeper, line_numbers_in_new)),
    Mistake("crlf+trailing_whitespace", combined(trailing_whitespace, crlf)),
    Mistake("spaces_for_tabs+trailing_whitespace", combined(spaces_for_tabs, trailing_whitespace)),
    Mistake("tabs_for_spaces+indent_shallower", combined(indent_shallower, tabs_for_spaces)),
    Mistake("typo", typo, trap=True),
    Mistake("number_changed", number_changed, trap=True),
    Mistake("name_changed", name_changed, trap=True),
    Mistake("blank_dropped", blank_dropped, trap=True),
    Mistake("blank_added", blank_added, trap=True),
    Mistake("line_dropped_end", line_dropped_end, trap=True),
    Mistake("line_added_end", line_added_end, trap=True),
    Mistake("whitespace_collapsed", whitespace_collapsed, trap=True),
)


# --------------------------------------------------------------------------------------------
# Cases and outcomes


@dataclass(frozen=True, slots=True)
class Case:
    """A real edit as a model mis-copied it."""

    edit: RealEdit
    mistake: Mistake
    old_text: str
    new_text: str


def _loose(line: str) -> str:
    """A line as the most tolerant reading compares it: typographic punctuation as ASCII, no
    leading or trailing whitespace."""
    return line.translate(TO_ASCII).strip()


@cache
def _loose_index(text: str) -> tuple[list[str], dict[str, list[int]]]:
    keys = [_loose(line) for line in text.split("\n")]
    starts: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        starts.setdefault(key, []).append(i)
    return keys, starts


def loose_places(text: str, old: str) -> list[int]:
    """1-based first lines of the places of ``text`` whose lines match ``old``'s loosely."""
    keys, starts = _loose_index(text)
    wanted = [_loose(line) for line in _lines_of(normalize_newlines(old))]
    return [i + 1 for i in starts.get(wanted[0], []) if keys[i : i + len(wanted)] == wanted]


def classify(edit: RealEdit, mistake: Mistake) -> Case | None:
    """``edit`` mis-copied by ``mistake``, or None when the mistake does not apply or its result
    is no mistake (see the module's docstring)."""
    result = mistake.transform(edit.old_text, edit.new_text, edit.context)
    if result is None or result == (edit.old_text, edit.new_text):
        return None
    old, new = result
    if not old:
        return None
    normalized = normalize_newlines(old)
    if normalized == edit.old_text and normalize_newlines(new) != edit.new_text:
        return None  # old_text is right: the edit lands the new_text it was sent, as it should
    exact = count_overlapping(edit.text, normalized)
    if mistake.trap:
        if exact == 1 or (exact == 0 and loose_places(edit.text, old)):
            return None  # a legitimate edit of what the file says
    elif normalized != edit.old_text and exact:
        return None  # the mis-copied text is exactly somewhere else: a different edit
    elif set(loose_places(edit.text, old)) - {edit.first_line}:
        return None  # it also reads like another place of the file
    return Case(edit, mistake, old, new)


def mistake_cases(mistake: Mistake, edits: Sequence[RealEdit] | None = None) -> list[Case]:
    """Every real edit (or those given) that ``mistake`` applies to, mis-copied."""
    cases = (classify(edit, mistake) for edit in (real_edits() if edits is None else edits))
    return [case for case in cases if case is not None]


Verdict = Literal["exact", "wrong", "refused"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What edit_file did with a case: ``exact`` (the exact edit's bytes), ``wrong`` (any other
    bytes, or a refusal that changed the file), ``refused`` (an EditError, the file unchanged).
    ``match`` is the rung the result names for a landed edit (None when it names none)."""

    verdict: Verdict
    error: EditError | None = None
    match: str | None = None


def attempt(ws: Workspace, folder: Path, case: Case, **options: Any) -> Outcome:
    """Write the case's file into ``folder`` (a root of ``ws``), send the mis-copied edit, and
    judge what happened to the file. ``options`` go to edit_file (e.g. ``exact=True``).

    The edit runs in ``interactive`` mode: a syntax error is then a warning, not a refusal, so
    that what is judged is the matching alone (the exact edits of made-up changes may well
    break the syntax).
    """
    target = folder / case.edit.file_name
    target.write_bytes(case.edit.data)
    request = [{"old_text": case.old_text, "new_text": case.new_text}]
    try:
        result = ws.edit_file(case.edit.file_name, request, mode="interactive", **options)
    except EditError as error:
        unchanged = target.read_bytes() == case.edit.data
        return Outcome("refused" if unchanged else "wrong", error)
    match = getattr(result.edits_applied[0], "match", None) if result.edits_applied else None
    landed = target.read_bytes() == case.edit.expected
    return Outcome("exact" if landed else "wrong", None, match)


def shows_intended_lines(error: EditError, edit: RealEdit) -> bool:
    """Whether the error points at the block the edit meant: a similar region or a listed match
    (with its context, or by line number among the further places) that overlaps its lines."""
    first, last = edit.first_line, edit.last_line
    regions = error.data.get("similar_content", [])
    if any(r["start_line"] <= last and r["end_line"] >= first for r in regions):
        return True
    size = len(_lines_of(edit.old_text))
    if any(
        start <= last and start + size - 1 >= first
        for start in error.data.get("similar_also_at", [])
    ):
        return True
    places = [p["line_number"] for p in error.data.get("match_locations", [])]
    places += error.data.get("more_lines", [])
    return any(first <= line <= last for line in places)

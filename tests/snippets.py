"""Snippets the way models write them, built from real changes, each with the text it means.

A model asked to change a file often sends only the changed part: the new text of the file or of
one function, where stretches that stay are replaced by a comment such as
``# ... existing code ...``. This module builds such snippets from real changes, pure and
deterministic (every random choice is seeded by the case's name):

- the changes: the release pairs of ``tests/corpus/`` (Python, JavaScript, TypeScript
  declarations, Markdown, reStructuredText, INI, change logs), and the edits made up on real
  blocks of ``tests/symbol_samples/`` (Go, Rust, Java, C, C++, C#, Ruby, PHP, TypeScript, TSX)
  that ``mistakes.py`` makes;
- for each pair, one snippet of the whole change and one per region of nearby hunks (the file
  with only that region changed); for a region inside one definition, also a snippet of that
  definition alone (``span``: its lines, as edit_snippet's ``symbol`` resolves them);
- a snippet keeps 1 to 3 lines of context around each change and elides every other stretch with
  a marker line in the file's own comment syntax, with varied wording (``... existing code ...``,
  ``… rest of the function unchanged``, ``<!-- ... -->``), indented like the code it stands for;
- the kinds: ``clean``; ``bare_edges`` (no marker at the start or the end, or at one of them
  when none would be left otherwise: the snippet starts or ends on context lines, mid-block);
  ``no_markers`` (no marker left at all: a fragment of the file, whose only right merges are the
  change or a refusal, never the fragment as the whole file); ``one_line_marker`` (a marker
  where only one line stays); and the match ladder's slips on the anchors (the lines next to a
  marker or at an edge): ``trailing_ws``, ``curly_quotes``, and ``indent_shift`` (the whole
  snippet one indentation level off).

Every case means one text, ``expected``: the file after the change. The only right answers are
that text or a refusal; anything else is a wrong landing. ``anchors_unique`` says whether each
anchor line occurs once in the file (or the span), so that a merger has no reason to refuse a
clean case: tests put a floor on the landed share of those.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Literal

from editguard import Workspace
from editguard.core.document import decode
from editguard.core.formats.snippet import compile_snippet
from editguard.core.markers import HASH, Style, is_marker, styles_for
from editguard.core.plan import render
from editguard.errors import EditError

from .mistakes import indent_unit, real_edits
from .release_pairs import PAIRS, split_lines

Kind = Literal[
    "clean",
    "bare_edges",
    "no_markers",
    "one_line_marker",
    "trailing_ws",
    "curly_quotes",
    "indent_shift",
]
KINDS: tuple[Kind, ...] = (
    "clean",
    "bare_edges",
    "no_markers",
    "one_line_marker",
    "trailing_ws",
    "curly_quotes",
    "indent_shift",
)
Verdict = Literal["exact", "wrong", "refused"]
REGION_GAP = 8  # hunks closer than this many unchanged lines form one region
# What a model writes inside the comment (the ellipsis is the marker; the words vary).
WORDINGS = (
    "... existing code ...",
    "...existing code...",
    "… existing code …",
    "... rest of the code unchanged ...",
    "... rest of the function unchanged",
    "...",
    "…",
    "... (unchanged) ...",
    "... other methods ...",
    "... keep existing lines ...",
    "… same as before …",
)
EDGES = ("bare_edges", "no_markers")
CURLY = {'"': ("\u201c", "\u201d"), "'": ("\u2018", "\u2019")}


@dataclass(frozen=True, slots=True)
class Change:
    """A real change of one file: its name (for its comment syntax), both texts (``\\n``)."""

    source: str
    name: str
    old: str
    new: str
    origin: Literal["release", "made-up"]


@dataclass(frozen=True, slots=True)
class SnippetCase:
    """One snippet to merge, and the only text it may give.

    Attributes:
        source: the change, and which part of it ("whole", "region 2", "symbol NAME").
        name: the file's name.
        language: what the file is (its extension, or its name when it has none).
        kind: one of KINDS.
        old: the file's text (``\\n``).
        snippet: what the model sends.
        span: 1-based inclusive lines of the definition the snippet replaces, None = the file.
        symbol: that definition's name path (edit_snippet's ``symbol``), None = the file.
        expected: the file's text after the change.
        anchors_unique: each anchor line occurs once in the file (or the span).
        origin: a release pair's change, or one made up on real code.
    """

    source: str
    name: str
    language: str
    kind: Kind
    old: str
    snippet: str
    span: tuple[int, int] | None
    symbol: str | None
    expected: str
    anchors_unique: bool
    origin: str

    @property
    def label(self) -> str:
        return f"{self.source} [{self.kind}]"


# --------------------------------------------------------------------------------------------
# The changes


def language_of(name: str) -> str:
    """The file's kind as the tables show it: ``d.ts`` for declarations, else the extension."""
    if name.endswith(".d.ts"):
        return "d.ts"
    parts = [p for p in name.split(".")[1:] if not p.startswith("derived-")]
    return parts[-1].lower() if parts else name.split(".", maxsplit=1)[0]


@cache
def changes() -> tuple[Change, ...]:
    """The release pairs, then the edits made up on real code (not the pairs' hunks again)."""
    out = []
    for pair in PAIRS:
        old, new = pair.texts()
        out.append(Change(pair.name, pair.file_name, old, new, "release"))
    for edit in real_edits():
        if " hunk " in edit.source:
            continue  # a release pair's hunk, which the pairs above already cover
        new = decode(edit.expected).text
        out.append(Change(edit.source, edit.file_name, edit.text, new, "made-up"))
    return tuple(change for change in map(_same_ending, out) if change.new != change.old)


def _same_ending(change: Change) -> Change:
    """The change with the new text ending as the old one does (with a line break or without):
    whether a snippet ends with a line break says nothing a merger could rely on, so a change of
    the final line break alone is left out of the corpus."""
    new = change.new
    if change.old.endswith("\n") and not new.endswith("\n"):
        new += "\n"
    elif not change.old.endswith("\n") and new.endswith("\n"):
        new = new[:-1]
    return replace(change, new=new)


# --------------------------------------------------------------------------------------------
# Building snippets

Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


def _opcodes(old: list[str], new: list[str]) -> list[Opcode]:
    return SequenceMatcher(None, old, new, autojunk=False).get_opcodes()


def _regions(ops: list[Opcode]) -> list[list[int]]:
    """Indexes of the changed opcodes, grouped where fewer than REGION_GAP lines separate them."""
    groups: list[list[int]] = []
    for i, op in enumerate(ops):
        if op[0] == "equal":
            continue
        if groups and all(
            ops[k][0] != "equal" or ops[k][2] - ops[k][1] < REGION_GAP
            for k in range(groups[-1][-1] + 1, i)
        ):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _apply_only(old: list[str], new: list[str], ops: list[Opcode], keep: set[int]) -> list[str]:
    """``old`` with only the changed opcodes ``keep`` applied."""
    out: list[str] = []
    for i, (tag, i1, i2, j1, j2) in enumerate(ops):
        out.extend(new[j1:j2] if tag != "equal" and i in keep else old[i1:i2])
    return out


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _marker(rng: random.Random, styles: tuple[Style, ...], indent: str) -> str:
    opener, closer = rng.choice(styles)
    wording = rng.choice(WORDINGS)
    line = f"{indent}{opener} {wording}" + (f" {closer}" if closer else "")
    assert is_marker(line, styles), line
    return line


@dataclass(frozen=True, slots=True)
class _Shape:
    """A snippet's lines: each either ("code", text, is_anchor) or ("marker", text, False)."""

    lines: tuple[tuple[str, str, bool], ...]

    def text(self) -> str:
        return "\n".join(text for _, text, _ in self.lines)

    def anchors(self) -> list[str]:
        return [text for kind, text, anchor in self.lines if kind == "code" and anchor]


def _shape(
    ops: list[Opcode],
    new: list[str],
    rng: random.Random,
    styles: tuple[Style, ...],
    *,
    context: int,
    edges: tuple[bool, bool],
    one_line: bool,
    keep_ends: bool = False,
) -> _Shape | None:
    """The snippet of the change ``ops`` (the opcodes of old -> ``new``, lines without their line
    breaks): the changed lines,
    ``context`` unchanged lines around each change, a marker for every other stretch of two lines
    or more (at the start and at the end only as ``edges`` says). With ``one_line``, one
    unchanged stretch (the first that allows it) is shown but for exactly one line under a
    marker: the middle line of a stretch between changes (None when none allows it).
    None too when nothing is elided (a whole replacement, not a snippet). With ``keep_ends``, the
    first and last lines are always shown (a definition's signature and its closing line)."""
    unchanged = [False] * len(new)
    for tag, _, _, j1, j2 in ops:
        if tag == "equal":
            unchanged[j1:j2] = [True] * (j2 - j1)
    elided: list[tuple[int, int]] = []  # stretches of new, (start, stop), under a marker
    one_line_done = False
    for tag, _, _, start, stop in ops:
        if tag != "equal":
            continue
        after, before = start > 0, stop < len(new)
        # With keep_ends, the first and last lines are shown as if a change were beyond them.
        j1, j2 = (start + (not after), stop - (not before)) if keep_ends else (start, stop)
        after, before, size = after or keep_ends, before or keep_ends, j2 - j1
        if one_line and not one_line_done and after and before and size >= 3:
            one_line_done = True
            lo = j1 + (size - 1) // 2
            elided.append((lo, lo + 1))
            continue
        lo = j1 + (min(context, size) if after else 0)
        hi = j2 - (context if before else 0)
        if hi - lo >= 2:
            elided.append((lo, hi))
    if (one_line and not one_line_done) or not elided:
        return None
    out: list[tuple[str, str, bool]] = []
    starts = dict(elided)
    j = 0
    while j < len(new):
        if j in starts:
            hi = starts[j]
            if (j > 0 or edges[0]) and (hi < len(new) or edges[1]):
                nxt = new[hi] if hi < len(new) and new[hi].strip() else new[j]
                out.append(("marker", _marker(rng, styles, _indent(nxt)), False))
            j = hi
            continue
        out.append(("code", new[j], unchanged[j]))
        j += 1
    if not any(kind == "code" for kind, _, _ in out):
        return None
    # Anchors: the code lines next to a marker or at either edge of the snippet.
    marked = []
    for n, (kind, text, kept) in enumerate(out):
        edge = n in (0, len(out) - 1)
        near = any(0 <= m < len(out) and out[m][0] == "marker" for m in (n - 1, n + 1))
        marked.append((kind, text, kind == "code" and kept and (edge or near)))
    return _Shape(tuple(marked))


def _slip(shape: _Shape, kind: Kind, rng: random.Random, unit: str) -> str | None:
    """The snippet's text with the slip ``kind`` (None when the slip changes nothing)."""
    lines = list(shape.lines)
    if kind == "trailing_ws":
        pad = rng.choice(("  ", " ", "\t", "   "))
        lines = [(k, t + pad if a and t.strip() else t, a) for k, t, a in lines]
    elif kind == "curly_quotes":
        lines = [(k, _curl(t) if a else t, a) for k, t, a in lines]
    elif kind == "indent_shift":
        body = [t for _, t, _ in lines if t.strip()]
        if all(t.startswith(unit) for t in body):
            lines = [(k, t.removeprefix(unit), a) for k, t, a in lines]
        else:
            lines = [(k, unit + t if t.strip() else t, a) for k, t, a in lines]
    text = "\n".join(t for _, t, _ in lines)
    return None if text == shape.text() else text


def _curl(line: str) -> str:
    out, opened = [], {'"': False, "'": False}
    for ch in line:
        if ch in CURLY:
            out.append(CURLY[ch][opened[ch]])
            opened[ch] = not opened[ch]
        else:
            out.append(ch)
    return "".join(out)


def _unique(anchors: list[str], within: list[str]) -> bool:
    return all(within.count(a) == 1 for a in anchors)


@dataclass(frozen=True, slots=True)
class _Part:
    """One change to make a snippet of: the file's lines before and after, and where the snippet
    covers (the whole file, or a definition's lines in both versions)."""

    label: str
    old: list[str]
    new: list[str]
    span: tuple[int, int] | None = None  # 1-based inclusive, in old
    new_span: tuple[int, int] | None = None  # the same definition in new
    symbol: str | None = None  # its name path


def _parts(change: Change) -> Iterator[_Part]:
    old, new = change.old.split("\n"), change.new.split("\n")
    ops = _opcodes(old, new)
    regions = _regions(ops)
    yield _Part("whole", old, new)
    for number, region in enumerate(regions, 1):
        mid = _apply_only(old, new, ops, set(region)) if len(regions) > 1 else new
        if len(regions) > 1:
            yield _Part(f"region {number}", old, mid)
        symbol = _enclosing(change.name, old, [ops[i] for i in region])
        if symbol is not None:
            name, first, last = symbol
            delta = sum((ops[i][4] - ops[i][3]) - (ops[i][2] - ops[i][1]) for i in region)
            yield _Part(
                f"region {number} symbol {name}",
                old,
                mid,
                (first, last),
                (first, last + delta),
                name,
            )


def _enclosing(name: str, old: list[str], region: list[Opcode]) -> tuple[str, int, int] | None:
    """The innermost definition of ``old`` that holds every change of ``region`` (its name path
    and 1-based inclusive lines), or None."""
    from editguard.symbols.locate import symbols_of, symbols_supported

    if not symbols_supported(name):
        return None
    try:
        symbols = symbols_of(name, "\n".join(old))
    except Exception:  # noqa: BLE001 - a grammar that cannot read this file: no symbol case
        return None
    lo, hi = region[0][1], region[-1][2]  # 0-based old lines [lo, hi)
    best = None
    for sym in symbols:
        first, last = sym.start_line - 1, sym.end_line  # 0-based [first, last)
        inside = first < lo and hi < last  # strictly inside: its first and last lines stay
        if inside and last - first >= 4 and (best is None or last - first < best[2] - best[1] + 1):
            best = (sym.name_path, sym.start_line, sym.end_line)
    return best


def cases_of(change: Change) -> list[SnippetCase]:
    """Every snippet case of one change (each kind that applies to each part)."""
    out = []
    unit = indent_unit(change.old)
    styles = styles_for(change.name)
    for part in _parts(change):
        seed = zlib.crc32(f"{change.source}|{part.label}".encode())
        context = random.Random(seed).choice((1, 2, 3))
        if part.span is not None and part.new_span is not None:
            (a, b), (c, d) = part.span, part.new_span
            old_scope, new_scope = part.old[a - 1 : b], part.new[c - 1 : d]
        else:
            old_scope, new_scope = part.old, part.new
        expected = "\n".join(part.new)
        ops = _opcodes(old_scope, new_scope)
        for kind in KINDS:
            rng = random.Random(seed ^ zlib.crc32(kind.encode()))
            if kind in ("bare_edges", "no_markers") and part.span is not None:
                continue  # a definition's snippet shows its first and last lines anyway
            # bare_edges drops the markers at both edges, or at one when none would be left.
            tries = {"bare_edges": ((False, False), (False, True), (True, False))}
            shape = None
            for edges in tries.get(kind, ((kind != "no_markers",) * 2,)):
                shape = _shape(
                    ops,
                    new_scope,
                    rng,
                    styles or (HASH,),
                    context=context,
                    edges=edges,
                    one_line=kind == "one_line_marker",
                    keep_ends=part.span is not None,
                )
                has_markers = shape is not None and any(k == "marker" for k, _, _ in shape.lines)
                if shape is not None and (kind != "bare_edges" or has_markers):
                    break
            if shape is None:
                continue
            has_markers = any(k == "marker" for k, _, _ in shape.lines)
            if kind in EDGES and has_markers != (kind == "bare_edges"):
                continue
            text = shape.text() if kind in ("clean", *EDGES, "one_line_marker") else None
            if text is None:
                text = _slip(shape, kind, rng, unit)
                if text is None:
                    continue
            out.append(
                SnippetCase(
                    source=f"{change.source} {part.label}",
                    name=change.name,
                    language=language_of(change.name),
                    kind=kind,
                    old=change.old,
                    snippet=text,
                    span=part.span,
                    symbol=part.symbol,
                    expected=expected,
                    anchors_unique=_unique(shape.anchors(), old_scope),
                    origin=change.origin,
                )
            )
    return out


@cache
def snippet_cases() -> tuple[SnippetCase, ...]:
    """The whole generated corpus, in a fixed order."""
    return tuple(case for change in changes() for case in cases_of(change))


def sample(cases: tuple[SnippetCase, ...], size: int) -> list[SnippetCase]:
    """At most ``size`` cases spread evenly over ``cases`` (every language and kind shows up)."""
    if len(cases) <= size:
        return list(cases)
    return [cases[i * len(cases) // size] for i in range(size)]


# --------------------------------------------------------------------------------------------
# Merging one case


@dataclass(frozen=True, slots=True)
class Outcome:
    verdict: Verdict
    seconds: float
    got: str | None = None  # the merged text when it is wrong
    error: str = ""  # the refusal's code and message


def merge(case: SnippetCase) -> Outcome:
    """``compile_snippet`` on the case, judged: the expected text, a refusal, or a wrong text."""
    doc = replace(decode(case.old.encode("utf-8")), name=case.name)
    start = time.perf_counter()
    try:
        compiled = compile_snippet(doc, case.snippet, span=case.span)
        merged = b"".join(render(doc, compiled.plan))
    except EditError as exc:
        return Outcome("refused", time.perf_counter() - start, error=f"{exc.code}: {exc}")
    seconds = time.perf_counter() - start
    got = decode(merged).text
    if got == case.expected:
        return Outcome("exact", seconds)
    return Outcome("wrong", seconds, got=got)


def through_tool(case: SnippetCase, folder: Path) -> Verdict:
    """The case sent to the ``edit_snippet`` tool (default mode: the merge, then its check of
    removed definitions and the syntax guard) on a real file in ``folder``, judged by the bytes
    on disk afterwards."""
    target = folder / case.name
    target.write_bytes(case.old.encode("utf-8"))
    arguments: dict[str, object] = {"path": case.name, "snippet": case.snippet}
    if case.symbol is not None:
        arguments["symbol"] = case.symbol
    try:
        Workspace([str(folder)], prewarm=False).call("edit_snippet", **arguments)
    except EditError:
        return "refused" if target.read_bytes() == case.old.encode("utf-8") else "wrong"
    finally:
        written = target.read_bytes()
        target.unlink()
    return "exact" if decode(written).text == case.expected else "wrong"


def reproduction(case: SnippetCase, outcome: Outcome, width: int = 2000) -> str:
    """A wrong landing as a minimal reproduction: the file's name, the span, the snippet, and the
    lines where the expected and the merged texts differ."""
    import difflib

    diff = "".join(
        difflib.unified_diff(
            split_lines(case.expected),
            split_lines(outcome.got or ""),
            "expected",
            "got",
            n=2,
        )
    )
    return (
        f"{case.label}: {case.name} span={case.span}\n--- snippet ---\n{case.snippet[:width]}\n"
        f"--- expected vs got ---\n{diff[:width]}"
    )

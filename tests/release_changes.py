"""A release pair's change (``release_pairs.py``) as each writing tool's call, and each pair's
files in other encodings and line-ending styles.

A call is ``(tool, arguments)`` exactly as the tool takes them: ``Workspace`` methods take them
as keywords, ``batch`` as a call, ``editguard call`` and MCP as JSON. Each generator works on
the two texts as ``read_file`` shows them (decoded, line breaks as ``\\n``) and says whether the
tool can express the whole change (so that its result must be the newer file byte for byte) or
only part of it (a file's missing final newline is kept by line-based tools, one search/replace
is one hunk, one symbol is one definition).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from editguard.symbols import Symbol, symbols_of, symbols_supported

from .release_pairs import (
    PAIRS,
    Edit,
    Order,
    Pair,
    build_edits,
    count_overlapping,
    split_lines,
)

Call = tuple[str, dict[str, Any]]
Opcode = tuple[str, int, int, int, int]
NO_EOL = "\\ No newline at end of file"
BOM8 = b"\xef\xbb\xbf"
BOM16 = b"\xff\xfe"


# -- variants of a pair's files -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Variant:
    """A pair's two versions in one encoding and line-ending style.

    ``new`` is the newer version's bytes, or ``None`` where editguard decides what the changed
    lines get (a file that mixes line endings gives new lines its most common one).
    """

    pair: Pair
    style: str
    old: bytes
    new: bytes | None
    old_text: str  # as read_file shows it
    new_text: str

    @property
    def id(self) -> str:
        return f"{self.pair.name}[{self.style}]"


# A line the legacy variants put first: characters of cp1252 (and latin-1) beyond ASCII, which
# the change itself rewrites, so the tool has to decode and encode them.
_LEGACY_OLD = "Caf\u00e9 na\u00efve \u00bd \u2013 20 \u20ac, premi\u00e8re"
_LEGACY_NEW = "Caf\u00e9 na\u00efve \u00be \u2013 30 \u20ac, derni\u00e8re \u00a9"
_LATIN1_OLD = "Caf\u00e9 na\u00efve \u00bd, premi\u00e8re \x81"
_LATIN1_NEW = "Caf\u00e9 na\u00efve \u00be, derni\u00e8re \u00a9 \x8d"


def _comment(name: str, line: str) -> str:
    if name.endswith(".css"):
        return f"/* {line} */"
    return f"// {line}" if name.endswith((".js", ".ts")) else f"# {line}"


def _header(pair: Pair, text: str, line: str) -> str:
    return f"{_comment(pair.file_name, line)}\n{text}"


def variants(pair: Pair) -> list[Variant]:
    """The pair as released, and its texts as CRLF, UTF-8 with BOM, cp1252, latin-1, UTF-16-LE
    with BOM, without a final newline, and with mixed line endings."""
    old, new = pair.texts()
    out = [Variant(pair, "released", pair.old_bytes, pair.new_bytes, old, new)]

    def add(style: str, o: str, n: str, encode: Callable[[str], bytes], exact: bool = True) -> None:
        out.append(Variant(pair, style, encode(o), encode(n) if exact else None, o, n))

    # A file without a line break has no style the new ones could follow.
    add("crlf", old, new, lambda t: t.replace("\n", "\r\n").encode("utf-8"), "\n" in old)
    add("utf8_bom", old, new, lambda t: BOM8 + t.encode("utf-8"))

    def legacy(codec: str, first: str, second: str) -> None:
        # Characters the codec cannot store (quick-lru's emoji) become "?" on both sides.
        o = old.encode(codec, "replace").decode(codec)
        n = new.encode(codec, "replace").decode(codec)
        o, n = _header(pair, o, first), _header(pair, n, second)
        add(codec, o, n, lambda t: t.encode(codec))

    legacy("cp1252", _LEGACY_OLD, _LEGACY_NEW)
    legacy("latin-1", _LATIN1_OLD, _LATIN1_NEW)
    add("utf16_bom", old, new, lambda t: BOM16 + t.encode("utf-16-le"))
    o, n = old.rstrip("\n"), new.rstrip("\n")
    if o != n:
        add("no_final_newline", o, n, lambda t: t.encode("utf-8"))
    add("mixed_eol", old, new, _mixed, exact=False)
    return out


def _mixed(text: str) -> bytes:
    """Every third line break CRLF, the others LF (a file that mixes them)."""
    parts = text.split("\n")
    out = [p + ("\r\n" if k % 3 == 1 else "\n") for k, p in enumerate(parts[:-1])]
    return ("".join(out) + parts[-1]).encode("utf-8")


# -- each tool's call -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """The calls that make (part of) a pair's change to the file ``path``."""

    tool: str  # the tool, and how it is used: "safe_edit:line_edits"
    calls: list[Call]
    whole: bool  # the calls make the newer version exactly
    expect: str | None = None  # a text the result must hold (a partial change)


@functools.lru_cache(maxsize=64)
def _matcher(old: str, new: str) -> SequenceMatcher[str]:
    """The line matcher of a change (difflib's is slow on large files, and it keeps its
    opcodes: each change's are computed once)."""
    return SequenceMatcher(None, split_lines(old), split_lines(new), autojunk=False)


def opcodes(old: str, new: str) -> list[Opcode]:
    """The line diff's opcodes."""
    return list(_matcher(old, new).get_opcodes())


def _groups(old: str, new: str) -> list[list[Opcode]]:
    """The opcodes in groups with three equal lines around each change (``diff -u``)."""
    return [list(group) for group in _matcher(old, new).get_grouped_opcodes(3)]


@functools.lru_cache(maxsize=64)
def _edits(old: str, new: str, order: Order) -> list[Edit]:
    edits, simulated = build_edits(old, new, order)
    assert simulated == new, "the test's edit generator is wrong, not editguard"
    return edits


def _hunks(old: str, new: str) -> tuple[list[str], list[str], list[tuple[int, int, int, int]]]:
    a, b = split_lines(old), split_lines(new)
    return a, b, [op[1:] for op in opcodes(old, new) if op[0] != "equal"]


def _same_final_newline(old: str, new: str) -> bool:
    return old.endswith("\n") == new.endswith("\n")


def edit_file(path: str, old: str, new: str) -> Change:
    edits = _edits(old, new, "bottom_up")
    return Change("edit_file", [("edit_file", {"path": path, "edits": edits})], whole=True)


def _body(lines: list[str]) -> str:
    """Lines as a line edit's text (the line tools add the last line's break)."""
    return "".join(lines)


def edit_lines(path: str, old: str, new: str) -> Change:
    """Insert, Delete and ReplaceSection, every line number as read."""
    _, b, hunks = _hunks(old, new)
    ops: list[dict[str, Any]] = []
    for i1, i2, j1, j2 in hunks:
        if i1 == i2:
            ops.append({"line_number": i1 + 1, "type": "Insert", "text": _body(b[j1:j2])})
        elif j1 == j2:
            ops.append({"line_number": i1 + 1, "type": "Delete", "end_line": i2})
        else:
            ops.append(
                {
                    "line_number": i1 + 1,
                    "type": "ReplaceSection",
                    "end_line": i2,
                    "text": _body(b[j1:j2]),
                }
            )
    whole = _same_final_newline(old, new)
    return Change("edit_lines", [("edit_lines", {"path": path, "edits": ops})], whole=whole)


def safe_edit_lines(path: str, old: str, new: str) -> Change:
    """``line_edits``: each hunk's old lines (an insertion widened by one line) become its new
    lines."""
    a, b, hunks = _hunks(old, new)
    edits = []
    for i1, i2, j1, j2 in hunks:
        first, last, new_first, new_last = i1, i2, j1, j2
        if i1 == i2:  # a range holds a line at least: take the line after (or before) along
            if i1 < len(a):
                last, new_last = i1 + 1, j2 + 1
            else:
                first, new_first = i1 - 1, j1 - 1
        content = _body(b[new_first:new_last])
        edits.append({"start_line": first + 1, "end_line": last, "new_content": content})
    whole = _same_final_newline(old, new)
    return Change(
        "safe_edit:line_edits",
        [("safe_edit", {"path": path, "line_edits": edits})],
        whole=whole,
    )


def safe_edit_content(path: str, old: str, new: str) -> Change:
    return Change("safe_edit:content", [("safe_edit", {"path": path, "content": new})], whole=True)


def safe_edit_search_replace(path: str, old: str, new: str) -> Change:
    """One literal search/replace: the first hunk (its old text is unique)."""
    edits = _edits(old, new, "top_down")
    first = edits[0]
    args = {"search": first["old_text"], "replace": first["new_text"], "count": 1}
    return Change(
        "safe_edit:search_replace",
        [("safe_edit", {"path": path, "search_replace": args})],
        whole=len(edits) == 1,
        expect=str(first["new_text"]),
    )


def write_file(path: str, old: str, new: str) -> Change:
    return Change("write_file", [("write_file", {"path": path, "content": new})], whole=True)


def apply_patch(path: str, old: str, new: str, *, move_to: str | None = None) -> Change:
    """A Codex ``*** Update File`` (optionally ``*** Move to``) with one chunk per group of
    changed lines and three lines of context."""
    return Change(
        "apply_patch",
        [("apply_patch", {"patch": codex_patch(path, old, new, move_to=move_to)})],
        whole=_same_final_newline(old, new) and old.endswith("\n"),
    )


def codex_update(path: str, old: str, new: str, *, move_to: str | None = None) -> str:
    """The ``*** Update File`` section of the change (without Begin and End)."""
    a, b = split_lines(old), split_lines(new)
    out = [f"*** Update File: {path}"]
    if move_to is not None:
        out.append(f"*** Move to: {move_to}")
    for group in _groups(old, new):
        out.append("@@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + x.removesuffix("\n") for x in a[i1:i2]]
                continue
            out += ["-" + x.removesuffix("\n") for x in a[i1:i2]]
            out += ["+" + x.removesuffix("\n") for x in b[j1:j2]]
        if group[-1][2] == len(a):
            out.append("*** End of File")
    return "\n".join(out) + "\n"


def codex_patch(path: str, old: str, new: str, *, move_to: str | None = None) -> str:
    body = codex_update(path, old, new, move_to=move_to)
    return f"*** Begin Patch\n{body}*** End Patch\n"


def _range(start: int, stop: int) -> str:
    """A hunk range as ``diff -u`` writes it."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def unified(old: str, new: str, path: str, *, new_path: str | None = None) -> str:
    """The unified diff of two texts, with the ``\\ No newline at end of file`` markers
    ``diff -u`` writes."""
    a, b = split_lines(old), split_lines(new)
    out = [f"--- a/{path}", f"+++ b/{new_path or path}"]
    for group in _groups(old, new):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += _marked(" ", a[a1:a2])
                continue
            out += _marked("-", a[a1:a2])
            out += _marked("+", b[b1:b2])
    return "\n".join(out) + "\n"


def _marked(sign: str, lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        out.append(sign + line.removesuffix("\n"))
        if not line.endswith("\n"):
            out.append(NO_EOL)
    return out


def apply_diff(path: str, old: str, new: str) -> Change:
    return Change("apply_diff", [("apply_diff", {"diff": unified(old, new, path)})], whole=True)


def batch(path: str, old: str, new: str) -> Change:
    """edit_file's edits over two calls on the file, and a third call that creates a file
    beside it (the undo must delete it again)."""
    edits = _edits(old, new, "bottom_up")
    half = max(1, len(edits) // 2)
    calls: list[dict[str, Any]] = [
        {"tool": "edit_file", "arguments": {"path": path, "edits": edits[:half]}}
    ]
    if edits[half:]:
        calls.append({"tool": "edit_file", "arguments": {"path": path, "edits": edits[half:]}})
    calls.append(
        {"tool": "write_file", "arguments": {"path": f"{path}.batch-notes.txt", "content": "x\n"}}
    )
    return Change("batch", [("batch", {"calls": calls})], whole=True)


def _changed_symbol(path: str, old: str, new: str) -> tuple[Symbol, Symbol] | None:
    """A definition without nested ones, in both versions under one unique name path, whose
    text changed (the first such one)."""
    if not symbols_supported(path):
        return None
    before, after = symbols_of(path, old), symbols_of(path, new)
    paths_before = [s.name_path for s in before]
    by_path = {s.name_path: s for s in after}
    paths_after = [s.name_path for s in after]
    for s in before:
        if s.children or paths_before.count(s.name_path) != 1:
            continue
        if paths_after.count(s.name_path) != 1:
            continue
        t = by_path[s.name_path]
        if old[s.start : s.end] != new[t.start : t.end]:
            return s, t
    return None


def edit_symbol_body(path: str, old: str, new: str) -> Change | None:
    """new_body: the changed definition's newer text."""
    found = _changed_symbol(path, old, new)
    if found is None:
        return None
    s, t = found
    body = new[t.start : t.end]
    args = {"path": path, "symbol": s.name_path, "new_body": body}
    return Change("edit_symbol:new_body", [("edit_symbol", args)], whole=False, expect=body)


def edit_symbol_chunks(path: str, old: str, new: str) -> Change | None:
    """chunks: each changed group of lines inside the definition, with as many context lines
    as make it fit one place."""
    found = _changed_symbol(path, old, new)
    if found is None:
        return None
    s, t = found
    a = [x.removesuffix("\n") for x in split_lines(old[s.start : s.end])]
    b = [x.removesuffix("\n") for x in split_lines(new[t.start : t.end])]
    whole = "\n".join(a) + "\n"
    chunks = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        k = 1
        while True:
            before, after = a[max(0, i1 - k) : i1], a[i2 : i2 + k]
            block = "\n".join([*before, *a[i1:i2], *after]) + "\n"
            if count_overlapping(whole, block) == 1 or (i1 - k <= 0 and i2 + k >= len(a)):
                break
            k += 1
        chunks.append(
            {
                "context_before": before or "",
                "old_lines": a[i1:i2],
                "new_lines": b[j1:j2],
                "context_after": after or "",
            }
        )
    args = {"path": path, "symbol": s.name_path, "chunks": chunks}
    return Change(
        "edit_symbol:chunks", [("edit_symbol", args)], whole=False, expect=new[t.start : t.end]
    )


GENERATORS: dict[str, Callable[[str, str, str], Change | None]] = {
    "edit_file": edit_file,
    "edit_lines": edit_lines,
    "safe_edit:line_edits": safe_edit_lines,
    "safe_edit:content": safe_edit_content,
    "safe_edit:search_replace": safe_edit_search_replace,
    "write_file": write_file,
    "edit_symbol:new_body": edit_symbol_body,
    "edit_symbol:chunks": edit_symbol_chunks,
    "apply_patch": apply_patch,
    "apply_diff": apply_diff,
    "batch": batch,
}


def release_path(pair: Pair) -> str:
    """The pair's path inside its release (``src/configobj/__init__.py``)."""
    return pair.name.split("/", 1)[1]


def tools_for(pair: Pair) -> list[str]:
    """The generators that make the pair's change (edit_symbol only where a definition
    changed)."""
    old, new = pair.texts()
    has_symbol = _changed_symbol(release_path(pair), old, new) is not None
    return [name for name in GENERATORS if has_symbol or not name.startswith("edit_symbol")]


def change_for(tool: str, variant: Variant) -> Change:
    """The ``tool`` generator's change for the variant (which must have one)."""
    change = GENERATORS[tool](release_path(variant.pair), variant.old_text, variant.new_text)
    assert change is not None, f"{tool} finds nothing to change in {variant.id}"
    return change


def changes(path: str, old: str, new: str) -> list[Change]:
    """Every tool's call for the change (edit_symbol only where a definition changed)."""
    return [c for gen in GENERATORS.values() if (c := gen(path, old, new)) is not None]


VARIANTS = {pair.name: variants(pair) for pair in PAIRS}

"""The syntax guard: errors an edit introduces, found by parsing before and after.

Every language editguard knows is parsed with tree-sitter (:mod:`editguard.languages` chooses
the grammar and keeps the trees). Python is compiled first: code the compiler accepts is valid,
and tree-sitter (which accepts bad indentation and a module-level ``return``) only helps explain a
failure. JSON, TOML and YAML also go through their own parsers. Only errors the edit introduced
count: an error of the new text that maps (through the plan) onto an error of the same
kind in the old text was already there and never blocks.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from collections.abc import Callable
from typing import Any

from editguard.core.document import LF
from editguard.core.plan import Plan
from editguard.languages import grammar_for, parse
from editguard.validate import python
from editguard.validate.report import Finding

# Seconds the syntax guard lets one parse take. Error recovery on a large broken file can cost
# seconds per megabyte, holding the interpreter meanwhile; past this the check is skipped.
GUARD_BUDGET = 2.0


def syntax_findings(name: str, old: str, new: str, plan: Plan) -> list[Finding]:
    """The syntax errors ``new`` has that ``old`` did not (``plan`` turns old into new)."""
    ext = grammar_for(name, old, new)
    if ext is None:
        return []
    strict = _STRICT.get(ext)
    if strict is None:
        problem = None
    elif strict[1] is python.check:
        problem = python.check_edit(old, new, plan)  # the region the plan touched, if it can
    else:
        problem = strict[1](new)
    strict_found = _strict_findings(strict, old, new, problem) if strict and problem else []
    if strict is not None and strict[0] == "python" and (problem is None or strict_found):
        # Python's own compiler is the authority: code it accepts is valid, whatever the
        # grammar (which may lag behind new syntax) says, and on code it refuses it names the
        # one cause (tree-sitter's error recovery reports the same cause in several places,
        # not always where it is). Tree-sitter then only tells an error this edit introduced
        # from one the file already had.
        return strict_found
    return _tree_sitter_findings(ext, old, new, plan) + strict_found


# -- tree-sitter ---------------------------------------------------------------------------


def _tree_errors(tree: Any, text: str) -> list[tuple[int, int, str]]:
    """(0-based line, 0-based character column, kind) of each outermost error node."""
    if not tree.root_node.has_error:
        return []
    out: list[tuple[int, int, str]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_missing:
            row, col = node.start_point
            out.append((row, col, f"missing {node.type!r}"))
        elif node.is_error:
            row, col = node.start_point
            out.append((row, col, "unexpected text"))
        elif node.has_error:
            stack.extend(reversed(node.children))
    # Columns come in bytes; turn them into characters of their line.
    lines = text.encode("utf-8", "surrogatepass").split(b"\n")
    return [
        (row, len(lines[row][:col].decode("utf-8", "replace")), kind)
        for row, col, kind in sorted(out)
    ]


def _tree_sitter_findings(ext: str, old: str, new: str, plan: Plan) -> list[Finding]:
    # The old text's tree first: it is usually cached already (by a read, or by the symbol
    # lookup of edit_symbol), and then the new tree is a small incremental reparse of it. Cold,
    # this is one full parse either way, and never two when the file already had errors.
    old_tree = parse(ext, old, budget=GUARD_BUDGET)
    after = _tree_errors(parse(ext, new, (old, plan), budget=GUARD_BUDGET), new)
    if not after:
        return []
    before = _tree_errors(old_tree, old)
    mapping = _LineMap(old, new, plan)
    remaining = [(row, kind) for row, _, kind in before]
    unmatched: list[tuple[int, int, str, int]] = []
    for row, col, kind in after:
        lo, hi = mapping.old_rows(row)
        match = next((i for i, (r, k) in enumerate(remaining) if lo <= r <= hi and k == kind), None)
        if match is not None:
            remaining.pop(match)  # the same error was there before the edit
        else:
            unmatched.append((row, col, kind, lo))
    # An error of the old text on lines the edit did not touch is still in the new text, but
    # the parser's error recovery may report it elsewhere (an unclosed bracket swallows what
    # follows differently; a missing ';' moves onto the next line, even an inserted one). Each
    # such old error accounts for one leftover new error of its kind, the nearest.
    out: list[Finding] = []
    new_lines = new.split(LF)
    for row, col, kind, lo in unmatched:
        moved = [
            (abs(r - lo), i)
            for i, (r, k) in enumerate(remaining)
            if k == kind and not mapping.touched(r)
        ]
        if moved:
            remaining.pop(min(moved)[1])
            continue
        message = "syntax error: " + kind + " (the parser could not read the code here)"
        out.append(Finding("syntax", row + 1, col + 1, message, new_lines[row]))
    return out


class _LineMap:
    """Maps lines of the new text to the lines of the old text they come from."""

    def __init__(self, old: str, new: str, plan: Plan) -> None:
        # Per changed block: old rows [a0, a1], new rows [b0, b1], and a fine map inside.
        self.blocks: list[tuple[int, int, int, int, Callable[[int], tuple[int, int]]]] = []
        shift = 0
        old_row = 0
        pos = 0
        for r in plan.replacements:
            if old[r.start : r.end] == r.text:
                continue
            old_row += old.count(LF, pos, r.start)
            pos = r.start
            a0 = old_row
            a1 = a0 + old.count(LF, r.start, r.end)
            b0 = a0 + shift
            b1 = b0 + r.text.count(LF)
            line_start = old.rfind(LF, 0, r.start) + 1
            line_end = old.find(LF, r.end)
            line_end = len(old) if line_end < 0 else line_end
            before = old[line_start:line_end].split(LF)
            after = (old[line_start : r.start] + r.text + old[r.end : line_end]).split(LF)
            self.blocks.append((a0, a1, b0, b1, _fine_map(before, after, a0, a1)))
            shift += (b1 - b0) - (a1 - a0)

    def touched(self, old_row: int) -> bool:
        """Whether the edit changed anything on line ``old_row`` of the old text."""
        return any(a0 <= old_row <= a1 for a0, a1, _b0, _b1, _fine in self.blocks)

    def old_rows(self, row: int) -> tuple[int, int]:
        shift = 0
        for _a0, a1, b0, b1, fine in self.blocks:
            if row < b0:
                break
            if row <= b1:
                lo, hi = fine(row - b0)
                return lo, hi
            shift = (b1 + 1) - (a1 + 1)
        return row - shift, row - shift


def _fine_map(
    before: list[str], after: list[str], a0: int, a1: int
) -> Callable[[int], tuple[int, int]]:
    """Inside one changed block: equal lines map to their old line, others to the block."""
    if len(before) * len(after) > 4_000_000:
        return lambda _i: (a0, a1)
    same: dict[int, int] = {}
    for tag, i1, i2, j1, _j2 in difflib.SequenceMatcher(
        None, before, after, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                same[j1 + k] = a0 + i1 + k
    return lambda i: (same[i], same[i]) if i in same else (a0, a1)


# -- strict parsers ------------------------------------------------------------------------

_Checker = Callable[[str], "tuple[int, int, str] | None"]


def _check_json(text: str) -> tuple[int, int, str] | None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.lineno, exc.colno, f"JSON: {exc.msg}"
    return None


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _check_toml(text: str) -> tuple[int, int, str] | None:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_AT.search(str(exc))
        if found:
            line, col = int(found.group(1)), int(found.group(2))
        elif "end of document" in str(exc):
            lines = text.rstrip(LF).split(LF)
            line, col = len(lines), len(lines[-1]) + 1
        else:
            line, col = 1, 1
        return line, col, f"TOML: {exc}"
    return None


def _check_yaml(text: str) -> tuple[int, int, str] | None:
    import yaml  # noqa: PLC0415 - only YAML files need it

    try:
        for _ in yaml.safe_load_all(text):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        return line, col, f"YAML: {exc.problem or exc}"
    except yaml.YAMLError as exc:
        return 1, 1, f"YAML: {exc}"
    return None


# extension -> (source name, checker)
_STRICT: dict[str, tuple[str, _Checker]] = {
    ".py": ("python", python.check),
    ".pyi": ("python", python.check),
    ".pyw": ("python", python.check),
    ".json": ("json", _check_json),
    ".toml": ("toml", _check_toml),
    ".yaml": ("yaml", _check_yaml),
    ".yml": ("yaml", _check_yaml),
}


def _strict_findings(
    strict: tuple[str, _Checker], old: str, new: str, problem: tuple[int, int, str]
) -> list[Finding]:
    """The strict parser's ``problem`` with ``new``, unless ``old`` was already broken."""
    source, checker = strict
    if old.strip() and checker(old) is not None:
        return []  # already broken before the edit (an empty file is not broken)
    line, col, message = problem
    lines = new.split(LF)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return [Finding(source, line, col, message, text)]

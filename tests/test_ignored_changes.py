"""An edit whose change is what a tolerance ignores lands as sent, or is refused: never undone.

A commit may remove a line's trailing whitespace, curl its quotes or indent it with a tab; the
model that sends it may slip on another line the same way (a trailing space, a typographic
quote, the whole block one level deep). The rung that forgives the slip must not "correct" the
changed line back to the file's form: a correction undoes only what the old and new text have
in common. Built from real files of ``tests/corpus``, through ``edit_file``, ``apply_patch`` and
``apply_diff``: the file ends as the commit's result, or is refused unchanged; never a third file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from editguard import EditError, Workspace
from editguard.core.seek import content_key

from .mistakes import _typographic_line

CORPUS = Path(__file__).parent / "corpus"
FILES = (
    "six-1.15.0-1.16.0/six.py.old",
    "configobj-5.0.8-5.0.9/setup.py.old",
    "p-limit-6.2.0-7.0.0/index.js.old",
    "quick-lru-7.0.1-7.1.0/index.js.old",
    "pyperclip-1.8.0-1.8.1/README.md.old",
)
BLOCKS_PER_FILE = 6
SIZE = 5  # lines of a block: a context line that slips, context, the changed line, more context
CHANGED = 2


@dataclass(frozen=True)
class Case:
    """A file before and after a commit that changes block line CHANGED (and adds a copy of
    the line after it), and the block's old and new lines as the model sends them."""

    name: str
    before: str
    after: str
    start: int  # 0-based line of the block
    old: list[str]
    new: list[str]


def _blocks(lines: list[str], want: Callable[[list[str]], bool]) -> list[int]:
    """Starts of blocks whose lines all have text and no trailing whitespace, unique in the
    file even read loosely, and that ``want`` takes; spread over the file."""
    keys = [content_key(line) for line in lines]
    out = []
    step = max(1, len(lines) // 40)
    for start in range(0, len(lines) - SIZE, step):
        block = lines[start : start + SIZE]
        if not all(line.strip() and line == line.rstrip() for line in block) or not want(block):
            continue
        key = keys[start : start + SIZE]
        if sum(keys[p : p + SIZE] == key for p in range(len(lines) - SIZE + 1)) != 1:
            continue
        out.append(start)
    return out[:: max(1, len(out) // BLOCKS_PER_FILE)][:BLOCKS_PER_FILE]


def _case(
    name: str,
    lines: list[str],
    start: int,
    before_line: str,
    after_line: str,
    slip: Callable[[str], str],
) -> Case:
    """The commit turns block line CHANGED from ``before_line`` into ``after_line`` and adds a
    copy of the line after it; the model sends every block line through ``slip`` (which
    changes only the first, or all of them alike)."""
    at = start + CHANGED
    before = [*lines[:at], before_line, *lines[at + 1 :]]
    after = [*lines[:at], after_line, lines[at + 1], *lines[at + 1 :]]
    old_block = before[start : start + SIZE]
    new_block = after[start : start + SIZE + 1]
    return Case(
        name,
        "".join(x + "\n" for x in before),
        "".join(x + "\n" for x in after),
        start,
        [slip(x) if k == 0 or slip is _deeper else x for k, x in enumerate(old_block)],
        [slip(x) if k == 0 or slip is _deeper else x for k, x in enumerate(new_block)],
    )


def _space(line: str) -> str:
    return line + " "


def _deeper(line: str) -> str:
    return "    " + line


def _curled(line: str) -> str:
    return _typographic_line(line)


def _quoted(block: list[str]) -> bool:
    return _curled(block[0]) != block[0] and _curled(block[CHANGED]) != block[CHANGED]


def _cases() -> list[Case]:
    cases = []
    for name in FILES:
        lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
        label = name.split("/")[-1]
        for start in _blocks(lines, lambda _: True):
            line = lines[start + CHANGED]
            cases.append(
                _case(
                    f"{label}:{start + 1}:trailing removed",
                    lines,
                    start,
                    line + "   ",
                    line,
                    _space,
                )
            )
            cases.append(
                _case(
                    f"{label}:{start + 1}:trailing added", lines, start, line, line + "  ", _space
                )
            )
        for start in _blocks(lines, _quoted):
            line = lines[start + CHANGED]
            cases.append(
                _case(
                    f"{label}:{start + 1}:quotes curled", lines, start, line, _curled(line), _curled
                )
            )
        for start in _blocks(lines, lambda b: b[CHANGED].startswith("    ")):
            line = lines[start + CHANGED]
            tabbed = "\t" + line[4:]
            cases.append(
                _case(f"{label}:{start + 1}:tab for spaces", lines, start, line, tabbed, _deeper)
            )
    return cases


CASES = _cases()


def _edit_file(ws: Workspace, case: Case) -> None:
    edit = {"old_text": "\n".join(case.old) + "\n", "new_text": "\n".join(case.new) + "\n"}
    ws.edit_file("f", [edit], mode="interactive")


def _body(case: Case) -> str:
    """The block as patch lines: context, the changed line removed and added, the copy added."""
    out = [f" {line}" for line in case.old[:CHANGED]]
    out += [f"-{case.old[CHANGED]}", f"+{case.new[CHANGED]}", f" {case.old[CHANGED + 1]}"]
    out += [f"+{case.new[CHANGED + 2]}", *(f" {line}" for line in case.old[CHANGED + 2 :])]
    return "".join(line + "\n" for line in out)


def _apply_patch(ws: Workspace, case: Case) -> None:
    ws.apply_patch(
        f"*** Begin Patch\n*** Update File: f\n@@\n{_body(case)}*** End Patch\n", mode="interactive"
    )


def _apply_diff(ws: Workspace, case: Case) -> None:
    at = case.start + 1
    header = f"--- a/f\n+++ b/f\n@@ -{at},{SIZE} +{at},{SIZE + 1} @@\n"
    ws.apply_diff(header + _body(case), mode="interactive")


FORMATS: dict[str, Callable[[Workspace, Case], None]] = {
    "edit_file": _edit_file,
    "apply_patch": _apply_patch,
    "apply_diff": _apply_diff,
}


def _outcome(tmp_path: Path, send: Callable[[Workspace, Case], None], case: Case) -> str:
    target = tmp_path / "f"
    target.write_text(case.before, encoding="utf-8", newline="")
    try:
        send(Workspace([tmp_path]), case)
    except EditError:
        return "refused" if target.read_text(encoding="utf-8") == case.before else "wrong"
    return "landed" if target.read_text(encoding="utf-8") == case.after else "wrong"


def test_the_cases_cover_every_kind_of_change_in_real_files() -> None:
    kinds = {case.name.rsplit(":", 1)[1] for case in CASES}
    assert kinds == {"trailing removed", "trailing added", "quotes curled", "tab for spaces"}
    assert len(CASES) >= 60


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_change_to_what_a_rung_ignores_lands_as_sent_or_is_refused_never_undone(
    tmp_path: Path, fmt: str
) -> None:
    outcomes = {case.name: _outcome(tmp_path, FORMATS[fmt], case) for case in CASES}
    wrong = [name for name, verdict in outcomes.items() if verdict == "wrong"]
    assert wrong == []
    # Whatever the slip, a change of trailing whitespace or indentation characters lands.
    for kind in ("trailing removed", "trailing added", "tab for spaces"):
        landed = [n for n, v in outcomes.items() if n.endswith(kind) and v == "landed"]
        total = [n for n in outcomes if n.endswith(kind)]
        assert len(landed) == len(total), (kind, sorted(set(total) - set(landed)))

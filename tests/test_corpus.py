"""A real-world corpus: two released versions of real files; their diff, sent as edit_file edits,
must turn the older file into the newer one byte for byte.

The pairs live in ``tests/corpus/<project>-<old>-<new>/<path>.old`` and ``.new`` (see
``tests/corpus/MANIFEST.md`` for where each one comes from and under which license).

The edits are built the way a careful agent would write them: each changed hunk of the line
diff becomes one ``{old_text, new_text}`` whose ``old_text`` is the old lines widened with
neighbouring lines until it occurs exactly once in the text as that edit will see it. The
generator simulates the sequential semantics itself, so a failure of the simulation is reported
as a generator bug and a failure of ``edit_file`` as an engine bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Literal

import pytest

from editguard import Workspace
from editguard.core.document import decode

CORPUS = Path(__file__).parent / "corpus"

Edit = dict[str, str | int]
Order = Literal["bottom_up", "top_down"]


@dataclass(frozen=True, slots=True)
class Pair:
    """One real file in two versions: ``<name>.old`` and ``<name>.new`` under ``CORPUS``."""

    name: str  # "<project>-<old>-<new>/<path in the release>"

    @property
    def old_bytes(self) -> bytes:
        return (CORPUS / f"{self.name}.old").read_bytes()

    @property
    def new_bytes(self) -> bytes:
        return (CORPUS / f"{self.name}.new").read_bytes()

    @property
    def file_name(self) -> str:
        return self.name.rsplit("/", 1)[-1]


def _pairs() -> list[Pair]:
    names = sorted(p.relative_to(CORPUS).as_posix()[: -len(".old")] for p in CORPUS.rglob("*.old"))
    return [Pair(name) for name in names]


PAIRS = _pairs()


def _split_lines(text: str) -> list[str]:
    """Lines of ``\\n``-normalized text, each with its ``\\n`` (the last one may have none).

    Not str.splitlines: that also splits on form feeds, U+2028 and friends, which are not line
    breaks to editguard.
    """
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _count_overlapping(text: str, needle: str) -> int:
    count, start = 0, text.find(needle)
    while start >= 0:
        count += 1
        start = text.find(needle, start + 1)
    return count


def _build_edits(old: str, new: str, order: Order) -> tuple[list[Edit], str]:
    """One edit per changed hunk of the line diff of ``old`` and ``new``, in ``order``.

    Each ``old_text`` is widened with context lines until it occurs exactly once (even counting
    overlapping occurrences) in the text as that edit will see it, after the edits before it.

    Returns:
        The edits, and the text that applying them in sequence gives (the simulation).
    """
    old_lines, new_lines = _split_lines(old), _split_lines(new)
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    hunks = [op[1:] for op in matcher.get_opcodes() if op[0] != "equal"]
    if order == "bottom_up":
        hunks.reverse()
    state = list(old_lines)
    shift = 0  # lines added above the current hunk by earlier edits (top-down only)
    edits: list[Edit] = []
    for i1, i2, j1, j2 in hunks:
        start, stop = i1 + shift, i2 + shift
        current = "".join(state)
        before = after = 0
        while True:
            old_text = "".join(state[start - before : stop + after])
            if old_text and _count_overlapping(current, old_text) == 1:
                break
            can_after, can_before = stop + after < len(state), start - before > 0
            assert can_after or can_before, "the whole text is not unique in itself"
            if can_after and (after <= before or not can_before):
                after += 1
            else:
                before += 1
        replacement = [
            *state[start - before : start],
            *new_lines[j1:j2],
            *state[stop : stop + after],
        ]
        edits.append({"old_text": old_text, "new_text": "".join(replacement), "occurrences": 1})
        state[start - before : stop + after] = replacement
        if order == "top_down":
            shift += (j2 - j1) - (i2 - i1)
    return edits, "".join(state)


def _texts(pair: Pair) -> tuple[str, str]:
    return decode(pair.old_bytes).text, decode(pair.new_bytes).text


def _edits_for(pair: Pair, order: Order) -> list[Edit]:
    old, new = _texts(pair)
    edits, simulated = _build_edits(old, new, order)
    assert simulated == new, "the test's edit generator is wrong, not editguard"
    assert edits, "a corpus pair must differ"
    return edits


def _workspace_with_old_file(pair: Pair, tmp_path: Path) -> tuple[Workspace, Path]:
    target = tmp_path / pair.file_name
    target.write_bytes(pair.old_bytes)
    return Workspace([str(tmp_path)]), target


def test_the_corpus_holds_real_pairs_from_several_projects() -> None:
    projects = {pair.name.split("/", 1)[0].rsplit("-", 2)[0] for pair in PAIRS}
    assert len(PAIRS) >= 8
    assert len(projects) >= 3
    for pair in PAIRS:
        assert pair.old_bytes != pair.new_bytes, pair.name


def test_the_corpus_covers_crlf_boms_legacy_encodings_and_missing_final_newlines() -> None:
    olds = [decode(pair.old_bytes) for pair in PAIRS]
    assert any(doc.eol_style == "CRLF" and not doc.bom for doc in olds)
    assert any(doc.bom == b"\xef\xbb\xbf" for doc in olds)
    assert any(doc.encoding == "utf-16-le" for doc in olds)
    assert any(doc.encoding == "cp1252" for doc in olds)
    assert any(not doc.ends_with_newline for doc in olds)
    assert any(not pair.name.endswith(".py") for pair in PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_edits_reproduce_the_newer_release_byte_for_byte(pair: Pair, tmp_path: Path) -> None:
    edits = _edits_for(pair, "bottom_up")
    ws, target = _workspace_with_old_file(pair, tmp_path)

    result = ws.edit_file(pair.file_name, edits)

    assert target.read_bytes() == pair.new_bytes
    assert result.total_replacements == len(edits)
    assert result.written
    old, new = _texts(pair)
    if old != new:
        assert result.diff


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_all_hunks_top_to_bottom_in_one_call_reproduce_the_newer_release(
    pair: Pair, tmp_path: Path
) -> None:
    edits = _edits_for(pair, "top_down")
    ws, target = _workspace_with_old_file(pair, tmp_path)

    result = ws.edit_file(pair.file_name, edits)

    assert target.read_bytes() == pair.new_bytes
    assert result.total_replacements == len(edits)
    assert [applied.index for applied in result.edits_applied] == list(range(len(edits)))


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_one_call_per_hunk_chained_by_version_reproduces_the_newer_release(
    pair: Pair, tmp_path: Path
) -> None:
    edits = _edits_for(pair, "bottom_up")
    ws, target = _workspace_with_old_file(pair, tmp_path)
    version = ws.read_file(pair.file_name).version

    for edit in edits:
        result = ws.edit_file(pair.file_name, [edit], expected_version=version)
        assert result.total_replacements == 1
        assert result.previous_version == version
        version = result.version

    assert target.read_bytes() == pair.new_bytes


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_a_dry_run_of_the_corpus_edits_leaves_the_older_release_untouched(
    pair: Pair, tmp_path: Path
) -> None:
    edits = _edits_for(pair, "bottom_up")
    ws, target = _workspace_with_old_file(pair, tmp_path)

    result = ws.edit_file(pair.file_name, edits, dry_run=True)

    assert target.read_bytes() == pair.old_bytes
    assert result.would_modify
    assert not result.written

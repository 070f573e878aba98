"""A real-world corpus: two released versions of real files; their diff, sent as edit_file edits,
must turn the older file into the newer one byte for byte.

The pairs and the way their hunks become edits are in ``release_pairs.py``: each changed hunk
becomes one ``{old_text, new_text}`` whose ``old_text`` is widened with neighbouring lines until
it is unique, and the generator simulates the sequential semantics itself, so a failure of the
simulation is reported as a generator bug and a failure of ``edit_file`` as an engine bug.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from editguard import Workspace
from editguard.core.document import decode

from .release_pairs import PAIRS, Edit, Order, Pair, build_edits


def _edits_for(pair: Pair, order: Order) -> list[Edit]:
    old, new = pair.texts()
    edits, simulated = build_edits(old, new, order)
    assert simulated == new, "the test's edit generator is wrong, not editguard"
    assert edits, "a corpus pair must differ"
    return edits


def _workspace_with_old_file(pair: Pair, tmp_path: Path) -> tuple[Workspace, Path]:
    target = tmp_path / pair.file_name
    target.write_bytes(pair.old_bytes)
    return Workspace([str(tmp_path)]), target


def test_the_corpus_holds_real_pairs_from_several_projects() -> None:
    projects = {pair.project for pair in PAIRS}
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
    old, new = pair.texts()
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

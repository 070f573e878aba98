"""A large UTF-8 file read as a view (one character a byte): edit_file lands the same bytes, says
the same things and keeps the same history as on the decoded text, in a fraction of the memory.

The view is taken only for files over build.VIEW_LIMIT (20 MB), so the transaction tests write
real files of that size; the equivalence of the two readings is proved on the release corpus
(real code, with non-ASCII text put in), where the size does not matter.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, Workspace
from editguard.core.diff import render_diff
from editguard.core.document import decode, decode_stream, from_view, to_view
from editguard.core.formats.search_replace import SearchReplace, compile_search_replace
from editguard.core.plan import render
from editguard.tools import edit_file
from editguard.transaction import Transaction, build

CORPUS = Path(__file__).parent / "corpus"
# Characters of every UTF-8 length, a combining accent, and one that UTF-16 stores as a pair.
WIDE = ("é", "→", "😀", "中文", "e\u0301", "ÿ", "\u00a0", "\U0001d518")


def _corpus_texts() -> list[str]:
    out = []
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file() and path.suffix in (".old", ".new"):
            try:
                out.append(path.read_text(encoding="utf-8"))
            except UnicodeDecodeError:
                continue
    return out


def _with_wide(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(max(1, len(lines) // 20)):
        k = rng.randrange(len(lines))
        cut = rng.randrange(len(lines[k]) + 1)
        lines[k] = lines[k][:cut] + rng.choice(WIDE) + lines[k][cut:]
    return "\n".join(lines)


def _raw(text: str, newline: str, bom: bool) -> bytes:
    return (b"\xef\xbb\xbf" if bom else b"") + text.replace("\n", newline).encode("utf-8")


def _view(raw: bytes) -> Any:
    view = memoryview(raw)
    return decode_stream(bytes(view[:4]), lambda: [raw], utf8_view=True)


def _outcome(doc: Any, specs: list[SearchReplace], viewed: bool) -> Any:
    try:
        compiled = edit_file._in_view(doc, specs) if viewed else compile_search_replace(doc, specs)
    except EditError as exc:
        return exc.code
    shown = from_view if viewed else None
    applied = [(a.index, a.occurrences_replaced, list(a.lines), a.match) for a in compiled.applied]
    return (
        b"".join(render(doc, compiled.plan)),
        applied,
        render_diff(doc.text, compiled.plan, "f", shown=shown),
    )


def _specs(text: str, rng: random.Random) -> list[SearchReplace]:
    specs = []
    for _ in range(rng.randint(1, 3)):
        start = rng.randrange(len(text))
        old = text[start : start + rng.randint(1, 80)]
        if rng.random() < 0.2:
            old = old.rstrip() + "  "  # a trailing space the file may not have: the ladder's
        count = max(1, text.count(old)) if rng.random() < 0.7 else 1
        new = rng.choice(["", "x", "→ new", old.upper(), "😀\n" + old])
        specs.append(SearchReplace(old, new, count))
    return specs


def test_an_edit_in_a_view_lands_exactly_what_it_lands_in_the_text() -> None:
    rng = random.Random(20261126)
    texts = _corpus_texts()
    assert len(texts) >= 20
    landed_in_view = 0
    for case in range(600):
        text = _with_wide(rng.choice(texts), rng)
        newline, bom = rng.choice(["\n", "\r\n"]), rng.random() < 0.3
        raw = _raw(text, newline, bom)
        doc, view = decode(raw), _view(raw)
        assert view.utf8_view
        assert view.encoding == "latin-1"
        assert b"".join(render(view, compile_search_replace(view, []).plan)) == raw
        specs = _specs(doc.text, rng)
        in_text, in_view = _outcome(doc, specs, False), _outcome(view, specs, True)
        if isinstance(in_view, tuple):
            # What the view lands, the text lands the same: bytes, lines, diff.
            assert in_view == in_text, case
            landed_in_view += 1
        elif isinstance(in_text, tuple):
            # The view only refuses what takes a tolerance (the transaction then uses the text).
            assert any(match != "exact" for *_, match in in_text[1]), case
    assert landed_in_view > 300  # most edits are exact: the view is really used


def test_a_view_is_taken_only_for_utf8_that_is_not_all_ascii() -> None:
    ascii_doc = _view(b"plain\r\nascii\r\n")
    assert not ascii_doc.utf8_view
    assert ascii_doc.encoding == "utf-8"
    legacy = _view("caf\xe9 \x80\n".encode("latin-1"))  # not UTF-8: cp1252, decoded
    assert not legacy.utf8_view
    assert legacy.encoding == "cp1252"
    assert legacy.text == "café €\n"
    utf16 = _view("\N{GRINNING FACE}\n".encode("utf-16"))
    assert not utf16.utf8_view
    assert utf16.text == "\N{GRINNING FACE}\n"
    mixed = _view("a\r\nb→\nc\rd".encode())
    assert mixed.utf8_view
    assert mixed.text == to_view("a\nb→\nc\nd")
    assert mixed.line_endings == bytes([1, 0, 2])


def test_the_text_of_a_view_and_back() -> None:
    for text in ("", "ascii", *WIDE, "mixed → 😀 中文 text"):
        assert from_view(to_view(text)) == text
        assert to_view(text).encode("latin-1") == text.encode("utf-8")
    with pytest.raises(UnicodeEncodeError):
        to_view("lone \ud800 surrogate")


# -- the transaction, on files over the limit --------------------------------------------------

LINE = "    value_{n} = compute(value_{m}, 'label {n}')  # step {n}\n"


@pytest.fixture(scope="module")
def big_text() -> str:
    """About 21 MB of code-like ASCII lines (the view limit is 20 MB)."""
    lines, size, n = [], 0, 0
    while size <= build.VIEW_LIMIT + 1_000_000:
        line = LINE.format(n=n, m=n // 2)
        lines.append(line)
        size += len(line)
        n += 1
    return "".join(lines)


def _write(root: Path, text: str, newline: str = "\n", bom: bool = False) -> Path:
    path = root / "big.py"
    path.write_bytes(_raw(text, newline, bom))
    return path


def _run(ws: Workspace, path: str, specs: list[SearchReplace], seen: list[bool]) -> Any:
    """edit_file's builds in a transaction of one file, noting whether each view build ran."""

    def on_text(doc: Any) -> build.Change:
        seen.append(False)
        return build.Change.of(compile_search_replace(doc, specs))

    def on_view(doc: Any) -> build.Change:
        seen.append(True)
        return edit_file._in_view(doc, specs)

    with Transaction(ws.context, tool="edit_file") as txn:
        txn.lock([path])
        out = txn.run_edit(path, on_text, mode="strict", build_view=on_view)
        txn.commit()
    return out


@pytest.mark.parametrize(("newline", "bom"), [("\n", False), ("\r\n", True)])
def test_edit_file_on_a_large_file_with_an_emoji_edits_its_view(
    root: Path, big_text: str, newline: str, bom: bool
) -> None:
    text = "# status: done \N{GRINNING FACE}\n" + big_text
    path = _write(root, text, newline, bom)
    ws = Workspace([root])
    old = LINE.format(n=200_000, m=100_000)
    new = old.replace("compute", "compute→twice").replace("step", "étape")
    seen: list[bool] = []
    out = _run(ws, "big.py", [SearchReplace(old, new)], seen)
    assert seen == [True]
    assert out.before.utf8_view
    assert out.written
    assert path.read_bytes() == _raw(text.replace(old, new), newline, bom)
    diff = out.diff()
    assert f"-{old.rstrip()}" in diff.splitlines()
    assert f"+{new.rstrip()}" in diff.splitlines()
    assert "@@ -199999,7 +199999,7 @@" in diff  # line 200,002 and 3 lines around, as in the text
    assert out.report.notes == ("validation skipped: the file is over 5 MB",)
    # The history has the diff as the text reads, and undo gives the bytes back.
    (entry,) = ws.history(limit=1).changes
    (changed,) = ws.history(change_id=entry.id).changes[0].files
    assert (changed.added, changed.removed) == (1, 1)
    assert changed.diff is not None
    assert f"+{new.rstrip()}" in changed.diff.splitlines()
    ws.undo()
    assert path.read_bytes() == _raw(text, newline, bom)


def test_edit_file_through_the_tool_lands_the_same_on_a_view(root: Path, big_text: str) -> None:
    text = big_text + "# last line \N{RIGHTWARDS ARROW}\n"
    path = _write(root, text)
    ws = Workspace([root])
    old, new = LINE.format(n=5, m=2), "    value_5 = 'five 😀'\n"
    result = ws.edit_file("big.py", [{"old_text": old, "new_text": new}])
    assert result.written
    assert result.edits_applied[0].lines == [6]
    assert "+    value_5 = 'five 😀'" in result.diff.splitlines()
    assert path.read_bytes() == text.replace(old, new, 1).encode()


def test_an_edit_that_needs_a_tolerance_reads_the_text_and_lands(root: Path, big_text: str) -> None:
    text = "→\n" + big_text
    path = _write(root, text)
    ws = Workspace([root])
    old = LINE.format(n=7, m=3).replace("  # step 7\n", "  # step 7  \n")  # a space too many
    seen: list[bool] = []
    out = _run(ws, "big.py", [SearchReplace(old, "    value_7 = 7\n")], seen)
    assert seen == [True, False]
    assert not out.before.utf8_view
    assert out.change.applied[0].match != "exact"
    assert path.read_bytes() == text.replace(LINE.format(n=7, m=3), "    value_7 = 7\n").encode()


def test_refusals_on_a_view_are_the_texts_and_leave_the_file_alone(
    root: Path, big_text: str
) -> None:
    text = "→ 中文\n" + big_text
    path = _write(root, text)
    before = path.read_bytes()
    ws = Workspace([root])
    with pytest.raises(EditError) as missing:
        ws.edit_file("big.py", [{"old_text": "→ 中文 and more\n", "new_text": ""}])
    assert missing.value.code == "NO_MATCH"
    assert "→ 中文" in missing.value.message + str(missing.value.data)
    with pytest.raises(EditError) as twice:
        ws.edit_file("big.py", [{"old_text": "compute(", "new_text": "run("}])
    assert twice.value.code in ("WRONG_COUNT", "TOO_MANY_EDITS")
    with pytest.raises(EditError) as surrogate:
        ws.edit_file("big.py", [{"old_text": "→ 中文", "new_text": "\ud800"}])
    assert surrogate.value.code == "ENCODING_ERROR"
    with pytest.raises(EditError) as nul:
        ws.edit_file("big.py", [{"old_text": "→ 中文", "new_text": "\x00"}])
    assert nul.value.code == "INVALID_REQUEST"
    assert path.read_bytes() == before


def test_a_dry_run_on_a_view_gives_the_version_the_write_makes(root: Path, big_text: str) -> None:
    _write(root, "é\n" + big_text)
    ws = Workspace([root])
    edit = [{"old_text": "é\n", "new_text": "è\n"}]
    dry = ws.edit_file("big.py", edit, dry_run=True)
    assert dry.would_modify
    assert not dry.written
    assert ws.edit_file("big.py", edit).version == dry.version

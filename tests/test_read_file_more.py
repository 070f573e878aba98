"""read_file beyond one window of one file: several files in one call, head and tail, and image
files as image content (through the Python API, the CLI and the MCP server)."""

from __future__ import annotations

import base64
import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp_types import ImageContent, TextContent

from editguard import (
    EditError,
    ImageResult,
    ReadFailure,
    ReadFileResult,
    ReadFilesResult,
    Workspace,
)
from editguard.core.document import Document, content_version, decode
from editguard.core.images import image_type
from editguard.mcp_server import EditguardServer
from editguard.tools.read_file import IMAGE_BYTES, MAX_PATHS, READ_CHARS

from .conftest import run_cli
from .test_cli import in_a_terminal

SRC = Path(__file__).resolve().parent.parent / "src"


def png(width: int = 1, height: int = 1) -> bytes:
    """A real PNG image (RGBA, every pixel red), made the way the format says."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x00\x00\xff" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def text_read(result: object) -> ReadFileResult:
    assert isinstance(result, ReadFileResult), result
    return result


# -- several files in one call -------------------------------------------------------------


def test_several_paths_come_back_in_order_and_a_missing_one_says_why(
    ws: Workspace, root: Path
) -> None:
    (root / "a.py").write_text("x = 1\n")
    (root / "b.txt").write_text("one\ntwo\n")
    result = ws.read_file(paths=["a.py", "b.text", "b.txt"])
    assert isinstance(result, ReadFilesResult)
    first, missing, last = result.files
    assert text_read(first) == text_read(ws.read_file("a.py"))  # each as read alone
    assert text_read(last).content == "1│one\n2│two"
    assert isinstance(missing, ReadFailure)
    assert missing.path == "b.text"
    assert missing.error.code == "FILE_NOT_FOUND"
    assert "Did you mean b.txt?" in missing.error.message  # as a read of it alone says


def test_each_file_of_paths_fails_with_its_own_code(ws: Workspace, root: Path) -> None:
    (root / "bin.dat").write_bytes(b"\x00\x01\x02")
    (root / "folder").mkdir()
    (root / "ok.txt").write_text("fine\n")
    result = ws.read_file(paths=["bin.dat", "../outside.txt", "folder", "ok.txt"])
    assert isinstance(result, ReadFilesResult)
    codes = [f.error.code if isinstance(f, ReadFailure) else "ok" for f in result.files]
    assert codes == ["BINARY_FILE", "OUTSIDE_ROOT", "NOT_A_FILE", "ok"]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"path": "a.txt", "paths": ["a.txt"]}, "paths"),
        ({}, "path"),
        ({"start_line": 1}, "path"),
    ],
)
def test_path_and_paths_are_one_or_the_other(
    ws: Workspace, root: Path, arguments: dict[str, Any], field: str
) -> None:
    (root / "a.txt").write_text("a\n")
    with pytest.raises(EditError) as err:
        ws.read_file(**arguments)
    assert err.value.code == "INVALID_REQUEST"
    assert err.value.data["field"] == field


def test_paths_takes_at_most_fifty_files(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    result = ws.read_file(paths=["a.txt"] * MAX_PATHS)
    assert isinstance(result, ReadFilesResult)
    assert len(result.files) == MAX_PATHS == 50
    with pytest.raises(EditError) as err:
        ws.read_file(paths=["a.txt"] * (MAX_PATHS + 1))
    assert err.value.code == "INVALID_REQUEST"
    assert err.value.data["field"] == "paths"
    with pytest.raises(EditError) as err:
        ws.read_file(paths=[])
    assert err.value.data["field"] == "paths"


def test_the_files_of_paths_share_one_budget_of_lines(root: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text("".join(f"{name} {i}\n" for i in range(1, 7)))
    result = Workspace([root], read_lines=10).read_file(paths=["a.txt", "b.txt", "c.txt"])
    assert isinstance(result, ReadFilesResult)
    a, b, c = (text_read(f) for f in result.files)
    assert (a.end_line, a.truncated, a.next_start_line) == (6, False, None)
    assert (b.start_line, b.end_line, b.truncated, b.next_start_line) == (1, 4, True, 5)
    assert b.content.splitlines()[-1] == "4│b.txt 4"
    # Nothing left for the last file: none of its lines, and where to start reading it.
    assert (c.content, c.end_line, c.truncated, c.next_start_line) == ("", 0, True, 1)
    assert (c.total_lines, c.version) == (6, content_version([(root / "c.txt").read_bytes()]))


def test_the_files_of_paths_share_one_budget_of_characters(ws: Workspace, root: Path) -> None:
    line = "x" * (READ_CHARS // 3) + "\n"
    (root / "wide.min.js").write_text(line * 3)
    (root / "after.txt").write_text("short\n")
    result = ws.read_file(paths=["wide.min.js", "after.txt"])
    assert isinstance(result, ReadFilesResult)
    wide, after = (text_read(f) for f in result.files)
    assert (wide.end_line, wide.truncated, wide.next_start_line) == (2, True, 3)
    assert after.content == "1│short"  # what is left still shows a short file


def test_an_end_line_asked_for_is_cut_by_the_budget_and_says_so(root: Path) -> None:
    (root / "a.txt").write_text("".join(f"{i}\n" for i in range(1, 31)))
    ws = Workspace([root], read_lines=10)
    result = ws.read_file(paths=["a.txt"], start_line=5, end_line=25)
    assert isinstance(result, ReadFilesResult)
    (a,) = result.files
    assert (text_read(a).start_line, text_read(a).end_line) == (5, 14)
    assert (text_read(a).truncated, text_read(a).next_start_line) == (True, 15)
    # Alone, the same window holds (issue 22: every read stays within it).
    alone = text_read(ws.read_file("a.txt", start_line=5, end_line=25))
    assert (alone.end_line, alone.truncated, alone.next_start_line) == (14, True, 15)


def test_a_bad_range_in_paths_is_reported_for_that_file_only(ws: Workspace, root: Path) -> None:
    (root / "short.txt").write_text("a\n")
    (root / "long.txt").write_text("a\nb\nc\nd\n")
    result = ws.read_file(paths=["short.txt", "long.txt"], start_line=3)
    assert isinstance(result, ReadFilesResult)
    short, long = result.files
    assert isinstance(short, ReadFailure)
    assert short.error.code == "INVALID_REQUEST"
    assert text_read(long).content == "3│c\n4│d"


def test_one_path_keeps_the_result_it_always_had(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    assert set(ws.read_file("a.txt").model_dump()) == {
        "path",
        "content",
        "start_line",
        "end_line",
        "total_lines",
        "truncated",
        "next_start_line",
        "next_start_column",
        "encoding",
        "bom",
        "line_ending",
        "ends_with_newline",
        "version",
    }


# -- head and tail -------------------------------------------------------------------------

FILES = {
    "lf": b"one\ntwo\nthree\nfour\nfive\n",
    "crlf": b"one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n",
    "no final newline": b"one\ntwo\nthree\nfour\nfive",
    "mixed": b"one\r\ntwo\nthree\rfour\r\nfive",
    "blank last line": b"one\ntwo\nthree\nfour\nfive\n\n",
}
WORDS = ["one", "two", "three", "four", "five"]


def numbered(lines: list[str], first: int) -> str:
    width = len(str(first + len(lines) - 1))
    return "\n".join(f"{n:>{width}}│{line}" for n, line in enumerate(lines, first))


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("count", [1, 2, 5, 6, 100])
def test_head_shows_the_first_lines(ws: Workspace, root: Path, name: str, count: int) -> None:
    (root / "f.txt").write_bytes(FILES[name])
    lines = decode(FILES[name]).text.split("\n")[: Document(decode(FILES[name]).text).line_count]
    r = text_read(ws.read_file("f.txt", head=count))
    shown = lines[:count]
    assert r.content == numbered(shown, 1)
    assert (r.start_line, r.end_line, r.total_lines) == (1, len(shown), len(lines))
    more = count < len(lines)
    assert (r.truncated, r.next_start_line) == (more, count + 1 if more else None)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("count", [1, 2, 5, 6, 100])
def test_tail_shows_the_last_lines(ws: Workspace, root: Path, name: str, count: int) -> None:
    (root / "f.txt").write_bytes(FILES[name])
    lines = decode(FILES[name]).text.split("\n")[: Document(decode(FILES[name]).text).line_count]
    r = text_read(ws.read_file("f.txt", tail=count))
    shown = lines[-count:]
    first = len(lines) - len(shown) + 1
    assert r.content == numbered(shown, first)
    assert (r.start_line, r.end_line, r.total_lines) == (first, len(lines), len(lines))
    assert (r.truncated, r.next_start_line) == (False, None)


def test_tail_numbers_lines_as_the_file_does(ws: Workspace, root: Path) -> None:
    (root / "f.txt").write_bytes(b"".join(f"line {i}\r\n".encode() for i in range(1, 1001)))
    r = text_read(ws.read_file("f.txt", tail=3))
    assert r.content == " 998│line 998\n 999│line 999\n1000│line 1000"
    assert r.line_ending == "CRLF"
    assert r.version == content_version([(root / "f.txt").read_bytes()])


def test_head_and_tail_of_an_empty_file_show_nothing(ws: Workspace, root: Path) -> None:
    (root / "empty").write_bytes(b"")
    windows: tuple[dict[str, Any], ...] = ({"head": 3}, {"tail": 3})
    for window in windows:
        r = text_read(ws.read_file("empty", **window))
        assert (r.content, r.total_lines, r.truncated) == ("", 0, False)


@pytest.mark.parametrize(
    ("window", "field"),
    [
        ({"head": 2, "tail": 2}, "tail"),
        ({"head": 2, "start_line": 1}, "start_line"),
        ({"tail": 2, "end_line": 3}, "end_line"),
        ({"tail": 2, "start_line": 1, "end_line": 3}, "start_line"),
    ],
)
def test_head_and_tail_exclude_each_other_and_a_line_range(
    ws: Workspace, root: Path, window: dict[str, Any], field: str
) -> None:
    (root / "f.txt").write_text("a\nb\nc\n")
    with pytest.raises(EditError) as err:
        ws.read_file("f.txt", **window)
    assert err.value.code == "INVALID_REQUEST"
    assert err.value.data["field"] == field


@pytest.mark.parametrize("count", [0, -1])
def test_head_and_tail_count_at_least_one_line(ws: Workspace, root: Path, count: int) -> None:
    (root / "f.txt").write_text("a\n")
    windows: tuple[dict[str, Any], ...] = ({"head": count}, {"tail": count})
    for window in windows:
        with pytest.raises(EditError) as err:
            ws.read_file("f.txt", **window)
        assert err.value.data["field"] in window


def test_head_and_tail_apply_to_each_file_of_paths(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a1\na2\na3\n")
    (root / "b.txt").write_text("b1\nb2\n")
    result = ws.read_file(paths=["a.txt", "b.txt"], tail=1)
    assert isinstance(result, ReadFilesResult)
    assert [text_read(f).content for f in result.files] == ["3│a3", "2│b2"]


@given(st.text(alphabet="ab\n", max_size=30), st.integers(min_value=0, max_value=12))
def test_last_lines_are_the_lines_an_editor_numbers_last(text: str, count: int) -> None:
    doc = Document(text)
    everything = doc.lines(1, doc.line_count)
    first, start = doc.last_lines_start(count)
    lines = doc.lines(first, doc.line_count) if count else []
    if lines:  # ``start`` is where line ``first`` starts
        assert doc.text.count("\n", 0, start) == first - 1
        assert start == 0 or doc.text[start - 1] == "\n"
    expected = everything[max(0, len(everything) - count) :] if count else []
    assert lines == expected
    assert first == doc.line_count - len(expected) + 1


# -- the window: lines and characters, whatever was asked ----------------------------------


def test_a_file_of_one_5_mb_line_is_cut_and_says_where_it_goes_on(
    ws: Workspace, root: Path
) -> None:
    text = "".join(f"{n:07d}," for n in range(625_000))  # 5 MB, no line break
    (root / "min.js").write_text(text)
    first = text_read(ws.read_file("min.js"))
    assert len(first.content) <= READ_CHARS
    assert (first.end_line, first.total_lines, first.truncated) == (1, 1, True)
    assert (first.next_start_line, first.next_start_column) == (1, len(first.content) - 1)
    assert text.startswith(first.content.removeprefix("1│"))
    # The next call reads on exactly where the first stopped, and so on to the end.
    column, parts = first.next_start_column, [first.content.removeprefix("1│")]
    while column is not None:
        more = text_read(ws.read_file("min.js", start_line=1, start_column=column))
        assert len(more.content) <= READ_CHARS
        parts.append(more.content.removeprefix("1│"))
        column = more.next_start_column
    assert "".join(parts) == text
    assert (more.truncated, more.next_start_line) == (False, None)


def test_head_of_100000_lines_answers_within_the_window(ws: Workspace, root: Path) -> None:
    (root / "big.log").write_text("".join(f"line {n:>6} of the log file\n" for n in range(100_000)))
    result = text_read(ws.read_file("big.log", head=100_000))
    assert len(result.content) <= READ_CHARS
    assert (result.end_line, result.truncated, result.next_start_line) == (2000, True, 2001)
    assert result.next_start_column is None  # no line was cut


@pytest.mark.parametrize("end", ["head", "tail"])
def test_head_or_tail_of_10_to_the_18_lines_is_one_window(
    ws: Workspace, root: Path, end: str
) -> None:
    (root / "big.log").write_text("".join(f"{n:>9} {'y' * 40}\n" for n in range(100_000)))
    window: dict[str, Any] = {end: 10**18}
    result = text_read(ws.read_file("big.log", **window))
    assert len(result.content) <= READ_CHARS
    assert (result.start_line, result.end_line, result.total_lines) == (1, 2000, 100_000)
    assert (result.truncated, result.next_start_line) == (True, 2001)


def test_wide_lines_stop_at_the_window_before_a_line_that_does_not_fit(root: Path) -> None:
    (root / "wide.txt").write_text(("w" * 100_000 + "\n") * 5)
    result = text_read(Workspace([root]).read_file("wide.txt", start_line=2, end_line=5))
    assert len(result.content) <= READ_CHARS
    # Two whole lines fit; the third is left whole for the next call, not cut.
    assert (result.end_line, result.next_start_line, result.next_start_column) == (3, 4, None)


def test_several_big_files_share_one_window_of_characters(ws: Workspace, root: Path) -> None:
    for name in ("a.min.js", "b.min.js", "c.min.js"):
        (root / name).write_text(name * 400_000)  # 3.2 MB, one line each
    result = ws.read_file(paths=["a.min.js", "b.min.js", "c.min.js"], head=10**18)
    assert isinstance(result, ReadFilesResult)
    a, b, c = (text_read(f) for f in result.files)
    assert sum(len(f.content) for f in (a, b, c)) <= READ_CHARS
    assert (a.truncated, a.next_start_line, a.next_start_column) == (True, 1, len(a.content) - 1)
    for rest in (b, c):
        assert (rest.content, rest.truncated, rest.next_start_line) == ("", True, 1)


def test_a_start_column_past_the_line_or_beside_head_is_refused(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("abc\ndef\n")
    assert text_read(ws.read_file("a.txt", start_line=2, start_column=2)).content == "2│ef"
    assert text_read(ws.read_file("a.txt", start_line=2, start_column=4)).content == "2│"
    with pytest.raises(EditError) as err:
        ws.read_file("a.txt", start_line=2, start_column=5)
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", "start_column")
    assert err.value.data["line_length"] == 3
    with pytest.raises(EditError) as err:
        ws.read_file("a.txt", head=1, start_column=2)
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", "start_column")


def test_the_cli_answers_a_one_line_file_of_5_mb_within_the_window(root: Path) -> None:
    (root / "one.log").write_text("z" * 5_000_000)
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "call", "read_file", '{"path": "one.log"}', "--json"],
        cwd=root,
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert len(proc.stdout) < READ_CHARS + 2000
    out = json.loads(proc.stdout)
    assert (out["next_start_line"], out["next_start_column"]) == (1, len(out["content"]) - 1)


# -- images --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (png()[:12], "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00\x80\x00", "image/gif"),
        (b"GIF87a\x01\x00\x01\x00\x80\x00", "image/gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"RIFF\x24\x00\x00\x00WAVEfmt ", None),
        (b"\x89PNG but text", None),
        (b"print('png')", None),
        (b"", None),
    ],
)
def test_an_image_is_known_by_its_first_bytes(head: bytes, mime: str | None) -> None:
    assert image_type(head) == mime


def test_a_png_comes_back_as_its_bytes_in_base64(ws: Workspace, root: Path) -> None:
    data = png(3, 2)
    (root / "logo.png").write_bytes(data)
    result = ws.read_file("logo.png")
    assert isinstance(result, ImageResult)
    assert (result.mime_type, result.size) == ("image/png", len(data))
    assert base64.b64decode(result.data) == data
    assert result.version == content_version([data])
    assert result.path == str(root / "logo.png")


def test_the_first_bytes_decide_not_the_name(ws: Workspace, root: Path) -> None:
    (root / "really-text.png").write_text("not an image\n")
    assert text_read(ws.read_file("really-text.png")).content == "1│not an image"
    (root / "picture.txt").write_bytes(png())
    image = ws.read_file("picture.txt")
    assert isinstance(image, ImageResult)
    assert image.mime_type == "image/png"


def test_a_binary_file_that_is_no_image_is_still_refused(ws: Workspace, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 40)
    with pytest.raises(EditError) as err:
        ws.read_file("blob.bin")
    assert err.value.code == "BINARY_FILE"


def test_line_arguments_leave_an_image_whole(ws: Workspace, root: Path) -> None:
    (root / "a.png").write_bytes(png())
    image = ws.read_file("a.png", head=1)
    assert isinstance(image, ImageResult)
    assert base64.b64decode(image.data) == png()


def test_an_image_over_the_cap_is_too_large(ws: Workspace, root: Path) -> None:
    big = png()
    (root / "huge.png").write_bytes(big + b"\x00" * (IMAGE_BYTES + 1 - len(big)))
    with pytest.raises(EditError) as err:
        ws.read_file("huge.png")
    assert err.value.code == "FILE_TOO_LARGE"
    assert err.value.data == {
        "size": IMAGE_BYTES + 1,
        "limit": IMAGE_BYTES,
        "mime_type": "image/png",
    }
    assert "5,242,880" in err.value.message
    assert err.value.path == "huge.png"
    (root / "huge.png").write_bytes(big + b"\x00" * (IMAGE_BYTES - len(big)))
    assert isinstance(ws.read_file("huge.png"), ImageResult)  # at the cap: still read


def test_the_images_of_paths_share_the_cap(ws: Workspace, root: Path) -> None:
    half = png() + b"\x00" * (IMAGE_BYTES // 2 + 10)
    (root / "a.png").write_bytes(half)
    (root / "b.png").write_bytes(half)
    (root / "c.png").write_bytes(png())
    result = ws.read_file(paths=["a.png", "b.png", "c.png"])
    assert isinstance(result, ReadFilesResult)
    a, b, c = result.files
    assert isinstance(a, ImageResult)
    assert isinstance(b, ReadFailure)
    assert b.error.code == "FILE_TOO_LARGE"
    assert "call of its own" in b.error.message
    assert isinstance(c, ImageResult)  # a small one still fits
    alone = ws.read_file("b.png")
    assert isinstance(alone, ImageResult)


def cli(root: Path, *args: str) -> tuple[int, Any]:
    return run_cli(root, *args, quiet=True)


def test_the_cli_prints_an_image_with_its_base64_bytes(root: Path) -> None:
    (root / "logo.png").write_bytes(png(2, 2))
    code, out = cli(root, "call", "read_file", '{"path": "logo.png"}')
    assert code == 0
    assert (out["mime_type"], out["size"]) == ("image/png", len(png(2, 2)))
    assert base64.b64decode(out["data"]) == png(2, 2)


def test_the_cli_reads_several_files_and_exits_0_with_one_missing(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "logo.png").write_bytes(png())
    code, out = cli(
        root, "call", "read_file", '{"paths": ["a.txt", "gone.txt", "logo.png"], "head": 1}'
    )
    assert code == 0
    a, gone, logo = out["files"]
    assert a["content"] == "1│a"
    assert gone == {"path": "gone.txt", "error": gone["error"]}
    assert gone["error"]["code"] == "FILE_NOT_FOUND"
    assert base64.b64decode(logo["data"]) == png()
    code, out = cli(root, "call", "read_file", '{"path": "a.txt", "head": 1, "tail": 1}')
    assert code == 1
    assert out["error"]["code"] == "INVALID_REQUEST"


def test_a_terminal_shows_each_file_of_paths(root: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    (root / "logo.png").write_bytes(png())
    code, screen = in_a_terminal(
        root, "call", "read_file", '{"paths": ["a.txt", "logo.png", "gone.txt"]}'
    )
    assert code == 0
    assert "1│alpha" in screen
    assert f"image/png image, {len(png())} bytes" in screen
    assert "FILE_NOT_FOUND" in screen
    assert base64.b64encode(png()).decode() not in screen  # bytes are no use on a screen


# -- over MCP, with the SDK's own client ----------------------------------------------------

pytestmark_anyio = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_returns_an_image_as_image_content(root: Path) -> None:
    data = png(4, 4)
    (root / "logo.png").write_bytes(data)
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("read_file", {"path": "logo.png"})
    assert not result.is_error
    text, image = result.content
    assert isinstance(image, ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == data
    # The JSON says what the file is, once; its bytes travel only as the image.
    assert isinstance(text, TextContent)
    facts = json.loads(text.text)
    assert facts == {
        "path": str(root / "logo.png"),
        "mime_type": "image/png",
        "size": len(data),
        "version": content_version([data]),
    }
    assert result.structured_content == facts


@pytest.mark.anyio
async def test_mcp_reads_several_files_with_their_images_after_the_json(root: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    (root / "one.png").write_bytes(png(1, 1))
    (root / "two.png").write_bytes(png(2, 1))
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(
            "read_file", {"paths": ["two.png", "a.txt", "missing.txt", "one.png"]}
        )
    assert not result.is_error
    text, *images = result.content
    assert isinstance(text, TextContent)
    files = json.loads(text.text)["files"]
    assert [f.get("mime_type") for f in files] == ["image/png", None, None, "image/png"]
    assert files[1]["content"] == "1│alpha"
    assert files[2]["error"]["code"] == "FILE_NOT_FOUND"
    assert all("data" not in f for f in files)
    assert [type(i) for i in images] == [ImageContent, ImageContent]
    assert [base64.b64decode(i.data) for i in images if isinstance(i, ImageContent)] == [
        png(2, 1),
        png(1, 1),
    ]


@pytest.mark.anyio
async def test_mcp_refuses_an_image_over_the_cap_with_its_code(root: Path) -> None:
    (root / "huge.png").write_bytes(png() + b"\x00" * IMAGE_BYTES)
    (root / "text.png").write_text("just text\n")
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        huge = await client.call_tool("read_file", {"path": "huge.png"})
        text = await client.call_tool("read_file", {"path": "text.png"})
    assert huge.is_error
    (block,) = huge.content
    assert isinstance(block, TextContent)
    assert block.text.startswith("FILE_TOO_LARGE: ")
    assert not text.is_error
    assert [type(b) for b in text.content] == [TextContent]
    assert text.structured_content is not None
    assert text.structured_content["content"] == "1│just text"

"""Documents: every supported encoding and line-ending style reads and writes back identically."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from editguard.core.document import (
    content_version,
    decode,
    decode_stream,
    encode_document,
    eol_style,
    line_bounds,
    line_numbers,
    normalize_newlines,
)
from editguard.errors import BinaryFile, EncodingError

ROUND_TRIPS = {
    "lf": b"a\nb\n",
    "crlf": b"a\r\nb\r\n",
    "cr": b"a\rb\r",
    "mixed": b"a\r\nb\nc\rd",
    "no final newline": b"a\nb",
    "empty": b"",
    "utf8 bom": b"\xef\xbb\xbfx = 1\r\n",
    "utf16 le bom": "x = 'é'\r\ny\r\n".encode("utf-16"),
    "utf16 be bom": b"\xfe\xff" + "ünï\ncode\n".encode("utf-16-be"),
    "utf32 le bom": b"\xff\xfe\x00\x00" + "a\nb".encode("utf-32-le"),
    "cp1252": "caf\u00e9 \u20ac \u201cq\u201d\r\n".encode("cp1252"),
    "latin1 with cp1252 holes": b"caf\xe9 \x81\x8d\n",
    "emoji": "🙂 ok\n".encode(),
    "lone cr inside": b"progress\r50%\n",
}


@pytest.mark.parametrize("data", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_an_unchanged_document_writes_back_the_same_bytes(data: bytes) -> None:
    assert encode_document(decode(data)) == data


@pytest.mark.parametrize(
    ("data", "encoding", "bom", "style"),
    [
        (b"a\nb\n", "utf-8", False, "LF"),
        (b"a\r\nb\r\n", "utf-8", False, "CRLF"),
        (b"a\rb", "utf-8", False, "CR"),
        (b"a\r\nb\n", "utf-8", False, "mixed"),
        (b"abc", "utf-8", False, "none"),
        (b"\xef\xbb\xbfa\n", "utf-8", True, "LF"),
        ("a\r\n".encode("utf-16"), "utf-16-le", True, "CRLF"),
        (b"\xfe\xff\x00a", "utf-16-be", True, "none"),
        (b"\xff\xfe\x00\x00a\x00\x00\x00", "utf-32-le", True, "none"),
        (b"\x00\x00\xfe\xff\x00\x00\x00a", "utf-32-be", True, "none"),
        ("€\n".encode("cp1252"), "cp1252", False, "LF"),
        (b"\x81\n", "latin-1", False, "LF"),
    ],
)
def test_decode_reports_encoding_bom_and_line_endings(
    data: bytes, encoding: str, bom: bool, style: str
) -> None:
    doc = decode(data)
    assert (doc.encoding, bool(doc.bom), doc.eol_style) == (encoding, bom, style)


def test_the_text_has_every_line_break_as_lf() -> None:
    doc = decode(b"a\r\nb\rc\nd")
    assert doc.text == "a\nb\nc\nd"
    assert [doc.ending_of_break(i) for i in range(3)] == ["\r\n", "\r", "\n"]


def test_the_most_common_ending_is_the_newline_of_a_mixed_file() -> None:
    assert decode(b"a\r\nb\r\nc\nd").newline == "\r\n"


@pytest.mark.parametrize(
    "data",
    [b"\x00\x01\x02ELF", b"text\x00more", b"\x01\x02\x03\x04\x05\x06\x07\x08" * 10 + b"\xff"],
    ids=["nul first", "nul inside", "control bytes not utf8"],
)
def test_binary_content_is_refused(data: bytes) -> None:
    with pytest.raises(BinaryFile) as err:
        decode(data)
    assert err.value.code == "BINARY_FILE"


def test_a_broken_utf16_file_is_refused_not_patched_with_replacement_characters() -> None:
    with pytest.raises(BinaryFile):
        decode(b"\xff\xfe" + b"\x00\xd8")  # a lone high surrogate


def test_undecodable_bytes_never_become_replacement_characters() -> None:
    doc = decode(b"\x81\x8d\x8f\x90\x9d ok\n")
    assert "\ufffd" not in doc.text
    assert encode_document(doc) == b"\x81\x8d\x8f\x90\x9d ok\n"


def test_check_encodable_names_the_character_that_does_not_fit() -> None:
    doc = decode("caf\u00e9\n".encode("cp1252"))
    with pytest.raises(EncodingError) as err:
        doc.check_encodable("snow ☃")
    assert err.value.data["character"] == "☃"
    assert err.value.code == "ENCODING_ERROR"


def test_line_count_counts_a_last_line_without_newline() -> None:
    assert decode(b"a\nb").line_count == 2
    assert decode(b"a\nb\n").line_count == 2
    assert decode(b"").line_count == 0
    assert decode(b"\n").line_count == 1


def test_line_numbers_and_bounds() -> None:
    text = "ab\ncd\nef"
    assert line_numbers(text, [0, 3, 4, 7]) == [1, 2, 2, 3]
    assert line_bounds(text, 4, 5) == (3, 5)
    assert line_bounds(text, 3, 6) == (3, 5)
    with pytest.raises(ValueError, match="sorted"):
        line_numbers(text, [4, 1])


def test_normalize_newlines_and_style() -> None:
    assert normalize_newlines("a\r\nb\rc") == "a\nb\nc"
    assert eol_style("a\r\nb\r\n") == "CRLF"
    assert eol_style("a\nb\r\n") == "mixed"


def test_content_version_depends_on_every_byte() -> None:
    assert content_version([b"ab", b"c"]) == content_version([b"abc"])
    assert content_version([b"abc"]) != content_version([b"abd"])


lines = st.lists(
    st.tuples(
        st.text(
            alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n\x00"),
            max_size=8,
        ),
        st.sampled_from(["\n", "\r\n", "\r"]),
    ),
    max_size=8,
)


@given(lines, st.booleans(), st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32"]))
def test_any_text_round_trips_in_any_supported_encoding(
    parts: list[tuple[str, str]], final: bool, encoding: str
) -> None:
    raw = "".join(line + end for line, end in parts)
    if not final and parts:
        raw = raw.rstrip("\r\n")
    data = raw.encode(encoding)
    assert encode_document(decode(data)) == data


@given(
    lines, st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32", "cp1252"]), st.integers(1, 5)
)
def test_decoding_in_small_chunks_gives_the_same_document(
    parts: list[tuple[str, str]], encoding: str, size: int
) -> None:
    raw = "".join(line + end for line, end in parts)
    try:
        data = raw.encode(encoding)
    except UnicodeEncodeError:
        data = raw.encode("latin-1", errors="replace")
    try:
        whole = decode(data)
    except BinaryFile:
        return
    # Every chunk boundary cuts somewhere: inside CRLF pairs and multi-byte characters too.
    pieces = decode_stream(
        data[:4], lambda: (data[i : i + size] for i in range(0, len(data), size))
    )
    assert pieces == whole
    assert encode_document(pieces) == data

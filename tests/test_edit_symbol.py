"""edit_symbol and list_symbols: locating, the four actions, the seven chunk checks and the
structure check, on real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from editguard import EditError, Workspace
from editguard.core.formats.chunks import Chunk, apply_chunks_with_endings, make_chunk
from editguard.mcp_server import EditguardServer

from .conftest import Snapshot, set_old_mtime

BODY = """    def process(self, data):
        result = transform(data)
        if result:
            log(result)
        return result
"""


def chunk(
    before: Any, old: list[str], new: list[str], after: Any, *, at_end: bool = False
) -> Chunk:
    return make_chunk(before, old, new, after, index=0, newline="\n", at_end=at_end)


def apply(body: str, *chunks: Chunk) -> str:
    return apply_chunks_with_endings(body, list(chunks), 10, "Worker/process", None)[0]


# -- stage 1: one chunk ----------------------------------------------------------------------


def test_a_single_replacement() -> None:
    out = apply(
        BODY,
        chunk(
            "    def process(self, data):",
            ["        result = transform(data)"],
            ["        result = transform(data, strict=True)"],
            "        if result:",
        ),
    )
    assert out == BODY.replace("transform(data)", "transform(data, strict=True)")


def test_an_insertion_between_context_lines() -> None:
    out = apply(
        BODY, chunk("        if result:", [], ["            count += 1"], "            log(result)")
    )
    assert "        if result:\n            count += 1\n            log(result)" in out


def test_a_deletion() -> None:
    out = apply(
        BODY, chunk("        if result:", ["            log(result)"], [], "        return result")
    )
    assert "log" not in out


def test_a_chunk_at_the_start_of_the_symbol() -> None:
    out = apply(
        BODY,
        chunk(
            "",
            ["    def process(self, data):"],
            ["    def process(self, data, *, strict=False):"],
            "        result = transform(data)",
        ),
    )
    assert out.startswith("    def process(self, data, *, strict=False):\n")


def test_at_end_pins_the_chunk_to_the_end_of_the_symbol() -> None:
    out = apply(BODY, chunk("", [], ["        log(None)"], "", at_end=True))
    assert out == BODY + "        log(None)\n"


@pytest.mark.parametrize("after", ["", []], ids=["empty string", "empty list"])
def test_an_empty_context_after_is_no_constraint_mid_symbol(after: Any) -> None:
    out = apply(
        BODY,
        chunk(
            "    def process(self, data):",
            ["        result = transform(data)"],
            ["        r = 1"],
            after,
        ),
    )
    assert out == BODY.replace("        result = transform(data)\n", "        r = 1\n")


@pytest.mark.parametrize(
    ("context", "lines"),
    [("x\n", ("x",)), ("\n", ("",)), ("a\nb", ("a", "b")), ("", ()), ([""], ("",))],
)
def test_a_string_context_is_whole_lines(context: Any, lines: tuple[str, ...]) -> None:
    assert chunk(context, [], ["y"], context).context_before == lines
    assert chunk(context, [], ["y"], context).context_after == lines


def test_lines_are_compared_without_trailing_whitespace() -> None:
    body = "def f():   \n    x = 1\t\n    return x\n"
    out = apply(body, chunk("def f():", ["    x = 1"], ["    x = 2"], "    return x"))
    assert out == "def f():   \n    x = 2\n    return x\n"


@pytest.mark.parametrize(
    "context",
    ["    def process(self, data):", ["    def process(self, data):"]],
    ids=["string context", "list context"],
)
def test_context_as_a_string_or_a_list(context: Any) -> None:
    out = apply(
        BODY,
        chunk(
            context,
            ["        result = transform(data)"],
            ["        result = 1"],
            ["        if result:"],
        ),
    )
    assert "result = 1" in out


# -- stage 2: each check alone -----------------------------------------------------------------

CHECKS: dict[str, tuple[Chunk, int]] = {
    "1 context_after differs": (
        chunk(
            "        if result:",
            ["            log(result)"],
            ["            pass"],
            "        return nothing",
        ),
        1,
    ),
    "2 old_lines differ": (
        chunk(
            "    def process(self, data):",
            ["        result = transform(other)"],
            ["        x"],
            "        if result:",
        ),
        2,
    ),
    "3 an insertion without any context": (chunk("", [], ["    x = 1"], ""), 3),
    "4 a deletion that is not exact": (
        chunk("        if result:", ["            log(result)   "], [], "        return result"),
        4,
    ),
    "5 old_lines run past the symbol": (
        chunk("        return result", ["        extra"], ["        x"], ""),
        5,
    ),
    "6 at_end but lines follow": (
        chunk(
            "        if result:", ["            log(result)"], ["            pass"], "", at_end=True
        ),
        6,
    ),
}


@pytest.mark.parametrize(("bad", "check"), CHECKS.values(), ids=CHECKS.keys())
def test_each_check_fails_alone_and_is_named(bad: Chunk, check: int) -> None:
    with pytest.raises(EditError) as err:
        apply(BODY, bad)
    assert err.value.code == "CHUNK_MISMATCH"
    assert err.value.data["check"] == check
    assert f"check {check} failed" in err.value.message


def test_check_7_refuses_line_endings_that_differ_from_the_file() -> None:
    with pytest.raises(EditError) as err:
        make_chunk("a\r\nb", [], ["x"], "", index=2, newline="\n")
    assert (err.value.code, err.value.data["check"], err.value.edit_index) == (
        "CHUNK_MISMATCH",
        7,
        2,
    )
    same = make_chunk("a\r\nb", [], ["x"], "", index=0, newline="\r\n")
    assert same.context_before == ("a", "b")


def test_context_before_not_found_shows_the_symbol_lines() -> None:
    with pytest.raises(EditError) as err:
        apply(BODY, chunk("    def procces(self, data):", [], ["x"], "        result ="))
    assert err.value.data["check"] == 0
    assert "10│    def process(self, data):" in err.value.message


def test_several_candidates_settled_by_the_other_checks() -> None:
    body = "def f():\n    if a:\n        x = 1\n    if a:\n        y = 2\n    return 0\n"
    out = apply(body, chunk("    if a:", ["        y = 2"], ["        y = 3"], "    return 0"))
    assert out == body.replace("y = 2", "y = 3")


def test_a_chunk_that_fits_twice_is_ambiguous_not_guessed() -> None:
    body = "def f():\n    if a:\n        x = 1\n    y()\n    if a:\n        x = 1\n    y()\n"
    with pytest.raises(EditError) as err:
        apply(body, chunk("    if a:", ["        x = 1"], ["        x = 2"], "    y()"))
    assert err.value.code == "AMBIGUOUS_MATCH"
    assert err.value.data["lines"] == [12, 15]


# -- stage 3: several chunks ------------------------------------------------------------------


def test_overlapping_chunks_are_refused() -> None:
    with pytest.raises(EditError) as err:
        apply(
            BODY,
            chunk(
                "        result = transform(data)",
                ["        if result:"],
                ["        if 1:"],
                "            log(result)",
            ),
            chunk(
                "        result = transform(data)",
                ["        if result:", "            log(result)"],
                ["x"],
                "        return result",
            ),
        )
    assert err.value.code == "OVERLAPPING_EDITS"


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 0, 2), (2, 0, 1)])
def test_chunks_at_one_place_land_in_request_order_whatever_it_is(
    order: tuple[int, int, int],
) -> None:
    replace = chunk(
        "        result = transform(data)",
        ["        if result:", "            log(result)"],
        ["        if result is not None:", "            log(result)"],
        "        return result",
    )
    first = chunk(
        "        result = transform(data)", [], ["        count(result)"], "        if result:"
    )
    second = chunk(
        "        result = transform(data)", [], ["        audit(result)"], "        if result:"
    )
    given = [replace, first, second]
    new = apply(BODY, *(given[i] for i in order))
    inserted = [line for i in order if i for line in given[i].new_lines]
    assert new == (
        "    def process(self, data):\n"
        "        result = transform(data)\n"
        + "".join(line + "\n" for line in inserted)
        + "        if result is not None:\n"
        "            log(result)\n"
        "        return result\n"
    )


def big_symbol(lines: int) -> str:
    body = ["    def handle(self, request):"]
    body += [f"        step_{i} = self.step({i}, request)" for i in range(lines)]
    body.append("        return step_0")
    return "\n".join(body) + "\n"


def test_five_and_more_chunks_in_a_symbol_of_over_200_lines() -> None:
    body = big_symbol(240)
    targets = [7, 50, 99, 150, 180, 239]
    chunks = [
        chunk(
            f"        step_{i - 1} = self.step({i - 1}, request)",
            [f"        step_{i} = self.step({i}, request)"],
            [f"        step_{i} = self.step({i}, request, retry=True)"],
            f"        step_{i + 1} = self.step({i + 1}, request)"
            if i < 239
            else "        return step_0",
        )
        for i in targets
    ]
    out = apply(body, *reversed(chunks))  # the order of the request does not matter
    for i in targets:
        assert f"step_{i} = self.step({i}, request, retry=True)" in out
    assert out.count("retry=True") == len(targets)
    assert out.count("\n") == body.count("\n")


# -- the tool on real files --------------------------------------------------------------------

SOURCE = '''"""Module."""
import os


class Worker:
    """Does work."""

    @staticmethod
    def helper():
        return 1

    def process(self, data):
        result = transform(data)
        if result:
            log(result)
        return result

    class Config:
        def process(self):
            return None


def process(data):
    return data
'''


def old_file(path: Path, text: str) -> Path:
    """``path`` written with ``text`` and an old mtime, so that any rewrite would show."""
    path.write_text(text)
    set_old_mtime(path)
    return path


@pytest.fixture
def module(root: Path) -> Path:
    return old_file(root / "work.py", SOURCE)


def test_list_symbols_in_file_order_with_depth(ws: Workspace, module: Path) -> None:
    listed = ws.list_symbols("work.py")
    assert [(s.name_path, s.kind, s.start_line, s.end_line) for s in listed.symbols] == [
        ("Worker", "class", 5, 20),
        ("Worker/helper", "method", 8, 10),
        ("Worker/process", "method", 12, 16),
        ("Worker/Config", "class", 18, 20),
        ("Worker/Config/process", "method", 19, 20),
        ("process", "function", 23, 24),
    ]
    assert [s.name_path for s in ws.list_symbols("work.py", depth=1).symbols] == [
        "Worker",
        "process",
    ]


def test_chunks_edit_only_the_symbol_and_keep_every_other_byte(ws: Workspace, module: Path) -> None:
    result = ws.edit_symbol(
        "work.py",
        "Worker/process",
        chunks=[
            {
                "context_before": "        if result:",
                "old_lines": ["            log(result)"],
                "new_lines": ["            log.info(result)"],
                "context_after": "        return result",
            }
        ],
    )
    assert module.read_text() == SOURCE.replace(
        "            log(result)", "            log.info(result)"
    )
    assert (result.symbol.start_line, result.new_start_line, result.new_end_line) == (12, 12, 16)
    assert result.written


@pytest.mark.parametrize(
    ("symbol", "line"),
    [
        ("Worker/process", 12),
        ("Worker.process", 12),
        ("/process", 23),
        ("process[1]", 19),
        ("Config/process", 19),
    ],
)
def test_name_path_forms(ws: Workspace, module: Path, symbol: str, line: int) -> None:
    result = ws.edit_symbol("work.py", symbol, insert_before="# marked", mode="interactive")
    assert result.symbol.start_line == line


def test_a_position_inside_picks_the_innermost_symbol(ws: Workspace, module: Path) -> None:
    result = ws.edit_symbol(
        "work.py",
        line=20,
        column=13,
        new_body=("        def process(self):\n            return 'config'\n"),
    )
    assert result.symbol.name_path == "Worker/Config/process"
    assert "return 'config'" in module.read_text()


@pytest.mark.parametrize(
    ("column", "expected"),
    [(None, "A"), (1, "A"), (12, "A/f"), (28, "A"), (31, "B"), (45, "B/g"), (80, "B")],
)
def test_the_column_picks_between_definitions_that_share_a_line(
    ws: Workspace, root: Path, column: int | None, expected: str
) -> None:
    line = "class A { f() { return 1; } } class B { g() { return 2; } }"
    (root / "one.ts").write_text("let before = 0;\n" + line + "\n")
    result = ws.edit_symbol("one.ts", line=2, column=column, insert_before="// note")
    assert result.symbol.name_path == expected
    assert (root / "one.ts").read_text().splitlines()[1] == "// note"


def test_a_column_in_the_indentation_still_finds_the_method(ws: Workspace, module: Path) -> None:
    result = ws.edit_symbol("work.py", line=20, column=1, insert_after="")
    assert result.symbol.name_path == "Worker/Config/process"


def test_an_ambiguous_name_lists_every_match(ws: Workspace, module: Path) -> None:
    snap = Snapshot.of(module)
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "process", new_body="x")
    assert err.value.code == "AMBIGUOUS_SYMBOL"
    assert [c["name_path"] for c in err.value.data["candidates"]] == [
        "Worker/process",
        "Worker/Config/process",
        "process",
    ]
    assert Snapshot.of(module) == snap


def test_an_unknown_name_lists_the_closest(ws: Workspace, module: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "Worker/proces", new_body="x")
    assert err.value.code == "SYMBOL_NOT_FOUND"
    assert err.value.data["candidates"][0]["name_path"] == "Worker/process"


def test_new_body_replaces_the_whole_range_decorators_included(ws: Workspace, module: Path) -> None:
    ws.edit_symbol(
        "work.py", "helper", new_body=("    @classmethod\n    def helper(cls):\n        return 2\n")
    )
    assert (
        "    @classmethod\n    def helper(cls):\n        return 2\n\n    def process"
        in module.read_text()
    )
    assert "staticmethod" not in module.read_text()


def test_insert_before_and_after_add_whole_lines(ws: Workspace, module: Path) -> None:
    ws.edit_symbol("work.py", "/process", insert_after="\n\ndef other():\n    return 0")
    ws.edit_symbol("work.py", "/process", insert_before="# the entry point")
    text = module.read_text()
    assert text.endswith(
        "# the entry point\ndef process(data):\n    return data\n\n\ndef other():\n    return 0\n"
    )


def test_a_dedent_out_of_the_class_is_refused_by_the_structure_check(
    ws: Workspace, module: Path
) -> None:
    snap = Snapshot.of(module)
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "helper", new_body="def helper():\n    return 1\n")
    assert err.value.code == "VALIDATION_FAILED"
    sources = {f["source"] for f in err.value.data["findings"]}
    assert sources == {"structure"}
    assert Snapshot.of(module) == snap


def test_a_member_dedented_out_of_the_edited_class_is_refused(ws: Workspace, root: Path) -> None:
    text = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    (root / "a.py").write_text(text)
    with pytest.raises(EditError) as err:
        ws.edit_symbol(
            "a.py",
            "A",
            chunks=[
                {
                    "context_before": "",
                    "old_lines": ["    def g(self):", "        return 2"],
                    "new_lines": ["def g(self):", "    return 2"],
                    "context_after": "",
                }
            ],
        )
    assert err.value.code == "VALIDATION_FAILED"
    assert "A/g would be g: it leaves A" in err.value.message
    assert (root / "a.py").read_text() == text


def test_what_the_structure_check_says_when_a_method_is_replaced_by_no_definition(
    ws: Workspace, module: Path
) -> None:
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "Worker/process", new_body="    process = None\n")
    assert "define nothing directly inside Worker" in err.value.message
    assert "dedent" not in err.value.message
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "helper", new_body="def helper():\n    return 1\n")
    assert "Worker/helper would be helper: it leaves Worker" in err.value.message


def test_one_syntax_error_in_a_new_body_is_one_problem_with_the_compilers_message(
    ws: Workspace, root: Path
) -> None:
    # An unclosed bracket swallows every function after it: tree-sitter's error recovery used
    # to add a finding on line 1, and the structure check one per function that "disappeared"
    # (103 problems for one missing parenthesis).
    text = "".join(f"def f{i}(a, b):\n    x = a + b * {i}\n    return x\n\n" for i in range(100))
    (root / "m.py").write_text(text)
    with pytest.raises(EditError) as err:
        ws.edit_symbol("m.py", "f10", new_body="def f10(a, b):\n    return (None\n")
    assert err.value.code == "VALIDATION_FAILED"
    findings = err.value.data["findings"]
    assert [(f["source"], f["line"], f["column"], f["message"]) for f in findings] == [
        ("python", 42, 12, "SyntaxError: '(' was never closed")
    ]
    assert "introduce 1 problem(s)" in err.value.message
    assert (root / "m.py").read_text() == text


def test_a_syntax_error_in_a_method_skips_the_structure_check(ws: Workspace, module: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.edit_symbol(
            "work.py", "Worker/process", new_body="    def process(self:\n        pass\n"
        )
    findings = err.value.data["findings"]
    assert [f["source"] for f in findings] == ["python"]
    assert findings[0]["line_text"] == "    def process(self:"
    assert findings[0]["message"].startswith("SyntaxError: ")


def test_atomic_when_the_third_chunk_fails(ws: Workspace, module: Path) -> None:
    snap = Snapshot.of(module)
    with pytest.raises(EditError) as err:
        ws.edit_symbol(
            "work.py",
            "Worker/process",
            chunks=[
                {
                    "context_before": "",
                    "old_lines": ["    def process(self, data):"],
                    "new_lines": ["    def process(self, data, x=0):"],
                    "context_after": "        result = transform(data)",
                },
                {
                    "context_before": "        if result:",
                    "old_lines": ["            log(result)"],
                    "new_lines": ["            pass"],
                    "context_after": "        return result",
                },
                {
                    "context_before": "        return result",
                    "old_lines": ["nothing"],
                    "new_lines": [],
                    "context_after": "",
                },
            ],
        )
    assert (err.value.code, err.value.edit_index) == ("CHUNK_MISMATCH", 2)
    assert Snapshot.of(module) == snap


@pytest.mark.parametrize("eol", ["\r\n", "\r", "\n"], ids=["CRLF", "CR", "LF"])
def test_line_endings_are_kept(ws: Workspace, root: Path, eol: str) -> None:
    data = SOURCE.replace("\n", eol).encode()
    (root / "e.py").write_bytes(data)
    ws.edit_symbol(
        "e.py",
        "Worker/process",
        chunks=[
            {
                "context_before": ["        if result:"],
                "old_lines": ["            log(result)"],
                "new_lines": ["            log(result)", "            count(result)"],
                "context_after": ["        return result"],
            }
        ],
    )
    expected = SOURCE.replace(
        "            log(result)\n", "            log(result)\n            count(result)\n"
    )
    assert (root / "e.py").read_bytes() == expected.replace("\n", eol).encode()


def test_in_a_file_that_mixes_endings_lines_a_chunk_leaves_alone_keep_theirs(
    ws: Workspace, root: Path
) -> None:
    data = (
        b"# a\r\n# b\r\n# c\r\n\r\n"
        b"def f():\n    x = 1\r\n    y = 2\n    return x\n"
        b"\r\ndef g():\r\n    pass\r\n"
    )
    (root / "m.py").write_bytes(data)
    ws.edit_symbol(
        "m.py",
        "f",
        chunks=[
            {
                "context_before": "    x = 1",
                "old_lines": ["    y = 2"],
                "new_lines": ["    y = 3", "    z = 4"],
                "context_after": "    return x",
            }
        ],
    )
    # The replaced line keeps its LF; the added line takes the ending of the line before it.
    assert (root / "m.py").read_bytes() == data.replace(b"    y = 2\n", b"    y = 3\n    z = 4\n")


def test_a_file_type_without_symbols_is_an_invalid_request(ws: Workspace, root: Path) -> None:
    (root / "notes.txt").write_text("hello\n")
    with pytest.raises(EditError) as err:
        ws.list_symbols("notes.txt")
    assert err.value.code == "INVALID_REQUEST"


def test_exactly_one_action(ws: Workspace, module: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "helper", new_body="x", insert_before="y")
    assert err.value.code == "INVALID_REQUEST"


@pytest.mark.anyio
async def test_through_the_mcp_server(module: Path, root: Path) -> None:
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        listed = await client.call_tool("list_symbols", {"path": "work.py", "depth": 1})
        assert listed.structured_content is not None
        assert [s["name_path"] for s in listed.structured_content["symbols"]] == [
            "Worker",
            "process",
        ]
        edited = await client.call_tool(
            "edit_symbol",
            {
                "path": "work.py",
                "symbol": "/process",
                "chunks": [
                    {
                        "context_before": "def process(data):",
                        "old_lines": ["    return data"],
                        "new_lines": ["    return list(data)"],
                        "context_after": "",
                    }
                ],
            },
        )
        assert not edited.is_error
        missing = await client.call_tool(
            "edit_symbol", {"path": "work.py", "symbol": "nope", "new_body": "x"}
        )
        assert missing.is_error
    assert module.read_text().endswith("def process(data):\n    return list(data)\n")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_threads_parsing_at_once_get_the_answers_one_thread_gets() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from editguard.symbols import symbols_of

    texts = [
        SOURCE.replace("Worker", f"Worker{i}") + f"\n\ndef extra_{i}():\n    pass\n"
        for i in range(24)
    ]
    alone = [[s.name_path for s in symbols_of("m.py", t)] for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(
            pool.map(lambda t: [s.name_path for s in symbols_of("m.py", t + " ")], texts)
        )
    assert together == alone


def test_mixed_context_formats_in_one_operation() -> None:
    out = apply(
        BODY,
        chunk(
            "    def process(self, data):",
            ["        result = transform(data)"],
            ["        result = transform(data) or {}"],
            ["        if result:"],
        ),
        chunk(
            ["        if result:"],
            ["            log(result)"],
            ["            log.debug(result)"],
            "        return result",
        ),
    )
    assert "transform(data) or {}" in out
    assert "log.debug(result)" in out


def test_twenty_four_chunks_with_long_context_in_one_symbol() -> None:
    body = big_symbol(300)
    chunks = [
        chunk(
            [
                f"        step_{i - 2} = self.step({i - 2}, request)",
                f"        step_{i - 1} = self.step({i - 1}, request)",
            ],
            [f"        step_{i} = self.step({i}, request)"],
            [f"        step_{i} = self.step({i}, request)  # checked"],
            [
                f"        step_{i + 1} = self.step({i + 1}, request)",
                f"        step_{i + 2} = self.step({i + 2}, request)",
            ],
        )
        for i in range(5, 293, 12)
    ]
    assert len(chunks) == 24
    out = apply(body, *chunks)
    assert out.count("# checked") == 24


def test_a_stale_version_is_refused(ws: Workspace, module: Path) -> None:
    version = ws.read_file("work.py").version
    module.write_text(SOURCE + "\n# changed elsewhere\n")
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "helper", insert_before="# x", expected_version=version)
    assert err.value.code == "STALE_VERSION"


def test_a_disk_failure_during_a_symbol_edit_leaves_the_file(
    ws: Workspace, module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    def disk_full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)  # a full disk cannot be produced otherwise
    snap = Snapshot.of(module)
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "helper", insert_before="# x")
    assert err.value.code == "WRITE_FAILED"
    assert Snapshot.of(module) == snap


@pytest.mark.parametrize(
    "action",
    [
        {
            "chunks": [
                {
                    "context_before": "        result = transform(data)",
                    "old_lines": ["        if result:"],
                    "new_lines": ["        if result"],
                    "context_after": "            log(result)",
                }
            ]
        },
        {"new_body": "    def process(self, data):\n        return (data\n"},
        {"insert_after": "    x = = 1"},
    ],
    ids=["chunks", "new_body", "insert_after"],
)
def test_the_syntax_guard_runs_on_edit_symbol_in_every_mode(
    ws: Workspace, module: Path, action: dict[str, Any]
) -> None:
    snap = Snapshot.of(module)
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", "Worker/process", **action)
    assert err.value.code == "VALIDATION_FAILED"
    assert err.value.data["findings"]
    assert Snapshot.of(module) == snap

    checked = ws.edit_symbol("work.py", "Worker/process", mode="verify_only", **action)
    assert not checked.written
    assert not checked.validation.passed
    assert Snapshot.of(module) == snap

    written = ws.edit_symbol("work.py", "Worker/process", mode="interactive", **action)
    assert written.written
    assert not written.validation.passed
    assert written.validation.findings
    assert module.read_text() != SOURCE


@pytest.mark.parametrize(
    ("name", "text", "symbol"),
    [
        ("a.js", "const base = 2, double = (x) => x * base;\nfunction g() {}\n", "double"),
        ("b.ts", "class A { f() { return 1; } } class B { g() { return 2; } }\n", "B"),
        ("c.c", "int y; int h(void) { return y; }\n", "h"),
    ],
    ids=["two declarators", "two classes on a line", "a declaration before it"],
)
def test_new_body_is_refused_where_the_symbol_shares_a_line(
    ws: Workspace, root: Path, name: str, text: str, symbol: str
) -> None:
    path = root / name
    path.write_text(text)
    snap = Snapshot.of(path)
    with pytest.raises(EditError) as err:
        ws.edit_symbol(name, symbol, new_body="// replaced\n")
    assert err.value.code == "INVALID_REQUEST"
    assert "shares a line with other code" in err.value.message
    assert Snapshot.of(path) == snap


def test_new_body_on_a_symbol_alone_on_its_lines_still_works(ws: Workspace, root: Path) -> None:
    (root / "a.js").write_text("const base = 2;\nconst double = (x) => x * base;\n")
    ws.edit_symbol("a.js", "double", new_body="const double = (x) => x * 3;")
    assert (root / "a.js").read_text() == "const base = 2;\nconst double = (x) => x * 3;\n"


def test_a_name_that_holds_dots_resolves_as_list_symbols_prints_it(
    ws: Workspace, root: Path
) -> None:
    (root / "n.cs").write_text("namespace Foo.Bar {\n    class C {}\n}\n")
    assert [s.name_path for s in ws.list_symbols("n.cs").symbols] == ["Foo.Bar", "Foo.Bar/C"]
    assert ws.edit_symbol("n.cs", "Foo.Bar", insert_before="// x").symbol.name_path == "Foo.Bar"
    (root / "w.py").write_text("class Worker:\n    def run(self):\n        pass\n")
    assert ws.edit_symbol("w.py", "Worker.run", insert_after="").symbol.name_path == "Worker/run"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"symbol": "process", "line": 23, "insert_after": "x = 1"}, "not both"),
        ({"insert_after": "x = 1"}, "name path (symbol) or as line"),
    ],
)
def test_the_symbol_is_given_one_way(
    ws: Workspace, module: Path, arguments: dict[str, Any], field: str
) -> None:
    with pytest.raises(EditError) as err:
        ws.edit_symbol("work.py", **arguments)
    assert err.value.code == "INVALID_REQUEST"
    assert field in err.value.message


@pytest.mark.parametrize("depth", [0, -1])
def test_list_symbols_refuses_a_depth_under_one(ws: Workspace, module: Path, depth: int) -> None:
    with pytest.raises(EditError) as err:
        ws.list_symbols("work.py", depth=depth)
    assert err.value.code == "INVALID_REQUEST"
    assert err.value.data["field"] == "depth"


@pytest.mark.parametrize(
    ("action", "lines"),
    [
        ({"new_body": "def f():\n    x = 2\n    return x"}, (1, 3)),
        ({"insert_after": "def g():\n    return 2"}, (3, 4)),
        ({"insert_before": "# note"}, (1, 1)),
    ],
)
def test_the_new_lines_are_reported_in_a_file_without_a_final_newline(
    ws: Workspace, root: Path, action: dict[str, Any], lines: tuple[int, int]
) -> None:
    (root / "f.py").write_text("def f():\n    return 1")
    result = ws.edit_symbol("f.py", "f", **action)
    assert (result.new_start_line, result.new_end_line) == lines
    new = (root / "f.py").read_text().split("\n")
    text = action.get("new_body") or action.get("insert_after") or action["insert_before"]
    assert new[lines[0] - 1 : lines[1]] == text.split("\n")
    assert not (root / "f.py").read_text().endswith("\n")


# -- chunks right the first time: the rules, and errors that say the exact fix -----------------

PARSER = """class Parser:
    def __init__(self):
        self.n = 0

    def parse(self, text):
        text = text.rstrip()
        return self._run(text)

    def _run(self, text):
        return text


def mul(a, b):
    x = a * b

    return x
"""


@pytest.fixture
def parser(root: Path) -> Path:
    return old_file(root / "app.py", PARSER)


def test_the_description_example_works_in_the_middle_of_a_method(
    ws: Workspace, parser: Path
) -> None:
    from editguard.tools import tool_named

    description = tool_named("edit_symbol").description
    example = json.loads(description.rsplit("Example: ", 1)[1])
    example["path"] = "app.py"
    ws.edit_symbol(**example)
    assert parser.read_text() == PARSER.replace("text.rstrip()", "text.strip()")


@pytest.mark.parametrize("after", [None, "", [], ["        return self._run(text)"]])
def test_context_after_may_be_left_out_or_empty_mid_symbol(
    ws: Workspace, parser: Path, after: Any
) -> None:
    one = {
        "context_before": "    def parse(self, text):",
        "old_lines": ["        text = text.rstrip()"],
        "new_lines": ["        text = text.strip()"],
    }
    if after is not None:
        one["context_after"] = after
    ws.edit_symbol("app.py", "Parser/parse", chunks=[one])
    assert parser.read_text() == PARSER.replace("text.rstrip()", "text.strip()")


def test_a_blank_next_line_is_a_blank_context_line(ws: Workspace, parser: Path) -> None:
    chunk = {"old_lines": ["    x = a * b"], "new_lines": ["    x = b * a"], "context_after": [""]}
    ws.edit_symbol("app.py", "mul", chunks=[chunk])
    assert parser.read_text() == PARSER.replace("a * b", "b * a")


def test_blank_context_lines_past_the_symbol_edges_are_not_compared(
    ws: Workspace, parser: Path
) -> None:
    # The blank lines between two methods are outside each method's range.
    first = {
        "context_before": ["", "    def parse(self, text):"],
        "old_lines": ["        text = text.rstrip()"],
        "new_lines": ["        text = text.strip()"],
    }
    last = {
        "old_lines": ["        return self._run(text)"],
        "new_lines": ["        return self._run(text) or None"],
        "context_after": ["", "    def _run(self, text):"][:1],
        "at_end": True,
    }
    ws.edit_symbol("app.py", "Parser/parse", chunks=[first, last])
    assert parser.read_text() == PARSER.replace("text.rstrip()", "text.strip()").replace(
        "self._run(text)\n", "self._run(text) or None\n"
    )


def test_at_end_inserts_at_the_end_of_the_symbol(ws: Workspace, parser: Path) -> None:
    chunk = {"old_lines": [], "new_lines": ["    assert x"], "at_end": True}
    ws.edit_symbol("app.py", "mul", chunks=[chunk])
    assert parser.read_text() == PARSER + "    assert x\n"


def fails(ws: Workspace, path: Path, symbol: str, chunk: dict[str, Any]) -> EditError:
    snap = Snapshot.of(path)
    with pytest.raises(EditError) as err:
        ws.edit_symbol(path.name, symbol, chunks=[chunk])
    assert Snapshot.of(path) == snap
    return err.value


# name: (symbol, chunk as sent, failed check, the file after the chunk with its fix)
FIXABLE: dict[str, tuple[str, dict[str, Any], int, str]] = {
    "context_after skips the blank line that follows": (
        "mul",
        {
            "context_before": "def mul(a, b):",
            "old_lines": ["    x = a * b"],
            "new_lines": ["    x = b * a"],
            "context_after": "    return x",
        },
        1,
        PARSER.replace("a * b", "b * a"),
    ),
    "at_end where lines follow": (
        "Parser/parse",
        {
            "context_before": "    def parse(self, text):",
            "old_lines": ["        text = text.rstrip()"],
            "new_lines": ["        text = text.strip()"],
            "at_end": True,
        },
        6,
        PARSER.replace("text.rstrip()", "text.strip()"),
    ),
    "context_after outside the symbol": (
        "Parser/_run",
        {
            "old_lines": ["        return text"],
            "new_lines": ["        return text or None"],
            "context_after": ["", "", "def mul(a, b):"],
        },
        1,
        PARSER.replace("return text\n", "return text or None\n"),
    ),
    "a deletion with trailing whitespace missing": (
        "Parser/parse",
        {"old_lines": ["        text = text.rstrip()"], "new_lines": []},
        4,
        PARSER.replace("        text = text.rstrip()\n", ""),
    ),
}


@pytest.mark.parametrize(
    ("symbol", "chunk", "check", "after"), FIXABLE.values(), ids=FIXABLE.keys()
)
def test_the_fix_in_the_error_makes_the_chunk_fit(
    ws: Workspace, parser: Path, symbol: str, chunk: dict[str, Any], check: int, after: str
) -> None:
    if check == 4:  # the file has trailing whitespace the chunk lacks
        parser.write_text(PARSER.replace("text.rstrip()", "text.rstrip()  "))
    error = fails(ws, parser, symbol, chunk)
    assert (error.code, error.data["check"]) == ("CHUNK_MISMATCH", check)
    [candidate] = error.data["candidates"]
    fix = candidate["fix"]
    assert json.dumps(fix) in error.message
    ws.edit_symbol("app.py", symbol, chunks=[{**chunk, **fix}])
    assert parser.read_text() == after


def test_at_end_names_the_lines_that_follow(ws: Workspace, parser: Path) -> None:
    error = fails(ws, parser, "Parser/parse", FIXABLE["at_end where lines follow"][1])
    assert '7: "        return self._run(text)"' in error.message


def test_old_lines_that_differ_show_the_file_lines_not_a_fix(ws: Workspace, parser: Path) -> None:
    chunk = {
        "context_before": "    def parse(self, text):",
        "old_lines": ["        text = text.strip()"],
        "new_lines": ["        text = text.lower()"],
    }
    error = fails(ws, parser, "Parser/parse", chunk)
    [candidate] = error.data["candidates"]
    assert (candidate["check"], candidate["found"]) == (2, ["        text = text.rstrip()"])
    assert "fix" not in candidate  # new_lines were written for other old lines
    assert 'line 6 is "        text = text.rstrip()"' in error.message


def test_old_lines_alone_not_in_the_symbol_name_the_closest_line(
    ws: Workspace, parser: Path
) -> None:
    error = fails(ws, parser, "mul", {"old_lines": ["    return y"], "new_lines": ["    return 0"]})
    assert (error.data["check"], error.data["closest_line"]) == (2, 16)
    assert "candidates" not in error.data  # not one candidate per line of the symbol


def test_context_before_outside_the_symbol_names_its_lines(ws: Workspace, parser: Path) -> None:
    chunk = {"context_before": "class Parser:", "old_lines": [], "new_lines": ["    x = 1"]}
    error = fails(ws, parser, "Parser/parse", chunk)
    assert error.data["check"] == 0
    assert "lines 5-7" in error.message


# -- tolerance never lands a chunk in the wrong place ------------------------------------------


STEPS = "def steps():\n    step()\n    log()\n    step()\n    log()\n    done()\n"


def test_a_chunk_whose_lines_repeat_is_refused_until_its_context_is_unique(
    ws: Workspace, root: Path
) -> None:
    path = root / "steps.py"
    path.write_text(STEPS)
    chunk: dict[str, Any] = {"old_lines": ["    log()"], "new_lines": ["    log(1)"]}
    for extra in ({}, {"context_before": "    step()"}, {"context_after": ""}):
        error = fails(ws, path, "steps", {**chunk, **extra})
        assert (error.code, error.data["lines"]) == ("AMBIGUOUS_MATCH", [3, 5])
        assert "2│    step()" in error.message
        assert "4│    step()" in error.message
    ws.edit_symbol("steps.py", "steps", chunks=[{**chunk, "context_after": "    done()"}])
    assert path.read_text() == STEPS.replace("log()\n    done", "log(1)\n    done")


REAL = Path(__file__).resolve().parent.parent / "src" / "editguard" / "core" / "diagnosis.py"


def removed_line(diff: str) -> int:
    """The old line number of the first removed line of a one-hunk diff."""
    head, *rest = diff.split("@@ -", 1)[1].split("\n")
    line = int(head.split(",")[0].split(" ")[0])
    for d in rest:
        if d.startswith("-"):
            return line
        line += 1
    raise AssertionError(diff)


def test_every_line_of_a_real_function_lands_where_it_is_or_is_refused(
    ws: Workspace, root: Path
) -> None:
    """Each line of a real function, sent alone as old_lines (no context), and again with a
    blank context_after, is replaced at its own line when that fits one place, and refused
    when it fits several or none: never written anywhere else."""
    text = REAL.read_text()
    (root / "d.py").write_text(text)
    target = next(s for s in ws.list_symbols("d.py").symbols if s.name_path == "_wrong_count")
    lines = text.split("\n")
    body = lines[target.start_line - 1 : target.end_line]
    landed = 0
    refusals: list[tuple[int, int]] = []
    codes: set[str] = set()
    for n, line in enumerate(body, target.start_line):
        if not line.strip():
            continue
        same = [i for i, other in enumerate(body) if other.rstrip() == line.rstrip()]
        # A blank line after, or the symbol's end (the blank line past it is not compared).
        blank_after = [i for i in same if i + 1 == len(body) or not body[i + 1].strip()]
        for extra, places in (({}, same), ({"context_after": [""]}, blank_after)):
            chunk = {"old_lines": [line], "new_lines": [line + "  # edited"], **extra}
            try:
                result = ws.edit_symbol("d.py", "_wrong_count", chunks=[chunk], dry_run=True)
            except EditError as err:
                codes.add(err.code)
                refusals.append((n, len(places)))
                continue
            landed += 1
            assert removed_line(result.diff) == target.start_line + places[0], (n, extra)
            assert len(places) == 1, (n, extra)
    assert codes == {"AMBIGUOUS_MATCH", "CHUNK_MISMATCH"}
    assert all(count != 1 for _, count in refusals)  # refused only what fits 0 or 2+ places
    assert landed > 20
    assert len(refusals) > 5

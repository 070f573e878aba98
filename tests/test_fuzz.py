"""Bad input gets an error with a code, never a traceback: random arguments for every tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editguard import EditError, Workspace
from editguard.tools import TOOLS

FILES = {
    "a.py": "class A:\n    def f(self):\n        return 1\n",
    "b.txt": "one\ntwo\nthree\n",
    "c.json": '{"k": [1, 2]}\n',
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10),
    st.text(max_size=12),
    st.sampled_from(
        [
            "a.py",
            "b.txt",
            "c.json",
            "../x",
            "A/f",
            "f",
            "",
            "Insert",
            "Delete",
            "Replace",
            "ReplaceSection",
            "strict",
            "interactive",
            "verify_only",
        ]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=10,
)
keys = st.sampled_from(
    [
        "path",
        "edits",
        "old_text",
        "new_text",
        "occurrences",
        "dry_run",
        "expected_version",
        "mode",
        "content",
        "line_edits",
        "search_replace",
        "search",
        "replace",
        "regex",
        "count",
        "flags",
        "start_line",
        "end_line",
        "new_content",
        "line_number",
        "type",
        "text",
        "symbol",
        "line",
        "column",
        "chunks",
        "new_body",
        "insert_before",
        "insert_after",
        "depth",
        "show_diff",
        "context_before",
        "old_lines",
        "new_lines",
        "context_after",
    ]
)


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    tool = draw(st.sampled_from([t.name for t in TOOLS]))
    arguments = draw(st.dictionaries(keys, values, max_size=6))
    if draw(st.booleans()):
        arguments["path"] = draw(st.sampled_from(list(FILES)))
    return tool, arguments


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(calls())
def test_any_arguments_give_a_result_or_an_error_with_a_code(
    tmp_path: Path, call: tuple[str, dict[str, Any]]
) -> None:
    check(tmp_path, call)


def check(folder: Path, call: tuple[str, dict[str, Any]]) -> None:
    """The call returns a result, or raises an EditError with a code; nothing else."""
    for name, text in FILES.items():
        (folder / name).write_text(text)
    ws = Workspace([folder])
    name, arguments = call
    tool = next(t for t in TOOLS if t.name == name)
    error: EditError | None = None
    try:
        result = tool.call(ws.context, arguments)
    except EditError as err:  # any other exception fails the test with its traceback
        error = err
    if error is None:
        assert result.model_dump(mode="json")
    else:
        assert error.code != "INTERNAL_ERROR"
        assert error.to_dict()["message"]


fragments = st.one_of(
    st.sampled_from(
        [
            "class A:",
            "    def f(self):",
            "        return 1",
            "one",
            "two\n",
            "three",
            '"k"',
            "[1, 2]",
            "\n",
            "",
            "    ",
            "return",
            "A/f",
            "f[0]",
            "(",
            "\\1",
            "(a|aa)+$",
            "x\r\ny",
        ]
    ),
    st.text(alphabet='aAo fk\n(){}:[]"\\', max_size=8),
)
lines_ = st.lists(fragments, max_size=3)
small = st.integers(-1, 6)


@st.composite
def shaped_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    path = draw(st.sampled_from(list(FILES)))
    mode = draw(st.sampled_from(["strict", "interactive", "verify_only"]))
    tool = draw(
        st.sampled_from(
            [
                "edit_file",
                "edit_lines",
                "safe_edit",
                "edit_symbol",
                "write_file",
                "list_symbols",
                "read_file",
            ]
        )
    )
    if tool == "edit_file":
        edits = draw(
            st.lists(
                st.fixed_dictionaries(
                    {"old_text": fragments, "new_text": fragments, "occurrences": small}
                ),
                max_size=3,
            )
        )
        return tool, {"path": path, "edits": edits, "mode": mode}
    if tool == "edit_lines":
        edits = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "line_number": small,
                        "type": st.sampled_from(["Insert", "Delete", "Replace", "ReplaceSection"]),
                    },
                    optional={"text": fragments, "old_text": fragments, "end_line": small},
                ),
                max_size=3,
            )
        )
        return tool, {"path": path, "edits": edits, "mode": mode}
    if tool == "safe_edit":
        which = draw(st.sampled_from(["content", "line_edits", "search_replace"]))
        value: Any = draw(fragments)
        if which == "line_edits":
            value = draw(
                st.lists(
                    st.fixed_dictionaries(
                        {"start_line": small, "end_line": small, "new_content": fragments}
                    ),
                    max_size=3,
                )
            )
        elif which == "search_replace":
            value = draw(
                st.fixed_dictionaries(
                    {"search": fragments, "replace": fragments},
                    optional={
                        "regex": st.booleans(),
                        "count": small,
                        "flags": st.sampled_from([0, 2, "I|M", "BAD"]),
                    },
                )
            )
        return tool, {"path": path, which: value, "mode": mode}
    if tool == "edit_symbol":
        action = draw(st.sampled_from(["chunks", "new_body", "insert_before", "insert_after"]))
        value = draw(fragments)
        if action == "chunks":
            value = draw(
                st.lists(
                    st.fixed_dictionaries(
                        {
                            "context_before": st.one_of(fragments, lines_),
                            "old_lines": lines_,
                            "new_lines": lines_,
                            "context_after": st.one_of(fragments, lines_),
                        }
                    ),
                    max_size=3,
                )
            )
        where: dict[str, Any] = draw(
            st.one_of(
                st.fixed_dictionaries({"symbol": fragments}),
                st.fixed_dictionaries({"line": small}, optional={"column": small}),
            )
        )
        return tool, {"path": path, action: value, "mode": mode, **where}
    if tool == "write_file":
        return tool, {"path": path, "content": draw(fragments), "mode": mode}
    if tool == "list_symbols":
        return tool, {"path": path, "depth": draw(st.one_of(st.none(), small))}
    return tool, {"path": path, "start_line": draw(st.one_of(st.none(), small))}


@settings(
    max_examples=800,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(shaped_calls())
def test_well_shaped_random_calls_give_a_result_or_an_error_with_a_code(
    tmp_path: Path, call: tuple[str, dict[str, Any]]
) -> None:
    check(tmp_path, call)

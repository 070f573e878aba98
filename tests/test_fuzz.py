"""Bad input gets an error with a code, never a traceback, a hang or a write: random arguments
for every tool, hostile values among them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from editguard import EditError, Workspace
from editguard.tools import TOOLS

from .conftest import Snapshot, set_old_mtime

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
            # hostile values: surrogates, NUL, a regex bomb, endless recursion, numbers and
            # strings where a model's JSON might put them
            "\ud800",
            "\udce9.txt",
            "\x00",
            "a{100000000}",
            "(?R)",
            "1",
            "true",
            "yes",
            "x" * 5000,
        ]
    ),
    st.sampled_from([10**30, -(10**30), 1.5, float("nan")]),
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


def check(folder: Path, call: tuple[str, dict[str, Any]]) -> EditError | None:
    """The call returns a result, or raises an EditError with a code, within seconds; and when
    it fails, no file changed. Returns the error, if any."""
    for name, text in FILES.items():
        (folder / name).write_text(text)
        set_old_mtime(folder / name)
    before = {p: Snapshot.of(p) for p in folder.iterdir()}
    ws = Workspace([folder], prewarm=False)
    name, arguments = call
    tool = next(t for t in TOOLS if t.name == name)
    error: EditError | None = None
    started = time.monotonic()
    try:
        result = tool.call(ws.context, arguments)
    except EditError as err:  # any other exception fails the test with its traceback
        error = err
    # Not a speed measurement: a call that takes this long on these tiny files has hung.
    assert time.monotonic() - started < 10
    if error is None:
        assert result.model_dump(mode="json")
    else:
        assert error.code != "INTERNAL_ERROR"
        assert error.to_dict()["message"]
        assert {p: Snapshot.of(p) for p in folder.iterdir()} == before
    return error


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


INTEGERS = {"line_number", "end_line", "start_line", "occurrences", "count", "line", "column"}
BOOLEANS = {"dry_run", "regex", "show_diff"}


@st.composite
def mistyped_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A well-shaped call with one integer or boolean field, somewhere in it, given a value of
    another type that a lax parser would coerce: true for 1, "1" for 1, "yes" for true."""
    tool, arguments = draw(shaped_calls())
    if tool in ("edit_file", "edit_lines"):
        arguments.setdefault("dry_run", False)
    holders: list[dict[str, Any]] = [arguments]
    for value in arguments.values():
        items = value if isinstance(value, list) else [value]
        holders += [item for item in items if isinstance(item, dict)]
    typed = [(h, k) for h in holders for k in sorted(h) if k in INTEGERS | BOOLEANS]
    assume(typed)
    holder, key = draw(st.sampled_from(typed))
    if key in INTEGERS:
        holder[key] = draw(st.sampled_from([True, False, "1", "3", 1.0, 2.5, [1]]))
    else:
        holder[key] = draw(st.sampled_from([1, 0, "true", "yes", "false", 1.0, [True]]))
    return tool, arguments


@settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mistyped_calls())
def test_a_field_of_the_wrong_type_is_refused_and_never_writes(
    tmp_path: Path, call: tuple[str, dict[str, Any]]
) -> None:
    error = check(tmp_path, call)  # asserts that a failed call wrote nothing
    assert error is not None
    assert error.code == "INVALID_REQUEST"

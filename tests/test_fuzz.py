"""Bad input gets an error with a code, never a traceback, a hang or a write: random arguments
for every tool, hostile values among them."""

from __future__ import annotations

import copy
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from editguard import EditError, Workspace
from editguard.compat import filesystem as compat
from editguard.tools import TOOLS, tool_named

from .conftest import Snapshot, examples, set_old_mtime

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
    max_examples=examples(600),
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
    max_examples=examples(800),
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
    max_examples=examples(500),
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


# -- every tool, every argument: each field of each tool's arguments, nested ones included,
# given each hostile value in turn, the rest of the call well formed -------------------------

# Well-formed calls of each tool (several where a field lives in a part that only one form of
# the call has): each hostile value replaces one field of one of these. A tool not named here is
# fuzzed from the requests of its scenarios (tests/scenarios/), which every tool has.
OWN_BASES: dict[str, list[dict[str, Any]]] = {
    "read_file": [{"path": "b.txt", "start_line": 1, "end_line": 2}, {"paths": ["b.txt"]}],
    "list_directory": [{"path": "."}],
    "directory_tree": [{"path": ".", "exclude": ["x"]}],
    "find_files": [{"pattern": "*.txt", "path": ".", "exclude": ["x"]}],
    "file_info": [{"path": "b.txt"}],
    "grep": [{"pattern": "one", "path": ".", "glob": "*.txt"}],
    "edit_file": [
        {
            "path": "b.txt",
            "edits": [{"old_text": "two", "new_text": "2", "occurrences": 1}],
            "expected_version": None,
        }
    ],
    "edit_lines": [
        {
            "path": "b.txt",
            "edits": [{"line_number": 2, "type": "Replace", "text": "2", "old_text": "two"}],
        },
        {"path": "b.txt", "edits": [{"line_number": 1, "type": "ReplaceSection", "end_line": 2}]},
    ],
    "safe_edit": [
        {"path": "b.txt", "content": "x\n"},
        {"path": "b.txt", "line_edits": [{"start_line": 1, "end_line": 1, "new_content": "1"}]},
        {"path": "b.txt", "search_replace": {"search": "t(wo)", "replace": r"\1", "regex": True}},
        {"path": "b.txt", "search_replace": {"search": "two", "replace": "2", "flags": "I"}},
    ],
    "write_file": [{"path": "new.txt", "content": "x\n"}],
    "move_file": [{"source": "b.txt", "destination": "moved.txt"}],
    "create_directory": [{"path": "made"}],
    "list_symbols": [{"path": "a.py", "depth": 2}],
    "edit_symbol": [
        {"path": "a.py", "symbol": "A/f", "new_body": "return 2"},
        {"path": "a.py", "line": 2, "column": 5, "insert_before": "# x"},
        {"path": "a.py", "symbol": "A/f", "insert_after": "# x"},
        {
            "path": "a.py",
            "symbol": "A/f",
            "chunks": [
                {
                    "context_before": "    def f(self):",
                    "old_lines": ["        return 1"],
                    "new_lines": ["        return 2"],
                    "context_after": [],
                }
            ],
        },
    ],
    "apply_patch": [
        {
            "patch": "*** Begin Patch\n*** Update File: b.txt\n@@\n-two\n+2\n*** End Patch\n",
            "expected_versions": {"b.txt": "0"},
        }
    ],
    "apply_diff": [
        {
            "diff": "--- a/b.txt\n+++ b/b.txt\n@@ -2 +2 @@\n-two\n+2\n",
            "expected_versions": {"b.txt": "0"},
        }
    ],
    "batch": [{"calls": [{"tool": "read_file", "arguments": {"path": "b.txt"}}]}],
    "history": [{"path": "b.txt", "limit": 5, "change_id": 1}],
    "undo": [{"path": "b.txt", "change_id": 1, "steps": 1}],
}


def _scenario_bases() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for request in sorted((Path(__file__).parent / "scenarios").glob("*/request.json")):
        call = json.loads(request.read_text(encoding="utf-8"))
        out.setdefault(call["tool"], []).append(call["arguments"])
    return out


BASES = {**_scenario_bases(), **OWN_BASES}
COMPAT_BASES: dict[str, list[dict[str, Any]]] = {
    "read_file": [{"path": "b.txt", "head": 1}],
    "read_text_file": [{"path": "b.txt", "tail": 1}],
    "read_media_file": [{"path": "b.txt"}],
    "read_multiple_files": [{"paths": ["b.txt"]}],
    "write_file": [{"path": "new.txt", "content": "x\n"}],
    "edit_file": [{"path": "b.txt", "edits": [{"oldText": "two", "newText": "2"}]}],
    "create_directory": [{"path": "made"}],
    "list_directory": [{"path": "."}],
    "list_directory_with_sizes": [{"path": ".", "sortBy": "size"}],
    "directory_tree": [{"path": ".", "excludePatterns": ["x"]}],
    "move_file": [{"source": "b.txt", "destination": "moved.txt"}],
    "search_files": [{"path": ".", "pattern": "*.txt", "excludePatterns": ["x"]}],
    "get_file_info": [{"path": "b.txt"}],
    "list_allowed_directories": [{}],
}
# The fields batch's calls hold are each tool's own: a batch of one edit_file, walked as one.
BATCHED = ("edit_file", ("calls", 0, "arguments"))

OUTSIDE = "<outside>"  # stands for a folder beside the root (a file inside it, for a path)
HOSTILE_STRINGS: list[str] = [
    "\ud800",  # a lone surrogate: JSON can carry it, UTF-8 cannot
    "a\udcff.txt",
    "\x00",
    "b.txt\x00.py",
    "",
    "\x01\x1b[2J\x7f\r",
    "\n",
    "\u202egnp.txt",
    "\ufeffb.txt",
    "../outside/victim.txt",
    "../../../../../../etc/passwd",
    f"{OUTSIDE}/victim.txt",
    f"{OUTSIDE}/new.txt",
    "/etc/passwd",
    "~/victim.txt",
    "C:\\Windows\\system.ini",
    "-e--pre=sh",
    "--pre=/bin/sh",
    "a{100000000}",
    "(?R)",
    "(a|aa)+$",
    "*" * 300,
    "x" * 70_000,
    # names inside the root that lead out of it or would block a read
    "fifo",
    "vlink",
    "out/victim.txt",
    "out/new.txt",
    "fifo/x",
    # shell and format strings
    f"$(touch {OUTSIDE}/pwned)",
    f"`touch {OUTSIDE}/pwned`",
    "%s%n%x",
    "..",
    "/",
    "../" * 50 + "etc/passwd",
    "a/" * 2100 + "f",  # past PATH_MAX
]
HOSTILE_INTEGERS: list[Any] = [10**30, -(10**30), 2**63, -1, 0, 10**18]
WRONG_TYPES: list[Any] = [[], {}, 1.5, True, None, ["b.txt"], {"path": "b.txt"}]
# Run in the normal run: the values that found bugs, or that reach a different layer.
QUICK_STRINGS = [
    "\ud800",
    "\x00",
    "",
    "\x01\x1b[2J\x7f\r",
    "../outside/victim.txt",
    f"{OUTSIDE}/new.txt",
    "-e--pre=sh",
    "a{100000000}",
    "x" * 70_000,
    "fifo",
    "out/new.txt",
]
QUICK_INTEGERS = [10**30, -1]
QUICK_WRONG = [[], 1.5, {"path": "b.txt"}]

Slot = tuple[tuple[str | int, ...], str]  # where a value goes, and its kind: string, integer


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a schema (its anyOf, with $refs followed)."""
    return [
        defs[option["$ref"].rsplit("/", 1)[1]] if "$ref" in option else option
        for option in schema.get("anyOf", [schema])
    ]


def slots(
    schema: dict[str, Any], defs: dict[str, Any], at: tuple[str | int, ...] = ()
) -> list[Slot]:
    """Every place in a call that holds a string or an integer, nested lists and objects
    included (an item of a list is its first; a free-form object's key and value under a name
    the base call uses)."""
    found: list[Slot] = []
    for name, prop in schema.get("properties", {}).items():
        here = (*at, name)
        for option in _resolve(prop, defs):
            kind = option.get("type")
            if kind in ("string", "integer"):
                found.append((here, kind))
            elif kind == "array":
                for item in _resolve(option.get("items", {}), defs):
                    if item.get("type") in ("string", "integer"):
                        found.append(((*here, 0), item["type"]))
                    elif "properties" in item:
                        found += slots(item, defs, (*here, 0))
            elif "properties" in option:
                found += slots(option, defs, here)
            elif kind == "object" and isinstance(option.get("additionalProperties"), dict):
                found.append(((*here, "<key>"), "string"))
                found.append(((*here, "b.txt"), "string"))
    return list(dict.fromkeys(found))


def _holds(call: Any, path: tuple[str | int, ...]) -> bool:
    for step in path:
        if step == "<key>":
            return isinstance(call, dict) and bool(call)
        if isinstance(step, int):
            if not isinstance(call, list) or len(call) <= step:
                return False
        elif not isinstance(call, dict) or step not in call:
            return False
        call = call[step]
    return True


def _placed(base: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    call = copy.deepcopy(base)
    holder: Any = call
    for step, after in itertools.pairwise(path):
        kind = list if isinstance(after, int) else dict
        if isinstance(step, int):
            if len(holder) <= step:
                holder.append({})
            holder = holder[step]
            continue
        if not isinstance(holder.get(step), kind):  # e.g. a string where a list may be too
            holder[step] = [None] if kind is list else {"b.txt": "0"}
        holder = holder[step]
    last = path[-1]
    if last == "<key>":
        old = next(iter(holder))
        holder[value if isinstance(value, str) else str(value)] = holder.pop(old)
    elif isinstance(last, int) and len(holder) <= last:
        holder.append(value)
    else:
        holder[last] = value
    return call


def _schema_slots(tool: Any) -> list[Slot]:
    schema = tool.arguments.model_json_schema()
    return slots(schema, schema.get("$defs", {}))


def fuzz_calls(quick: bool) -> list[tuple[str, str, dict[str, Any]]]:
    """(front, tool, arguments) for every field of every tool and each hostile value; front is
    'tools' or 'compat' (the --compat filesystem tools)."""
    strings = QUICK_STRINGS if quick else HOSTILE_STRINGS
    integers = QUICK_INTEGERS if quick else HOSTILE_INTEGERS
    wrong = QUICK_WRONG if quick else WRONG_TYPES
    out: list[tuple[str, str, dict[str, Any]]] = []
    fronts = (("tools", TOOLS, BASES), ("compat", compat.TOOLS, COMPAT_BASES))
    for front, tools, bases in fronts:
        for tool in tools:
            found = _schema_slots(tool)
            mine = bases[tool.name]
            if front == "tools" and tool.name == "batch":
                inner, prefix = BATCHED
                mine = [*mine, {"calls": [{"tool": inner, "arguments": BASES[inner][0]}]}]
                found += [((*prefix, *p), k) for p, k in _schema_slots(tool_named(inner))]
            for path, kind in found:
                base = _base_for(mine, path)
                values = [*(strings if kind == "string" else integers), *wrong]
                out += [(front, tool.name, _placed(base, path, v)) for v in values]
    return out


def _base_for(bases: list[dict[str, Any]], path: tuple[str | int, ...]) -> dict[str, Any]:
    """The base call that has the field (else the one that has its parent, else the first)."""
    for wanted in (path, path[:-1]):
        for base in bases:
            if _holds(base, wanted):
                return base
    return bases[0]


def test_the_fuzz_reaches_every_field_of_every_tool() -> None:
    """Each field (nested ones too) is given in some base call, or its parent is: a hostile
    value reaches it rather than failing on a missing sibling. A new field fails this test
    until a base call holds it."""
    fronts = (("tools", TOOLS, BASES), ("compat", compat.TOOLS, COMPAT_BASES))
    unreached = []
    for front, tools, bases in fronts:
        assert set(bases) == {t.name for t in tools}, front
        for tool in tools:
            for path, _ in _schema_slots(tool):
                parent = path[:-1]
                if not any(_holds(b, parent) for b in bases[tool.name]):
                    unreached.append((front, tool.name, path))
    assert not unreached
    assert len(fuzz_calls(quick=True)) > 500


def _arrange(root: Path) -> None:
    """The files, and what a hostile name may point at: a FIFO (a read would block) and
    symbolic links to the folder beside the root and to a file in it."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    os.mkfifo(root / "fifo")
    (root / "out").symlink_to("../outside", target_is_directory=True)
    (root / "vlink").symlink_to("../outside/victim.txt")


def _tree(folder: Path) -> dict[str, Snapshot | str | None]:
    """Each entry below ``folder`` (links not followed): a file's snapshot, a link's target."""
    found: dict[str, Snapshot | str | None] = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(top, name)
            key = str(path.relative_to(folder))
            if path.is_symlink():
                found[key] = os.readlink(path)
            elif path.is_file():
                found[key] = Snapshot.of(path)
            else:
                found[key] = None
    return found


def _hostile(arguments: Any, outside: Path) -> Any:
    """``arguments`` with the stand-in for the outside folder made real."""
    if isinstance(arguments, str):
        return arguments.replace(OUTSIDE, str(outside))
    if isinstance(arguments, list):
        return [_hostile(a, outside) for a in arguments]
    if isinstance(arguments, dict):
        return {_hostile(k, outside): _hostile(v, outside) for k, v in arguments.items()}
    return arguments


def run_fuzz(folder: Path, calls_: list[tuple[str, str, dict[str, Any]]]) -> list[str]:
    """Each call on the same files (put back after a call that changed them); what went
    wrong, a line each: an exception that is not an EditError, INTERNAL_ERROR, an error with no
    message, a failed call that changed a file, or any change outside the root."""
    problems: list[str] = []
    root, outside = folder / "root", folder / "outside"
    _arrange(root)
    outside.mkdir()
    (outside / "victim.txt").write_text("outside\n")
    outside_before = _tree(outside)
    ws = Workspace([root], prewarm=False)
    before = _tree(root)
    for front, name, arguments in calls_:
        tool = (compat.tool_named if front == "compat" else tool_named)(name)
        label = f"{front} {name} {_short(arguments)}"
        try:
            tool.call(ws.context, _hostile(arguments, outside))
        except EditError as err:
            if err.code == "INTERNAL_ERROR" or not err.to_dict()["message"]:
                problems.append(f"{label}: {err.code}: {err.message[:200]}")
            elif _tree(root) != before:
                problems.append(f"{label}: failed with {err.code} but changed the root")
        except Exception as exc:  # noqa: BLE001 - the finding to report
            problems.append(f"{label}: {type(exc).__name__}: {str(exc)[:200]}")
        if _tree(outside) != outside_before:
            problems.append(f"{label}: changed the folder outside the root")
            shutil.rmtree(outside)
            outside.mkdir()
            (outside / "victim.txt").write_text("outside\n")
            outside_before = _tree(outside)
        if _tree(root) != before:
            _arrange(root)
            before = _tree(root)
    return problems


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 160 else text[:150] + f"... ({len(text)} chars)"


# grep's own pattern and glob handling (helper grep's item of issue 22, on its branch): these
# calls answer INTERNAL_ERROR today; the test below them fails until that fix is merged.
GREP_KNOWN = {
    f"tools grep {_short({'pattern': p, 'path': '.', 'glob': '*.txt'})}"
    for p in ("\ud800", "\x00", "b.txt\x00.py")
} | {
    f"tools grep {_short({'pattern': 'one', 'path': '.', 'glob': g})}"
    for g in ("\ud800", "\x00", "b.txt\x00.py")
}


def _findings(problems: list[str]) -> list[str]:
    return [p for p in problems if not any(p.startswith(f"{k}: ") for k in GREP_KNOWN)]


def test_every_field_of_every_tool_takes_hostile_values_with_a_coded_answer(
    tmp_path: Path,
) -> None:
    """Lone surrogates, NUL, control characters, paths out of the root, flag-like and
    regex-bomb strings, 70,000 characters, huge and negative numbers, and values of the wrong
    type, in each field of each tool (and of each --compat filesystem tool): a result or an
    error with a code and a message, never INTERNAL_ERROR or another exception; a failed call
    changes nothing; nothing outside the root ever changes."""
    assert _findings(run_fuzz(tmp_path, fuzz_calls(quick=True))) == []


@pytest.mark.slow
def test_every_field_of_every_tool_takes_every_hostile_value(tmp_path: Path) -> None:
    assert _findings(run_fuzz(tmp_path, fuzz_calls(quick=False))) == []


def test_grep_answers_a_lone_surrogate_or_nul_in_its_pattern_or_glob_with_a_code(
    tmp_path: Path,
) -> None:
    grep_calls = [
        c for c in fuzz_calls(quick=False) if f"{c[0]} {c[1]} {_short(c[2])}" in GREP_KNOWN
    ]
    assert len(grep_calls) == len(GREP_KNOWN)
    assert run_fuzz(tmp_path, grep_calls) == []


def _sample(front: str, every: int) -> list[tuple[str, str, dict[str, Any]]]:
    """Every ``every``-th call of the quick fuzz of one front (tools, compat), leaving out the
    grep calls known to fail."""
    return [
        c
        for c in fuzz_calls(quick=True)
        if c[0] == front and f"{c[0]} {c[1]} {_short(c[2])}" not in GREP_KNOWN
    ][::every]


def _rpc(server: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any] | None:
    assert server.stdin is not None
    assert server.stdout is not None
    # json.dumps writes a lone surrogate as its escape, as a client in another language might
    # (the SDK's own client cannot send one at all).
    server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()
    if "id" not in message:
        return None
    answer: dict[str, Any] = json.loads(server.stdout.readline())
    return answer


@pytest.mark.parametrize(
    ("front", "options"), [("tools", []), ("compat", ["--compat", "filesystem"])]
)
def test_hostile_values_over_mcp_get_a_coded_error_and_the_server_keeps_answering(
    tmp_path: Path, front: str, options: list[str]
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    _arrange(root)
    outside.mkdir()
    (outside / "victim.txt").write_text("outside\n")
    before = _tree(outside)
    server = subprocess.Popen(
        [sys.executable, "-m", "editguard", "serve", *options, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "fuzz", "version": "1"}
        assert _rpc(server, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        _rpc(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        sample = _sample(front, every=6 if front == "tools" else 3)
        for n, (_, name, arguments) in enumerate(sample, 1):
            params = {"name": name, "arguments": _hostile(arguments, outside)}
            answer = _rpc(
                server, {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
            )
            assert answer is not None
            assert "result" in answer, (name, arguments, answer)
            result = answer["result"]
            text = "".join(b.get("text", "") for b in result["content"])
            if result.get("isError"):
                code = text.split(":", 1)[0]
                assert code.isupper(), (name, arguments, text)
                assert code != "INTERNAL_ERROR", (name, arguments, text)
            assert _tree(outside) == before, (name, arguments)
        last = _rpc(server, {"jsonrpc": "2.0", "id": 10**6, "method": "tools/list"})
        assert last is not None
        assert last["result"]["tools"]
    finally:
        assert server.stdin is not None
        assert server.stdout is not None
        server.stdin.close()
        server.wait(timeout=30)
        server.stdout.close()
    assert len(sample) > 90


CLI_CALLS: list[Any] = [
    ("read_file", {"path": "\ud800"}),
    ("read_file", {"path": "b.txt", "head": 10**30}),
    ("write_file", {"path": f"{OUTSIDE}/new.txt", "content": "x"}),
    ("edit_file", {"path": "b.txt", "edits": [{"old_text": "two", "new_text": "\ud800"}]}),
    ("move_file", {"source": "b.txt", "destination": "../outside/victim.txt"}),
    ("find_files", {"pattern": "\x00"}),
    ("apply_patch", {"patch": "*** Begin Patch\n*** Add File: ../outside/x\n+x\n*** End Patch"}),
    ("grep", {"pattern": "\ud800"}),
]


@pytest.mark.parametrize(("name", "arguments"), CLI_CALLS)
def test_hostile_values_through_the_cli_get_a_coded_error(
    tmp_path: Path, name: str, arguments: dict[str, Any]
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    _arrange(root)
    outside.mkdir()
    (outside / "victim.txt").write_text("outside\n")
    before, outside_before = _tree(root), _tree(outside)
    done = subprocess.run(
        [sys.executable, "-m", "editguard", "call", name, json.dumps(_hostile(arguments, outside))],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    answer = json.loads(done.stdout)
    assert "Traceback" not in done.stderr
    if done.returncode:
        assert done.returncode == 1
        assert answer["error"]["code"] != "INTERNAL_ERROR", answer
        assert (_tree(root), _tree(outside)) == (before, outside_before)
    assert _tree(outside) == outside_before

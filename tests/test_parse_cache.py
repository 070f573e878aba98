"""Parse caching: an incremental reparse equals a fresh parse, the content cache computes each
value once, and a file read or written is parsed ahead so that the next edit only reparses."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editguard import Workspace, languages, prewarm
from editguard.core.memo import ContentMemo
from editguard.core.plan import Plan, Replacement
from editguard.languages import parse, parser_for
from editguard.symbols import locate

from .conftest import examples

pieces = st.sampled_from(
    [
        "def f(x):\n",
        "    return x\n",
        "class A:\n",
        "    pass\n",
        "é",
        "→",
        "🙂",
        "(",
        ")",
        "\n",
        "  ",
        "x = [1, 2]\n",
        "# comment\n",
        "'s'",
        "{",
        "}",
        "let a = 1;\n",
    ]
)


@st.composite
def texts_and_plans(draw: st.DrawFn) -> tuple[str, Plan]:
    text = "".join(draw(st.lists(pieces, max_size=20)))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    reps = [
        Replacement(lo, hi, "".join(draw(st.lists(pieces, max_size=3))))
        for lo, hi in zip(cuts[::2], cuts[1::2], strict=False)
    ]
    return text, Plan(tuple(reps))


@settings(max_examples=examples(300))
@given(texts_and_plans(), st.sampled_from([".py", ".ts", ".json"]))
def test_an_incremental_reparse_equals_a_fresh_parse(case: tuple[str, Plan], ext: str) -> None:
    old, plan = case
    new = plan.apply_to_text(old)
    assert len(new) == len(old) + plan.size_change()
    parse(ext, old)  # cached, so that the next call reparses incrementally from it
    languages.TREES.discard(ext, new)  # make sure the incremental path runs
    incremental = parse(ext, new, (old, plan))
    fresh = parser_for(ext).parse(new.encode("utf-8"))
    assert str(incremental.root_node) == str(fresh.root_node)
    assert incremental.root_node.end_byte == len(new.encode("utf-8"))


def test_threads_sharing_one_cached_text_each_get_a_tree_of_their_own() -> None:
    from concurrent.futures import ThreadPoolExecutor

    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(400))
    first = parse(".py", text)
    with ThreadPoolExecutor(max_workers=8) as pool:
        trees = list(pool.map(lambda _: parse(".py", text), range(16)))
    assert len({id(t) for t in [first, *trees]}) == 17
    assert {str(t.root_node) for t in trees} == {str(first.root_node)}


# -- the content cache ---------------------------------------------------------------------


def test_a_value_asked_for_by_many_threads_at_once_is_computed_once() -> None:
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    memo: ContentMemo[object] = ContentMemo(size=4)
    calls = []
    start = threading.Barrier(8)

    def make() -> object:
        calls.append(1)
        time.sleep(0.2)  # long enough for the other threads to arrive while it runs
        return object()

    def ask(_: int) -> object:
        start.wait()
        return memo.get(".ts", "same text", make)

    with ThreadPoolExecutor(max_workers=8) as pool:
        values = list(pool.map(ask, range(8)))
    assert len(calls) == 1
    assert len({id(v) for v in values}) == 1


def test_a_failed_computation_lets_the_next_caller_compute() -> None:
    memo: ContentMemo[int] = ContentMemo(size=4)

    def broken() -> int:
        raise RuntimeError("parser crashed")

    with pytest.raises(RuntimeError):
        memo.get(".ts", "text", broken)
    assert memo.get(".ts", "text", lambda: 7) == 7


def test_the_least_recently_used_text_goes_first_and_long_texts_are_not_kept() -> None:
    memo: ContentMemo[str] = ContentMemo(size=2, limit=10)
    memo.get(".ts", "a", lambda: "A")
    memo.get(".ts", "b", lambda: "B")
    assert memo.peek(".ts", "a") == "A"  # now b is the least recently used
    memo.get(".ts", "c", lambda: "C")
    assert memo.peek(".ts", "b") is None
    assert memo.peek(".ts", "a") == "A"
    assert memo.get(".ts", "x" * 11, lambda: "long") == "long"
    assert memo.peek(".ts", "x" * 11) is None
    assert memo.peek(".js", "a") is None  # the kind is part of the key


class _Colliding(str):
    __slots__ = ()

    def __hash__(self) -> int:
        return 42


def test_two_texts_with_the_same_hash_never_share_a_value() -> None:
    memo: ContentMemo[str] = ContentMemo(size=4)
    first, second = _Colliding("one file"), _Colliding("another file")
    assert hash(first) == hash(second)
    assert memo.get(".ts", first, lambda: "tree of one") == "tree of one"
    assert memo.get(".ts", second, lambda: "tree of another") == "tree of another"
    assert memo.peek(".ts", first) is None  # replaced, never served for the other text
    assert memo.peek(".ts", second) == "tree of another"


# -- parsing ahead -------------------------------------------------------------------------


class _ParseLog:
    """Records, for each tree-sitter parse, whether it started from an old tree (incremental)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        assert prewarm.SHARED.wait_idle(timeout=60)  # nothing left over from earlier tests
        self.calls: list[bool] = []
        real = languages.parser_for

        log = self.calls

        class Spy:
            def __init__(self, parser: Any) -> None:
                self.parser = parser

            def parse(self, source: Any, *tree: Any, **options: Any) -> Any:
                log.append(bool(tree))
                return self.parser.parse(source, *tree, **options)

            def reset(self) -> None:
                self.parser.reset()

        monkeypatch.setattr(languages, "parser_for", lambda ext: Spy(real(ext)))


def _module(n: int, tag: str) -> str:
    return "".join(
        f"export function {tag}{i}(x: number): number {{\n  return x + {i};\n}}\n\n"
        for i in range(n)
    )


def test_reading_a_file_parses_it_ahead_so_the_edit_only_reparses_its_change(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _module(300, "read_ahead")
    (root / "m.ts").write_text(text)
    ws = Workspace([root])
    log = _ParseLog(monkeypatch)
    ws.read_file("m.ts", 1, 5)
    assert prewarm.SHARED.wait_idle(timeout=30)
    assert log.calls == [False]  # one full parse, in the background
    assert locate._CACHE.peek(".ts", text) is not None
    assert languages.TREES.peek(".ts", text) is not None

    ws.edit_file("m.ts", [{"old_text": "return x + 150;", "new_text": "return x + 151;"}])
    assert log.calls == [False, True]  # the edit's guard: one incremental reparse

    result = ws.edit_symbol(
        "m.ts",
        "read_ahead7",
        new_body=("export function read_ahead7(x: number): number {\n  return x * 7;\n}\n"),
    )
    assert result.written
    # Its lookup found the symbols of the written text (parsed ahead after the write), and the
    # guard and the structure check share one more incremental reparse.
    assert log.calls == [False, True, True]


def test_a_file_that_already_had_errors_is_parsed_in_full_once_per_edit(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _module(50, "had_errors") + "let broken = ;\n"
    (root / "e.ts").write_text(text)
    ws = Workspace([root], prewarm=False)
    log = _ParseLog(monkeypatch)
    ws.edit_file("e.ts", [{"old_text": "return x + 20;", "new_text": "return x + 21;"}])
    # The old text in full, the new one from it: before, the new text was parsed in full and,
    # because it had errors, the old one in full again to tell old errors from new ones.
    assert log.calls == [False, True]


def test_a_workspace_without_prewarm_and_the_cli_parse_nothing_ahead(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from editguard.cli import main

    text = _module(20, "not_ahead")
    (root / "n.ts").write_text(text)
    Workspace([root], prewarm=False).read_file("n.ts")
    monkeypatch.chdir(root)
    assert main(["call", "read_file", "--json", '{"path": "n.ts"}']) == 0
    capsys.readouterr()
    assert prewarm.SHARED.wait_idle(timeout=30)
    assert languages.TREES.peek(".ts", text) is None


def test_prewarm_skips_files_without_a_grammar_and_texts_over_the_limit(root: Path) -> None:
    big = "x = 1\n" * (prewarm.WARM_LIMIT // 6 + 1)
    warmer = prewarm.Prewarmer()
    warmer.schedule(str(root / "notes.txt"), "just text\n")
    warmer.schedule(str(root / "big.py"), big)
    assert warmer.wait_idle(timeout=5)
    assert warmer._thread is None  # nothing was worth a thread
    assert languages.TREES.peek(".py", big) is None


def test_a_failure_while_parsing_ahead_is_ignored_and_the_next_text_is_parsed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = prewarm.warm
    seen: list[str] = []

    def flaky(name: str, text: str, *rest: Any, **options: Any) -> bool:
        seen.append(name)
        if name.endswith("bad.ts"):
            raise MemoryError("injected")  # a fault a real parse rarely produces on demand
        return real(name, text, *rest, **options)

    monkeypatch.setattr(prewarm, "warm", flaky)
    warmer = prewarm.Prewarmer()
    good = _module(5, "after_failure")
    warmer.schedule(str(root / "bad.ts"), "let a = 1;\n")
    assert warmer.wait_idle(timeout=30)
    warmer.schedule(str(root / "good.ts"), good)
    assert warmer.wait_idle(timeout=30)
    assert seen == [str(root / "bad.ts"), str(root / "good.ts")]
    assert locate._CACHE.peek(".ts", good) is not None


def test_a_background_parse_over_its_budget_is_abandoned_and_keeps_nothing(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prewarm, "WARM_BUDGET", 0.0)
    warmer = prewarm.Prewarmer()
    text = _module(200, "over_budget")
    warmer.schedule(str(root / "slow.ts"), text)
    assert warmer.wait_idle(timeout=30)
    assert languages.TREES.peek(".ts", text) is None
    assert locate._CACHE.peek(".ts", text) is None
    monkeypatch.setattr(prewarm, "WARM_BUDGET", 30.0)
    warmer.schedule(str(root / "slow.ts"), text)  # the worker lives on, the parser works
    assert warmer.wait_idle(timeout=30)
    assert locate._CACHE.peek(".ts", text) is not None


def test_no_background_parse_starts_while_a_call_runs(root: Path) -> None:
    warmer = prewarm.Prewarmer()
    text = _module(50, "during_a_call")
    with warmer.call():
        warmer.schedule(str(root / "c.ts"), text)
        assert not warmer.wait_idle(timeout=0.1)  # queued, waiting for the call to end
        assert languages.TREES.peek(".ts", text) is None
    assert warmer.wait_idle(timeout=30)
    assert languages.TREES.peek(".ts", text) is not None


def test_a_call_while_another_thread_is_still_importing_prewarm_runs(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the HTTP server met under load: one thread's first read imports editguard.prewarm,
    # and a call on another thread finds the module in sys.modules before SHARED exists.
    half_imported = types.ModuleType("editguard.prewarm")
    monkeypatch.setitem(sys.modules, "editguard.prewarm", half_imported)
    (root / "half.txt").write_text("one\n")
    ws = Workspace([root], prewarm=False)
    ws.safe_edit("half.txt", search_replace={"search": "one", "replace": "two"})
    assert (root / "half.txt").read_text() == "two\n"


def test_a_background_parse_stops_when_a_call_arrives_and_keeps_nothing(root: Path) -> None:
    text = _module(300, "stopped")
    assert prewarm.warm(str(root / "s.ts"), text, stop=lambda: True) is False
    assert languages.TREES.peek(".ts", text) is None
    assert locate._CACHE.peek(".ts", text) is None


def test_after_a_python_edit_the_background_reparses_only_the_change(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "".join(f"def after_write{i}(x):\n    return x + {i}\n\n" for i in range(300))
    (root / "w.py").write_text(text)
    ws = Workspace([root])
    log = _ParseLog(monkeypatch)
    ws.read_file("w.py", 1, 5)
    assert prewarm.SHARED.wait_idle(timeout=30)
    ws.edit_file("w.py", [{"old_text": "return x + 150\n", "new_text": "return x + 151\n"}])
    assert prewarm.SHARED.wait_idle(timeout=30)
    # The read's full parse, then none for the guard (the compiler accepted the edit), and
    # one incremental reparse of the written text in the background.
    assert log.calls == [False, True]


def test_a_call_also_stops_the_symbols_pass_of_a_text_already_parsed(root: Path) -> None:
    text = _module(300, "symbols_stopped")
    languages.parse(".ts", text)
    assert prewarm.warm(str(root / "p.ts"), text, stop=lambda: True) is False
    assert locate._CACHE.peek(".ts", text) is None
    assert prewarm.warm(str(root / "p.ts"), text, stop=lambda: False) is True
    assert locate._CACHE.peek(".ts", text) is not None

"""Incremental reparsing: a tree rebuilt from the old one equals a fresh parse, always."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from editguard.core.plan import Plan, Replacement
from editguard.validate import syntax
from editguard.validate.syntax import _parser, parse

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


@settings(max_examples=300)
@given(texts_and_plans(), st.sampled_from([".py", ".ts", ".json"]))
def test_an_incremental_reparse_equals_a_fresh_parse(case: tuple[str, Plan], ext: str) -> None:
    old, plan = case
    new = plan.apply_to_text(old)
    parse(ext, old)  # cached, so that the next call reparses incrementally from it
    syntax._TREES.pop((ext, hash(new)), None)  # make sure the incremental path runs
    incremental = parse(ext, new, (old, plan))
    fresh = _parser(ext).parse(new.encode("utf-8"))
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

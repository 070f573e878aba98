"""Token economy of ``edit_symbol``'s chunks, on real changes, with a real LLM tokenizer.

The design of the chunk format claims that context chunks cut the tokens of an edit by 80 to 95%
against sending the symbol's whole body. This script measures it. For every function or method
that changed between two consecutive releases in ``tests/corpus/`` (real files of real packages),
it builds the arguments a model would send for the same change, three ways:

(a) ``edit_symbol`` with ``chunks``: one chunk per changed hunk, with the least context that makes
    the chunk fit exactly one place in the symbol (1 to 3 lines before it, none when the change
    starts at the symbol's first line; 1 to 3 lines after it, or ``""`` when the change reaches
    the symbol's end; more only when 3 are not enough);
(b) ``edit_symbol`` with ``new_body``: the symbol's whole new text;
(c) ``write_file`` with the whole file, this change applied.

Each is serialized as the tool call's JSON arguments (``json.dumps``, non-ASCII kept) and counted
with Mistral's Tekken tokenizer (the ``tekken_240718.json`` vocabulary that the ``mistral-common``
package ships: no download, it works offline). The tool's name and the call's framing are the same
for all three and are not counted. Every chunk payload and every ``new_body`` payload is then
applied by ``Workspace.edit_symbol`` to a copy of the old file, and the resulting bytes must be
the old file with exactly that symbol replaced by its new version.

The unit of a "change" is the outermost function or method that holds the hunks (a nested
function belongs to the function around it). Hunks outside functions (imports, class bodies,
module code, whole functions added or removed) are counted but not measured: ``edit_symbol``
with chunks does not apply to them.

    pip install -e '.[bench]'     # mistral-common: the only benchmark-only dependency
    python benchmarks/bench_tokens.py [--quick] [--show-chunks]

Exits 1 if editguard fails to apply a payload or its result differs from the expected file, 2
(saying how to install it) if ``mistral-common`` is missing.
"""

from __future__ import annotations

import argparse
import difflib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from editguard import EditError, Workspace
from editguard.core.document import Document, decode
from editguard.symbols import Symbol, find_symbol, symbols_of

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
TOKENIZER_PACKAGE = "mistral_common"
TOKENIZER_FILE = "tekken_240718.json"  # Mistral NeMo's Tekken vocabulary, shipped in the wheel
FUNCTION_KINDS = frozenset({"function", "method"})
CONTEXT_LINES = 3  # the most context lines a chunk normally carries on each side
CLAIM_LOW, CLAIM_HIGH = 0.80, 0.95  # the chunk format's claim: "Average token reduction: 80-95%"
QUICK_CHANGES = 4
MISSING_TOKENIZER = (
    "bench_tokens.py needs the mistral-common package (Mistral's Tekken tokenizer): "
    "pip install -e '.[bench]' (from the project root, in the venv)"
)
EXIT_MISSING = 2


class Tokenizer:
    """Counts tokens with the Tekken tokenizer from the vocabulary file in ``mistral-common``."""

    def __init__(self) -> None:
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        resource = files(TOKENIZER_PACKAGE) / "data" / TOKENIZER_FILE
        self.path = Path(str(resource))
        if not self.path.is_file():
            raise FileNotFoundError(f"{TOKENIZER_PACKAGE} ships no {TOKENIZER_FILE}")
        self._tekken = Tekkenizer.from_file(self.path)
        self.vocabulary_size = self._tekken.n_words

    def count(self, text: str) -> int:
        """Tokens of ``text`` alone (no BOS/EOS)."""
        return len(self._tekken.encode(text, bos=False, eos=False))


# --------------------------------------------------------------------------------------------
# Finding the changes


@dataclass(frozen=True, slots=True)
class Pair:
    """One file of a corpus pair: its path inside the release, and both versions."""

    project: str
    path: str
    old_bytes: bytes
    old: Document
    new: Document


@dataclass(slots=True)
class Change:
    """One changed function or method and the three payloads for it."""

    pair: Pair
    symbol: Symbol
    ref: str  # how the payload names the symbol (a name path, with an index if needed)
    new_symbol_text: str
    chunks: list[dict[str, Any]]
    expected_text: str  # the old file with only this symbol replaced
    payloads: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    verified: dict[str, str] = field(default_factory=dict)  # kind -> "ok" or the failure

    @property
    def label(self) -> str:
        return f"{self.pair.project}/{self.pair.path.rsplit('/', 1)[-1]}: {self.ref}"

    @property
    def symbol_lines(self) -> int:
        return self.symbol.end_line - self.symbol.start_line + 1

    @property
    def changed_lines(self) -> tuple[int, int]:
        """Lines removed and added by the chunks (without their context)."""
        return (
            sum(len(c["old_lines"]) for c in self.chunks),
            sum(len(c["new_lines"]) for c in self.chunks),
        )


@dataclass(slots=True)
class Census:
    """What the corpus held, including what is not measured."""

    files: int = 0
    hunks: int = 0
    hunks_in_functions: int = 0
    skipped: list[str] = field(default_factory=list)


def corpus_pairs(corpus: Path) -> list[Pair]:
    """Every ``.py`` file of the corpus with both versions, in a stable order."""
    pairs = []
    for old_path in sorted(corpus.rglob("*.py.old")):
        new_path = old_path.with_suffix(".new")
        if not new_path.is_file():
            continue
        relative = old_path.relative_to(corpus).as_posix().removesuffix(".old")
        project, _, path = relative.partition("/")
        old_bytes = old_path.read_bytes()
        pairs.append(
            Pair(project, path, old_bytes, decode(old_bytes), decode(new_path.read_bytes()))
        )
    return pairs


def outermost_functions(symbols: Sequence[Symbol]) -> list[Symbol]:
    """Functions and methods not nested in another function (methods of classes included)."""
    functions = [s for s in symbols if s.kind in FUNCTION_KINDS]
    return [
        s
        for s in functions
        if not any(
            o is not s and o.start <= s.start and s.end <= o.end and o.depth < s.depth
            for o in functions
        )
    ]


def keyed(functions: Sequence[Symbol]) -> dict[tuple[str, int], Symbol]:
    """Functions by (name path, occurrence of that name path), so that redefinitions pair up."""
    seen: dict[str, int] = {}
    out = {}
    for s in functions:
        n = seen.get(s.name_path, 0)
        seen[s.name_path] = n + 1
        out[(s.name_path, n)] = s
    return out


def symbol_ref(symbols: tuple[Symbol, ...], target: Symbol) -> str:
    """The shortest name path that ``find_symbol`` resolves to ``target``."""
    plain = target.name_path
    for ref in (plain, "/" + plain, *(f"{plain}[{i}]" for i in range(len(symbols)))):
        try:
            if find_symbol(symbols, name_path=ref) == target:
                return ref
        except EditError:
            continue
    raise AssertionError(f"no name path resolves to {plain}")


def lines_of(text: str) -> list[str]:
    """Lines of a whole-line text, without their breaks."""
    return text.removesuffix("\n").split("\n") if text else []


def file_hunks(old: str, new: str) -> list[tuple[int, int]]:
    """Old line ranges [a, b) of the hunks between two texts."""
    matcher = difflib.SequenceMatcher(None, lines_of(old), lines_of(new), autojunk=False)
    return [(i1, i2) for tag, i1, i2, _j1, _j2 in matcher.get_opcodes() if tag != "equal"]


def changes_of(pair: Pair, census: Census) -> list[Change]:
    """The changed functions of one file pair."""
    census.files += 1
    old_text, new_text = pair.old.text, pair.new.text
    old_symbols = symbols_of(pair.path, old_text)
    old_functions = keyed(outermost_functions(old_symbols))
    new_functions = keyed(outermost_functions(symbols_of(pair.path, new_text)))

    hunks = file_hunks(old_text, new_text)
    census.hunks += len(hunks)
    for a, b in hunks:
        # A hunk is inside a function if its old lines are, or, for an insertion, if it goes
        # between two of the function's lines.
        for s in old_functions.values():
            first, last = s.start_line - 1, s.end_line
            if (first <= a and b <= last) if a < b else first < a < last:
                census.hunks_in_functions += 1
                break

    changes = []
    for key, old_symbol in old_functions.items():
        new_symbol = new_functions.get(key)
        where = f"{pair.project}/{pair.path}: {key[0]}"
        if new_symbol is None:
            if old_text[old_symbol.start : old_symbol.end] not in new_text:
                census.skipped.append(f"{where}: removed or renamed (not a chunk edit)")
            continue
        body = old_text[old_symbol.start : old_symbol.end]
        new_body = new_text[new_symbol.start : new_symbol.end]
        if body == new_body:
            continue
        expected = old_text[: old_symbol.start] + new_body + old_text[old_symbol.end :]
        changes.append(
            Change(
                pair=pair,
                symbol=old_symbol,
                ref=symbol_ref(old_symbols, old_symbol),
                new_symbol_text=new_body,
                chunks=make_chunks(lines_of(body), lines_of(new_body)),
                expected_text=expected,
            )
        )
    for key in sorted(new_functions.keys() - old_functions.keys()):
        census.skipped.append(f"{pair.project}/{pair.path}: {key[0]}: added (not a chunk edit)")
    return changes


# --------------------------------------------------------------------------------------------
# Building chunks with the least context that fits one place


def _same(actual: Sequence[str], expected: Sequence[str]) -> bool:
    return len(actual) == len(expected) and all(
        a.rstrip() == e.rstrip() for a, e in zip(actual, expected, strict=True)
    )


def places(
    lines: Sequence[str],
    before: Sequence[str],
    old: Sequence[str],
    after: Sequence[str],
    at_end: bool = False,
) -> int:
    """How many places of ``lines`` a chunk fits, by the chunk rules: lines compared after
    rstrip; a missing context constrains nothing; ``at_end`` means the chunk ends where the
    symbol ends."""
    count = 0
    for p in range(len(before), len(lines) - len(old) - len(after) + 1):
        end = p + len(old)
        if (
            _same(lines[p - len(before) : p], before)
            and _same(lines[p:end], old)
            and _same(lines[end : end + len(after)], after)
            and (not at_end or end + len(after) == len(lines))
        ):
            count += 1
    return count


def _context(
    lines: Sequence[str], a: int, b: int, room_before: int, room_after: int, limit: int
) -> tuple[int, int, bool] | None:
    """The fewest context lines (before, after) that make old lines [a, b) fit one place, each
    side at most ``limit`` and inside its room, and whether the chunk needs ``at_end`` (only
    where it reaches the symbol's end); ``None`` if no such choice."""
    low_before = 1 if a > 0 else 0
    low_after = 1 if b < len(lines) else 0
    options = [
        (k, n)
        for k in range(low_before, min(room_before, limit) + 1)
        for n in range(low_after, min(room_after, limit) + 1)
    ]
    # Fewest lines first; between equals, the fewest characters.
    options.sort(key=lambda kn: (kn[0] + kn[1], sum(len(x) for x in lines[a - kn[0] : b + kn[1]])))
    for k, n in options:
        for at_end in (False, True) if b + n == len(lines) else (False,):
            if places(lines, lines[a - k : a], lines[a:b], lines[b : b + n], at_end) == 1:
                return k, n, at_end
    return None


def make_chunks(old: list[str], new: list[str]) -> list[dict[str, Any]]:
    """Chunks that turn ``old`` (a symbol's lines) into ``new``. A chunk's context stays between
    its neighbours' old lines; a hunk that cannot be made unique there is merged with the next
    one (or the previous one, for the last)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    hunks = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    while True:
        chosen: list[tuple[int, int, bool]] = []
        for index, (a, b, _c, _d) in enumerate(hunks):
            room_before = a - (hunks[index - 1][1] if index else 0)
            room_after = (hunks[index + 1][0] if index + 1 < len(hunks) else len(old)) - b
            picked = _context(old, a, b, room_before, room_after, CONTEXT_LINES) or _context(
                old, a, b, room_before, room_after, len(old)
            )
            if picked is None:
                break
            chosen.append(picked)
        else:
            break
        # Merge the hunk that failed with a neighbour, and choose all contexts again. (A lone
        # hunk always fits one place: with the whole symbol as context there is only one.)
        assert len(hunks) > 1
        m = index if index + 1 < len(hunks) else index - 1
        (a1, _b1, c1, _d1), (_a2, b2, _c2, d2) = hunks[m], hunks[m + 1]
        hunks[m : m + 2] = [(a1, b2, c1, d2)]
    chunks = []
    for (a, b, c, d), (k, n, at_end) in zip(hunks, chosen, strict=True):
        chunk: dict[str, Any] = {"old_lines": old[a:b], "new_lines": new[c:d]}
        if k:
            chunk["context_before"] = old[a - k : a]
        if n:
            chunk["context_after"] = old[b : b + n]
        if at_end:
            chunk["at_end"] = True
        chunks.append(chunk)
    return chunks


# --------------------------------------------------------------------------------------------
# Payloads, tokens, verification


def build_payloads(change: Change) -> None:
    """The three tool calls' JSON arguments for ``change``."""
    path = change.pair.path

    def dump(args: dict[str, Any]) -> str:
        return json.dumps(args, ensure_ascii=False)

    change.payloads = {
        "chunks": dump({"path": path, "symbol": change.ref, "chunks": change.chunks}),
        "new_body": dump(
            {
                "path": path,
                "symbol": change.ref,
                "new_body": change.new_symbol_text.removesuffix("\n"),
            }
        ),
        "whole_file": dump({"path": path, "content": change.expected_text}),
    }


def expected_bytes(doc: Document, text: str) -> bytes | None:
    """The bytes of ``text`` written the way ``doc`` was (``None`` for mixed line endings)."""
    if doc.line_endings is not None:
        return None
    return doc.bom + text.replace("\n", doc.newline).encode(doc.encoding)


def verify(change: Change, kind: str) -> str:
    """Apply one payload with ``Workspace.edit_symbol`` to a copy of the old file: "ok", or what
    went wrong."""
    args = json.loads(change.payloads[kind])
    pair = change.pair
    with tempfile.TemporaryDirectory(prefix="bench_tokens_") as folder:
        target = Path(folder, pair.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pair.old_bytes)
        workspace = Workspace([folder])
        try:
            if kind == "chunks":
                workspace.edit_symbol(args["path"], symbol=args["symbol"], chunks=args["chunks"])
            else:
                workspace.edit_symbol(
                    args["path"], symbol=args["symbol"], new_body=args["new_body"]
                )
        except EditError as exc:
            return f"{type(exc).__name__} ({exc.code}): {str(exc).splitlines()[0]}"
        written = target.read_bytes()
    want = expected_bytes(pair.old, change.expected_text)
    if want is not None and written == want:
        return "ok"
    got = decode(written)
    if got.text != change.expected_text:
        diff = difflib.unified_diff(
            change.expected_text.splitlines(),
            got.text.splitlines(),
            "expected",
            "written",
            n=1,
            lineterm="",
        )
        return "wrong result:\n" + "\n".join(list(diff)[:20])
    if want is not None:
        return "same text but different bytes (encoding or line endings)"
    return "ok"


# --------------------------------------------------------------------------------------------
# Report


def reduction(small: int, large: int) -> float:
    return 1 - small / large if large else 0.0


def pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def share(values: Sequence[float], low: float, high: float) -> str:
    inside = sum(low <= v <= high for v in values)
    return f"{inside}/{len(values)} ({100 * inside / len(values):.0f}%)" if values else "0/0"


def print_table(changes: Sequence[Change]) -> None:
    width = max(len(c.label) for c in changes)
    print(
        f"{'change':<{width}} {'lines':>5} {'chunks':>6} {'-/+':>7} "
        f"{'(a) chunks':>10} {'(b) body':>9} {'(c) file':>9} {'a vs b':>7} {'a vs c':>7}  applied"
    )
    for c in changes:
        removed, added = c.changed_lines
        a, b, f = c.tokens["chunks"], c.tokens["new_body"], c.tokens["whole_file"]
        status = "/".join(
            "ok" if c.verified.get(k) == "ok" else ("-" if k not in c.verified else "FAIL")
            for k in ("chunks", "new_body")
        )
        print(
            f"{c.label:<{width}} {c.symbol_lines:>5} {len(c.chunks):>6} "
            f"{f'-{removed}/+{added}':>7} {a:>10,} {b:>9,} {f:>9,} "
            f"{pct(reduction(a, b)):>7} {pct(reduction(a, f)):>7}  {status}"
        )


def print_summary(changes: Sequence[Change]) -> None:
    a = [c.tokens["chunks"] for c in changes]
    b = [c.tokens["new_body"] for c in changes]
    f = [c.tokens["whole_file"] for c in changes]
    vs_body = [reduction(x, y) for x, y in zip(a, b, strict=True)]
    vs_file = [reduction(x, y) for x, y in zip(a, f, strict=True)]
    print()
    print(f"{'':<26} {'(a) chunks':>10} {'(b) new_body':>12} {'(c) whole file':>14}")
    print(
        f"{'median tokens per change':<26} {statistics.median(a):>10,.0f} "
        f"{statistics.median(b):>12,.0f} {statistics.median(f):>14,.0f}"
    )
    print(f"{'total tokens':<26} {sum(a):>10,} {sum(b):>12,} {sum(f):>14,}")
    print()
    print(f"{'reduction of (a)':<34} {'vs (b) new_body':>16} {'vs (c) whole file':>18}")
    print(
        f"{'median over changes':<34} {pct(statistics.median(vs_body)):>16} "
        f"{pct(statistics.median(vs_file)):>18}"
    )
    print(
        f"{'mean over changes':<34} {pct(statistics.mean(vs_body)):>16} "
        f"{pct(statistics.mean(vs_file)):>18}"
    )
    print(
        f"{'on the totals':<34} {pct(reduction(sum(a), sum(b))):>16} "
        f"{pct(reduction(sum(a), sum(f))):>18}"
    )
    print(
        f"{'lowest .. highest':<34} {pct(min(vs_body)) + ' ..' + pct(max(vs_body)):>16} "
        f"{pct(min(vs_file)) + ' ..' + pct(max(vs_file)):>18}"
    )
    print(
        f"{'within the claimed 80-95%':<34} {share(vs_body, CLAIM_LOW, CLAIM_HIGH):>16} "
        f"{share(vs_file, CLAIM_LOW, CLAIM_HIGH):>18}"
    )
    print(
        f"{'below 80%':<34} {share(vs_body, -1.0, CLAIM_LOW - 1e-12):>16} "
        f"{share(vs_file, -1.0, CLAIM_LOW - 1e-12):>18}"
    )
    print(
        f"{'above 95%':<34} {share(vs_body, CLAIM_HIGH + 1e-12, 1.0):>16} "
        f"{share(vs_file, CLAIM_HIGH + 1e-12, 1.0):>18}"
    )
    print()
    print("reduction of (a) vs (b) new_body by the symbol's size (median, on the totals):")
    for low, high in ((1, 19), (20, 49), (50, 10**9)):
        group = [c for c in changes if low <= c.symbol_lines <= high]
        if not group:
            continue
        name = f"{low}+ lines" if high == 10**9 else f"{low}-{high} lines"
        med = statistics.median(reduction(c.tokens["chunks"], c.tokens["new_body"]) for c in group)
        tot = reduction(
            sum(c.tokens["chunks"] for c in group), sum(c.tokens["new_body"] for c in group)
        )
        print(f"  {name:<12} {len(group):>3} changes  median {pct(med)}  totals {pct(tot)}")


def main(argv: list[str] | None = None) -> int:
    """Print the token figures of every real change of the corpus; 1 if an edit failed."""
    parser = argparse.ArgumentParser(description="tokens of chunk edits vs new_body vs whole file")
    parser.add_argument("--quick", action="store_true", help=f"only {QUICK_CHANGES} changes")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder of .old/.new pairs")
    parser.add_argument("--no-verify", action="store_true", help="skip applying the payloads")
    parser.add_argument("--show-chunks", action="store_true", help="print each chunk payload")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    try:
        tokenizer = Tokenizer()
    except ImportError as exc:
        print(f"{MISSING_TOKENIZER}; {exc}", file=sys.stderr)
        return EXIT_MISSING
    loaded = time.perf_counter() - started
    census = Census()
    changes = [c for pair in corpus_pairs(args.corpus) for c in changes_of(pair, census)]
    if args.quick:
        changes = changes[:QUICK_CHANGES]
    if not changes:
        print(f"no changed function in {args.corpus}")
        return 1
    for change in changes:
        build_payloads(change)
        change.tokens = {k: tokenizer.count(v) for k, v in change.payloads.items()}
        if not args.no_verify:
            change.verified = {k: verify(change, k) for k in ("chunks", "new_body")}

    print(
        f"tokenizer: Tekken ({TOKENIZER_PACKAGE} {_version(TOKENIZER_PACKAGE)}, {TOKENIZER_FILE}, "
        f"{tokenizer.path.stat().st_size / 1e6:.1f} MB, {tokenizer.vocabulary_size:,} ids; "
        f"loaded offline in {loaded:.1f} s)"
    )
    print(
        f"corpus: {census.files} Python files, {census.hunks} hunks, "
        f"{census.hunks_in_functions} inside functions or methods -> {len(changes)} changed "
        f"functions/methods measured" + (" (--quick)" if args.quick else "")
    )
    print(
        "tokens of each tool call's JSON arguments; (a) edit_symbol chunks, (b) edit_symbol "
        "new_body, (c) write_file whole file"
    )
    print(
        "claim (the chunk format's design; not a requirement this script enforces): "
        "80-95% fewer tokens than (b)"
    )
    print()
    print_table(changes)
    print_summary(changes)
    for line in census.skipped:
        print(f"not measured: {line}")

    if args.show_chunks:
        for change in changes:
            print(f"\n{change.label}\n{json.dumps(change.chunks, indent=1, ensure_ascii=False)}")

    failures = [(c, k, v) for c in changes for k, v in c.verified.items() if v != "ok"]
    print()
    if args.no_verify:
        print("edits not applied (--no-verify)")
    elif failures:
        for c, kind, why in failures:
            print(f"FAIL: {c.label}: {kind}: {why}")
        return 1
    else:
        print(
            f"all {2 * len(changes)} payloads applied by Workspace.edit_symbol give the expected "
            "file, byte for byte"
        )
    return 0


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package.replace("_", "-"))


if __name__ == "__main__":
    raise SystemExit(main())

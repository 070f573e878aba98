"""Symbol location on real source files of each language, and on small handwritten samples for
the features a real file lacks (decorators, nested classes, overloads, same-named methods).

The files live in ``tests/symbol_samples/<language>/<file name>.txt`` (see its MANIFEST.md for
where each comes from and under which license). Every expected range below was read off the
file by hand: a definition runs from its first decorator, attribute, annotation, template
header, ``export`` keyword or directly-attached comment down to its last line. Where the locator
disagrees with that reading, the case is marked ``xfail(strict=True)`` with the reason, rather
than encoding the locator's answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from editguard import EditError
from editguard.symbols import Symbol, find_symbol, symbols_of

SAMPLES = Path(__file__).parent / "symbol_samples"

# The extension each language folder's files are located as.
EXTENSIONS = {
    "python": ".py",
    "javascript": ".js",
    "typescript": ".ts",
    "tsx": ".tsx",
    "go": ".go",
    "rust": ".rs",
    "java": ".java",
    "c": ".c",
    "cpp": ".cpp",
    "csharp": ".cs",
    "ruby": ".rb",
    "php": ".php",
}

ALL_SAMPLES = sorted(p.relative_to(SAMPLES).as_posix() for p in SAMPLES.glob("*/*.txt"))

# -- locator bugs found by these tests (each xfail below names one) ----------------------------


def bug(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


def read(sample: str) -> str:
    text = (SAMPLES / sample).read_bytes().decode("utf-8")
    assert "\r" not in text, f"{sample} must have LF line breaks"
    return text


def symbols(sample: str) -> tuple[Symbol, ...]:
    language = sample.split("/", 1)[0]
    return symbols_of("sample" + EXTENSIONS[language], read(sample))


def line(sample: str, number: int) -> str:
    return read(sample).split("\n")[number - 1]


# -- expected symbols of each real file ----------------------------------------------------------


class Row(NamedTuple):
    """One expected symbol: name path, kind, first and last line (1-based, inclusive)."""

    name_path: str
    kind: str
    start_line: int
    end_line: int
    bug: str | None = None


REAL: dict[str, list[Row]] = {
    "python/base_user.py.txt": [
        Row("BaseUserManager", "class", 21, 40),
        Row("BaseUserManager/normalize_email", "method", 22, 34),  # @classmethod
        Row("BaseUserManager/aget_by_natural_key", "method", 39, 40),  # async def
        Row("AbstractBaseUser", "class", 43, 167),
        Row("AbstractBaseUser/Meta", "class", 55, 56),
        Row("AbstractBaseUser/save", "method", 61, 68),  # three comment lines above
        Row("AbstractBaseUser/is_anonymous", "method", 80, 86),  # @property
        Row("AbstractBaseUser/check_password", "method", 100, 112),
        Row("AbstractBaseUser/check_password/setter", "function", 106, 110),
        Row("AbstractBaseUser/acheck_password/setter", "function", 117, 121),
        Row("AbstractBaseUser/normalize_username", "method", 161, 167),
    ],
    "javascript/index.js.txt": [
        Row("QuickLRU", "class", 1, 329),  # export default class
        Row("QuickLRU/constructor", "method", 9, 23),
        Row("QuickLRU/__oldCache", "method", 25, 28),  # a getter, its comment above
        Row("QuickLRU/#entriesAscending", "method", 85, 103),  # private generator
        Row("QuickLRU/#set", "method", 68, 78),
        Row("QuickLRU/set", "method", 120, 135),
        Row("QuickLRU/keys", "method", 223, 227),
        Row("QuickLRU/size", "method", 285, 298),
        Row("QuickLRU/toString", "method", 322, 324),
    ],
    "typescript/Notification.ts.txt": [
        Row("NotificationKind", "enum", 8, 17),  # TODO comment + JSDoc + export
        Row("Notification", "class", 19, 223),
        Row("Notification/constructor", "method", 43, 49),  # overload signature, own JSDoc
        Row("Notification/constructor", "method", 64, 66),  # the implementation
        Row("Notification/do", "method", 78, 87),
        Row("Notification/do", "method", 104, 107),
        Row("Notification/accept", "method", 136, 143),
        Row("Notification/toObservable", "method", 150, 181),
        Row("Notification/createNext", "method", 184, 196),
        Row("observeNotification", "function", 225, 238),
    ],
    "tsx/QueryErrorResetBoundary.tsx.txt": [
        Row("QueryErrorResetFunction", "type", 6, 9),
        Row("QueryErrorResetBoundaryValue", "interface", 21, 38),
        Row("createValue", "function", 40, 68),
        Row("useQueryErrorResetBoundary", "function", 74, 103),  # export const ... = () =>
        Row("QueryErrorResetBoundaryFunction", "type", 107, 114),
        Row("QueryErrorResetBoundaryProps", "interface", 116, 125),
        Row("QueryErrorResetBoundary", "function", 127, 169),  # a component returning JSX
    ],
    "go/errors.go.txt": [
        Row("New", "function", 100, 107),
        Row("fundamental", "type", 119, 123),
        Row("fundamental/Error", "method", 125, 125),  # a method is named under its receiver
        Row("fundamental/Format", "method", 127, 141),
        Row("withStack", "type", 155, 158),
        Row("withStack/Unwrap", "method", 162, 163),
        Row("withMessage", "type", 239, 242),
        Row("withMessage/Cause", "method", 245, 245),
        Row("Cause", "function", 264, 288),
        Row("Cause/causer", "type", 276, 278),  # an interface declared inside the function
    ],
    "rust/lib.rs.txt": [
        Row("FnvHasher", "struct", 85, 89),  # doc comment + #[allow]
        Row("FnvHasher", "impl", 91, 97),
        Row("FnvHasher/default", "method", 93, 96),
        Row("FnvHasher/with_key", "method", 100, 105),
        Row("FnvHasher", "impl", 108, 125),
        Row("FnvHasher/write", "method", 114, 124),
        Row("FnvHashMap", "type", 130, 132),
        Row("test", "module", 139, 367),  # #[cfg(test)]
        Row("test/fnv1a", "function", 147, 151),
    ],
    "java/Parser.java.txt": [
        Row("Parser", "class", 26, 304),
        Row("Parser/Parser", "constructor", 40, 43),
        Row("Parser/parse", "method", 45, 70),
        Row("Parser/parse", "method", 72, 82),
        Row("Parser/flushTokens", "method", 117, 126),
        Row("Parser/Rule", "interface", 209, 213),
        Row("Parser/Rule/apply", "method", 212, 212),
        Row("Parser/Grammar/start", "method", 218, 223),
        Row("Parser/Entity", "class", 235, 262),
        Row("Parser/Entity/Entity", "constructor", 249, 253),
        Row("Parser/Entity/toString", "method", 255, 261),  # @Override
        Row("Parser/MatchRule", "class", 265, 301),
        Row("Parser/MatchRule/apply", "method", 278, 298),
        Row("Parser/MatchRule/execute", "method", 300, 300),
    ],
    "c/proc.c.txt": [
        Row("ioprio_get", "function", 25, 28),  # inside #ifdef
        Row("ioprio_set", "function", 30, 33),
        Row("psutil_proc_ioprio_get", "function", 42, 56),
        Row("psutil_proc_ioprio_set", "function", 59, 76),
        Row("psutil_proc_cpu_affinity_get", "function", 86, 149),
        Row("psutil_proc_cpu_affinity_set", "function", 152, 198),
    ],
    "cpp/chrono.h.txt": [
        Row("duration_caster", "class", 24, 102),  # template <typename type>
        Row("duration_caster/load", "method", 33, 59),
        Row("duration_caster/get_duration", "method", 61, 65),
        Row("duration_caster/get_duration", "method", 66, 67),
        Row("duration_caster/get_duration", "method", 69, 74),  # a member template
        Row("duration_caster/cast", "method", 76, 99),
        Row("localtime_thread_safe", "function", 104, 118),
        Row("type_caster", "class", 120, 213),
        Row("type_caster/load", "method", 125, 173),
        Row("type_caster/cast", "method", 175, 211),
        Row("type_caster", "class", 215, 220),
        Row("type_caster", "class", 222, 224),
    ],
    "csharp/Interop.cs.txt": [
        Row("Python.Runtime", "namespace", 10, 222),
        Row("Python.Runtime/DocStringAttribute", "class", 12, 27),  # doc + two attributes
        Row("Python.Runtime/DocStringAttribute/DocStringAttribute", "constructor", 21, 24),
        Row("Python.Runtime/DocStringAttribute/DocString", "property", 26, 26),
        Row("Python.Runtime/TypeFlags", "enum", 57, 98),
        Row("Python.Runtime/Interop", "class", 106, 197),  # a blank line under its comment
        Row("Python.Runtime/Interop/GetThunk", "method", 148, 153),
        Row("Python.Runtime/Interop/GetThunk", "method", 155, 160),
        Row("Python.Runtime/Interop/B_N", "delegate", 162, 163),
        Row("Python.Runtime/ThunkInfo/ThunkInfo", "constructor", 205, 210),
        Row("Python.Runtime/PyMethodDef", "struct", 213, 220),
    ],
    "ruby/cookie.rb.txt": [
        Row("Rack", "module", 9, 203),
        Row("Rack/Session/Cookie", "class", 49, 201),  # its doc block ends in a blank line
        Row("Rack/Session/Cookie/Base64", "class", 50, 97),  # its comment is under `class Cookie`
        Row("Rack/Session/Cookie/Base64/Marshal", "class", 60, 70),
        Row("Rack/Session/Cookie/Base64/Marshal/decode", "method", 66, 69),
        Row("Rack/Session/Cookie/Base64/ZipJSON/decode", "method", 90, 95),
        Row("Rack/Session/Cookie/Identity/encode", "method", 101, 101),
        Row("Rack/Session/Cookie/initialize", "method", 107, 122),  # holds a heredoc
        Row("Rack/Session/Cookie/persistent_session_id!", "method", 149, 153),
        Row("Rack/Session/Cookie/SessionId/initialize", "method", 158, 161),
        Row("Rack/Session/Cookie/secure?", "method", 196, 199),
    ],
    "php/LazyString.php.txt": [
        Row("LazyString", "class", 14, 164),
        Row("LazyString/fromCallable", "method", 23, 50),
        Row("LazyString/isStringable", "method", 73, 79),
        Row("LazyString/resolve", "method", 81, 91),
        Row("LazyString/__toString", "method", 93, 121),
        Row("LazyString/__construct", "method", 135, 137),
        Row("LazyString/getPrettyName", "method", 139, 163),
    ],
}

HANDWRITTEN: dict[str, list[Row]] = {
    "python/handwritten_overloads.py.txt": [
        Row("Reader", "class", 6, 29),
        Row("Reader/Options", "class", 9, 14),
        Row("Reader/Options/copy", "method", 13, 14),
        Row("Reader/read", "method", 16, 17),  # @overload
        Row("Reader/read", "method", 18, 19),
        Row("Reader/read", "method", 20, 21),
        Row("Reader/close", "method", 23, 29),  # comment + two decorators, one multi-line
        Row("Writer/read", "method", 33, 34),
    ],
    "javascript/handwritten_classes.js.txt": [
        Row("parse", "function", 4, 10),
        Row("format", "function", 12, 13),
        Row("Reader/close", "method", 20, 23),
        Row("Writer/read", "method", 27, 29),
        Row("Writer/create", "method", 31, 33),
        Row("makeStore/Store", "class", 37, 41),
        Row("makeStore/Store/read", "method", 38, 40),
    ],
    "typescript/handwritten_decorators.ts.txt": [
        Row("Reader", "class", 4, 18),
        Row("Reader/onClick", "method", 10, 13),
        Row("Storage", "namespace", 20, 26),
        Row("Storage/Writer/read", "method", 22, 24),
        Row("convert", "function", 28, 28),
        Row("convert", "function", 30, 32),
        Row("Shape/area", "method", 35, 35),
    ],
    "tsx/handwritten_components.tsx.txt": [
        Row("Greeting", "class", 5, 10),
        Row("Greeting/render", "method", 7, 9),
        Row("Farewell/render", "method", 13, 15),
        Row("Widgets/Panel/render", "method", 20, 22),
        Row("label", "function", 26, 26),
        Row("label", "function", 28, 30),
    ],
    "rust/handwritten_traits.rs.txt": [
        Row("Point", "struct", 6, 10),
        Row("Point/fmt", "method", 13, 15),
        Row("Shape", "trait", 18, 26),
        Row("Shape/area", "method", 20, 20),
        Row("Shape/double", "method", 22, 25),
        Row("Square/area", "method", 31, 33),
        Row("outer/inner", "module", 37, 41),
        Row("outer/inner/helper", "function", 38, 40),
    ],
    "c/handwritten_structs.c.txt": [
        Row("point", "struct", 6, 10),
        Row("shape", "struct", 12, 19),
        Row("shape/bounds", "struct", 14, 17),
        Row("number", "union", 21, 25),
        Row("color", "enum", 27, 31),
        Row("size_t2", "struct", 33, 36),
        Row("move_point", "function", 38, 45),
    ],
    "cpp/handwritten_nested.cpp.txt": [
        Row("geo", "namespace", 5, 31),
        Row("geo/Shape", "class", 7, 27),
        Row("geo/Shape/Builder", "class", 10, 21),
        Row("geo/Shape/Builder/width", "method", 13, 16),
        Row("geo/Shape/Builder/build", "method", 17, 17),
        Row("geo/Shape/area", "method", 23, 23),  # [[nodiscard]]
        Row("geo/Shape/scale", "method", 24, 24),
        Row("geo/Shape/scale", "method", 25, 25),
        Row("geo/Shape/name", "method", 29, 29),
    ],
    "csharp/handwritten_nested.cs.txt": [
        Row("Samples/Reader", "class", 7, 24),
        Row("Samples/Reader/Read", "method", 9, 11),  # doc + [Obsolete]
        Row("Samples/Reader/Read", "method", 13, 13),
        Row("Samples/Reader/Options", "class", 15, 23),
        Row("Samples/Reader/Options/Strict", "property", 17, 17),
        Row("Samples/Reader/Options/Copy", "method", 19, 22),
        Row("Samples/Writer/Read", "method", 28, 28),
    ],
    "php/handwritten_attributes.php.txt": [
        Row("Reader/read", "method", 9, 9),
        Row("FileReader", "class", 12, 23),  # #[\Attribute(...)]
        Row("FileReader/read", "method", 15, 22),  # doc + #[\ReturnTypeWillChange]
        Row("Reads", "trait", 25, 31),
        Row("Mode", "enum", 33, 41),
        Row("Mode/label", "method", 37, 40),
    ],
}


def _rows(table: dict[str, list[Row]]) -> list[object]:
    return [
        pytest.param(
            sample,
            row,
            id=f"{sample.removesuffix('.txt')}: {row.name_path} {row.start_line}-{row.end_line}",
            marks=[bug(row.bug)] if row.bug else [],
        )
        for sample, rows in table.items()
        for row in rows
    ]


def test_every_real_file_has_an_expectation_table_of_at_least_five_symbols() -> None:
    real = [s for s in ALL_SAMPLES if not s.split("/")[1].startswith("handwritten_")]
    assert sorted(REAL) == real
    assert {s.split("/")[0] for s in real} == set(EXTENSIONS)
    assert all(len(rows) >= 5 for rows in REAL.values())


@pytest.mark.parametrize(("sample", "row"), _rows(REAL) + _rows(HANDWRITTEN))
def test_a_definition_is_found_with_its_name_path_kind_and_line_range(
    sample: str, row: Row
) -> None:
    found = [s for s in symbols(sample) if s.name_path == row.name_path]
    got = [(s.kind, s.start_line, s.end_line) for s in found]
    assert (row.kind, row.start_line, row.end_line) in got, (
        f"{row.name_path}: expected {row.kind} {row.start_line}-{row.end_line}, got {got}"
    )


# -- what holds for every symbol of every sample ------------------------------------------------


@pytest.mark.parametrize("sample", ALL_SAMPLES)
def test_symbols_come_in_file_order_with_parents_before_and_around_their_children(
    sample: str,
) -> None:
    found = symbols(sample)
    assert found, "no symbol at all"
    assert [s.start_line for s in found] == sorted(s.start_line for s in found)
    for symbol in found:
        assert symbol.depth == symbol.name_path.count("/")
        assert symbol.name_path.rsplit("/", 1)[-1] == symbol.name
        if not symbol.depth:
            continue
        owner = symbol.name_path.rsplit("/", 1)[0]
        around = [
            p
            for p in found
            if p.name_path == owner
            and p.start_line <= symbol.start_line <= symbol.end_line <= p.end_line
        ]
        # A method defined outside its type (a Go receiver, C++ `S::f`) is named under that
        # type, which must then exist in the file.
        scoped = symbol.kind == "method" and any(p.name_path == owner for p in found)
        assert around or scoped, symbol.name_path


@pytest.mark.parametrize("sample", ALL_SAMPLES)
def test_a_symbols_offsets_cover_exactly_its_whole_lines(sample: str) -> None:
    text = read(sample)
    starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    for symbol in symbols(sample):
        end = starts[symbol.end_line] if symbol.end_line < len(starts) else len(text)
        assert (symbol.start, symbol.end) == (starts[symbol.start_line - 1], end), symbol.name_path


@pytest.mark.parametrize(
    "sample",
    ALL_SAMPLES,
)
def test_every_listed_name_path_resolves_back_to_its_symbol(sample: str) -> None:
    found = symbols(sample)
    for symbol in found:
        same = [s for s in found if s.name_path == symbol.name_path]
        index = same.index(symbol)
        assert find_symbol(found, name_path=f"/{symbol.name_path}[{index}]") == symbol
        if len(same) == 1:
            assert find_symbol(found, name_path=f"/{symbol.name_path}") == symbol


# -- decorators, attributes, annotations, templates and doc comments belong to the definition --

LEADING: dict[str, tuple[str, str, str]] = {
    # id: (sample, name path, the text the symbol's first line starts with)
    "Python @classmethod": (
        "python/base_user.py.txt",
        "BaseUserManager/normalize_email",
        "@classmethod",
    ),
    "Python @property": ("python/base_user.py.txt", "AbstractBaseUser/is_anonymous", "@property"),
    "Python comment above stacked decorators": (
        "python/handwritten_overloads.py.txt",
        "Reader/close",
        "# Closes the reader.",
    ),
    "JavaScript method decorator": ("javascript/handwritten_classes.js.txt", "Reader/close", "@"),
    "JavaScript JSDoc above an export": (
        "javascript/handwritten_classes.js.txt",
        "parse",
        "/**",
    ),
    "TypeScript multi-line class decorator": (
        "typescript/handwritten_decorators.ts.txt",
        "Reader",
        "@Component({",
    ),
    "TypeScript method decorator": (
        "typescript/handwritten_decorators.ts.txt",
        "Reader/onClick",
        "@HostListener(",
    ),
    "TypeScript JSDoc on an overload signature": (
        "typescript/Notification.ts.txt",
        "Notification/do[0]",
        "/**",
    ),
    "TSX class decorator": ("tsx/handwritten_components.tsx.txt", "Greeting", "@observer"),
    "TSX JSDoc above an exported arrow component": (
        "tsx/QueryErrorResetBoundary.tsx.txt",
        "QueryErrorResetBoundary",
        "/**",
    ),
    "Go doc comment on a function": ("go/errors.go.txt", "New", "// New returns"),
    "Rust doc comment and attribute": ("rust/lib.rs.txt", "FnvHasher[0]", "/// An implementation"),
    "Rust #[cfg(test)] module": ("rust/lib.rs.txt", "test", "#[cfg(test)]"),
    "Rust #[test] function": ("rust/lib.rs.txt", "test/basic_tests", "#[test]"),
    "Rust #[derive] under a doc comment": (
        "rust/handwritten_traits.rs.txt",
        "Point[0]",
        "/// A point.",
    ),
    "Java @Override": ("java/Parser.java.txt", "Entity/toString", "@Override"),
    "Java javadoc": ("java/Parser.java.txt", "Grammar/start", "/**"),
    "C comment above a function": ("c/proc.c.txt", "psutil_proc_ioprio_get", "// Return a"),
    "C++ template header": ("cpp/chrono.h.txt", "duration_caster", "template <typename type>"),
    "C++ comment above a template specialization": (
        "cpp/chrono.h.txt",
        "type_caster[0]",
        "// This is for casting",
    ),
    "C++ [[nodiscard]]": ("cpp/handwritten_nested.cpp.txt", "Shape/area", "[[nodiscard]]"),
    "C# doc comment above attributes": ("csharp/Interop.cs.txt", "DocStringAttribute[0]", "///"),
    "C# attribute on a delegate": (
        "csharp/Interop.cs.txt",
        "B_N",
        "[UnmanagedFunctionPointer(",
    ),
    "C# attribute on a struct": ("csharp/Interop.cs.txt", "PyMethodDef", "[StructLayout("),
    "C# doc, comment and [Flags] on an enum": ("csharp/Interop.cs.txt", "TypeFlags", "///"),
    "Ruby comment above a nested class": (
        "ruby/cookie.rb.txt",
        "Base64/Marshal",
        "# Encode session cookies as Marshaled",
    ),
    "PHP class attribute": ("php/handwritten_attributes.php.txt", "FileReader", "#[\\Attribute("),
    "PHP docblock above a method attribute": (
        "php/handwritten_attributes.php.txt",
        "FileReader/read",
        "/**",
    ),
    "PHP docblock": ("php/LazyString.php.txt", "LazyString/fromCallable", "/**"),
}


@pytest.mark.parametrize(("sample", "name_path", "first"), LEADING.values(), ids=LEADING.keys())
def test_what_stands_above_a_definition_starts_its_range(
    sample: str, name_path: str, first: str
) -> None:
    symbol = find_symbol(symbols(sample), name_path=name_path)
    assert line(sample, symbol.start_line).strip().startswith(first)


# What does NOT belong to the next definition: a comment after code on its line (the trailing
# comment of a class, namespace or impl line, or a statement's multi-line block comment), and
# a Rust inner doc comment (it documents the module).
NOT_LEADING: dict[str, tuple[str, str, str, int, int]] = {
    # id: (file name, text, name path, first line, last line)
    "Java, comment on the class line": (
        "A.java",
        "public class A { // the A\n    void f() {}\n}\n",
        "A/f",
        2,
        2,
    ),
    "C++, comment on the namespace line": (
        "a.cpp",
        "namespace app {  // NOLINT\nint f() { return 1; }\n}\n",
        "app/f",
        2,
        2,
    ),
    "Rust, comment on the impl line": (
        "a.rs",
        "struct S;\nimpl S { // methods\n    fn f(&self) {}\n}\n",
        "S/f",
        3,
        3,
    ),
    "JavaScript, multi-line block comment after a statement": (
        "a.js",
        "const LIMIT = 10; /* max retries,\n                     see RFC */\n"
        "function retry() {\n  return LIMIT;\n}\n",
        "retry",
        3,
        5,
    ),
    "C, multi-line block comment after a declaration": (
        "a.c",
        "int y; /* multi\nline */\nint h(void) { return y; }\n",
        "h",
        3,
        3,
    ),
    "Rust inner doc comment": ("m.rs", "//! Crate docs.\nfn main() {}\n", "main", 2, 2),
    "Go, comment on a type group line": (
        "a.go",
        "package p\n\ntype (  // group\n\tA struct{}\n)\n",
        "A",
        4,
        4,
    ),
}

# A comment right under a class line documents the first member (Python and Ruby put it in
# the class, not next to the member).
UNDER_THE_CLASS_LINE: dict[str, tuple[str, str, str, int]] = {
    "Python": (
        "a.py",
        "class A:\n    # Sum of the parts.\n    def total(self): pass\n",
        "A/total",
        2,
    ),
    "Ruby": ("a.rb", "class A\n  # Sum of the parts.\n  def total\n  end\nend\n", "A/total", 2),
}


@pytest.mark.parametrize("case", NOT_LEADING.values(), ids=NOT_LEADING.keys())
def test_what_does_not_belong_to_a_definition_stays_out_of_its_range(
    case: tuple[str, str, str, int, int],
) -> None:
    name, text, name_path, first, last = case
    symbol = find_symbol(symbols_of(name, text), name_path=name_path)
    assert (symbol.start_line, symbol.end_line) == (first, last)


@pytest.mark.parametrize("case", UNDER_THE_CLASS_LINE.values(), ids=UNDER_THE_CLASS_LINE.keys())
def test_a_comment_under_the_class_line_documents_the_first_member(
    case: tuple[str, str, str, int],
) -> None:
    name, text, name_path, first = case
    assert find_symbol(symbols_of(name, text), name_path=name_path).start_line == first


# Names that are not plain identifiers, each listed once and under its own name.
SPECIAL_NAMES: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "JavaScript class fields holding functions": (
        "a.js",
        "class B {\n  onClick = () => {};\n  static h = function () {};\n  x = 1;\n}\n",
        [("B", "class"), ("B/onClick", "method"), ("B/h", "method")],
    ),
    "TypeScript class fields holding functions": (
        "a.ts",
        "class B {\n  onClick = () => {};\n  private h = async (x: number) => x;\n}\n",
        [("B", "class"), ("B/onClick", "method"), ("B/h", "method")],
    ),
    "Ruby setters and operators": (
        "a.rb",
        "class A\n  def x=(v)\n  end\n  def x\n  end\n  def ==(o)\n  end\n"
        "  def [](i)\n  end\n  def <=>(o)\n  end\nend\n",
        [
            ("A", "class"),
            ("A/x=", "method"),
            ("A/x", "method"),
            ("A/==", "method"),
            ("A/[]", "method"),
            ("A/<=>", "method"),
        ],
    ),
    "C# destructor, operators, indexer": (
        "a.cs",
        "class A {\n  A() {}\n  ~A() {}\n  public static A operator +(A a, A b) => a;\n"
        "  public int this[int i] => i;\n  public static implicit operator int(A a) => 1;\n}\n",
        [
            ("A", "class"),
            ("A/A", "constructor"),
            ("A/~A", "destructor"),
            ("A/operator +", "operator"),
            ("A/this[]", "indexer"),
            ("A/operator int", "operator"),
        ],
    ),
    "Go type alias": ("a.go", "package p\n\ntype ID = string\n", [("ID", "type")]),
    "C++ nested namespace, operators, template scope": (
        "a.cpp",
        "namespace a::b {\nstruct S {};\n}\n"
        "bool a::b::S::operator<(const S&) const { return true; }\n"
        "bool a::b::S::operator<<(int) const { return true; }\n"
        "template<> void V<std::string>::g() {}\n"
        "S::operator int() const { return 1; }\n",
        [
            ("a/b", "namespace"),
            ("a/b/S", "struct"),
            ("a/b/S/operator<", "method"),
            ("a/b/S/operator<<", "method"),
            ("V/g", "method"),
            ("S/operator int", "method"),
        ],
    ),
    "Java compact constructor": (
        "R.java",
        "record R(int x) {\n  R {\n    if (x < 0) throw new E();\n  }\n}\n",
        [("R", "record"), ("R/R", "constructor")],
    ),
}


@pytest.mark.parametrize("case", SPECIAL_NAMES.values(), ids=SPECIAL_NAMES.keys())
def test_special_names_are_listed_under_their_own_name(
    case: tuple[str, str, list[tuple[str, str]]],
) -> None:
    name, text, expected = case
    assert [(s.name_path, s.kind) for s in symbols_of(name, text)] == expected


# -- nested definitions get the nested name path -------------------------------------------------

NESTED: dict[str, tuple[str, str, str]] = {
    # id: (sample, a short name path, the full name path it must resolve to)
    "Python nested class": ("python/base_user.py.txt", "Meta", "AbstractBaseUser/Meta"),
    "Python method of a nested class": (
        "python/handwritten_overloads.py.txt",
        "Options/copy",
        "Reader/Options/copy",
    ),
    "Python function inside a method": (
        "python/base_user.py.txt",
        "check_password/setter",
        "AbstractBaseUser/check_password/setter",
    ),
    "JavaScript class inside a function": (
        "javascript/handwritten_classes.js.txt",
        "Store/read",
        "makeStore/Store/read",
    ),
    "TypeScript class in a namespace": (
        "typescript/handwritten_decorators.ts.txt",
        "Writer/read",
        "Storage/Writer/read",
    ),
    "TSX class in a namespace": (
        "tsx/handwritten_components.tsx.txt",
        "Panel/render",
        "Widgets/Panel/render",
    ),
    "Go interface inside a function": ("go/errors.go.txt", "causer", "Cause/causer"),
    "Rust function in nested modules": (
        "rust/handwritten_traits.rs.txt",
        "helper",
        "outer/inner/helper",
    ),
    "Java method of a nested interface": (
        "java/Parser.java.txt",
        "Grammar/end",
        "Parser/Grammar/end",
    ),
    "Java method of a nested class": (
        "java/Parser.java.txt",
        "MatchRule/execute",
        "Parser/MatchRule/execute",
    ),
    "C struct inside a struct": ("c/handwritten_structs.c.txt", "bounds", "shape/bounds"),
    "C++ method of a nested class": (
        "cpp/handwritten_nested.cpp.txt",
        "Builder/build",
        "geo/Shape/Builder/build",
    ),
    "C# method of a nested class": (
        "csharp/handwritten_nested.cs.txt",
        "Options/Copy",
        "Samples/Reader/Options/Copy",
    ),
    "Ruby method of a class three levels deep": (
        "ruby/cookie.rb.txt",
        "Marshal/decode",
        "Rack/Session/Cookie/Base64/Marshal/decode",
    ),
}


@pytest.mark.parametrize(("sample", "short", "full"), NESTED.values(), ids=NESTED.keys())
def test_a_nested_definition_gets_the_nested_name_path(sample: str, short: str, full: str) -> None:
    found = symbols(sample)
    symbol = find_symbol(found, name_path=short)
    assert symbol.name_path == full
    assert find_symbol(found, name_path=f"/{full}") == symbol
    assert symbol.depth == full.count("/")


# -- overloads and same-named definitions ---------------------------------------------------------


class Same(NamedTuple):
    """A bare name that several definitions share, every match as (name path, first line) in
    file order, and longer name paths or indexes that each pick one: (name path, first line)."""

    sample: str
    name: str
    matches: list[tuple[str, int]]
    picks: list[tuple[str, int]]
    bug: str | None = None


SAME_NAMES: dict[str, Same] = {
    "Python functions nested in two methods": Same(
        "python/base_user.py.txt",
        "setter",
        [
            ("AbstractBaseUser/check_password/setter", 106),
            ("AbstractBaseUser/acheck_password/setter", 117),
        ],
        [("check_password/setter", 106), ("acheck_password/setter", 117), ("setter[1]", 117)],
    ),
    "Python @overload and a same-named method elsewhere": Same(
        "python/handwritten_overloads.py.txt",
        "read",
        [("Reader/read", 16), ("Reader/read", 18), ("Reader/read", 20), ("Writer/read", 33)],
        [("Writer/read", 33), ("Reader/read[2]", 20), ("Reader.read[0]", 16), ("read[3]", 33)],
    ),
    "JavaScript methods of three classes": Same(
        "javascript/handwritten_classes.js.txt",
        "read",
        [("Reader/read", 16), ("Writer/read", 27), ("makeStore/Store/read", 38)],
        [("Writer/read", 27), ("Store/read", 38), ("/Reader/read", 16)],
    ),
    "TypeScript constructor overloads": Same(
        "typescript/Notification.ts.txt",
        "constructor",
        [("Notification/constructor", n) for n in (43, 50, 58, 64)],
        [("Notification/constructor[3]", 64), ("constructor[1]", 50)],
    ),
    "TypeScript method overloads": Same(
        "typescript/Notification.ts.txt",
        "accept",
        [("Notification/accept", n) for n in (109, 119, 128, 136, 144)],
        [("Notification.accept[4]", 144), ("accept[0]", 109)],
    ),
    "TypeScript function overloads": Same(
        "typescript/handwritten_decorators.ts.txt",
        "convert",
        [("convert", 28), ("convert", 29), ("convert", 30)],
        [("convert[2]", 30), ("/convert[1]", 29)],
    ),
    "TypeScript methods of two classes": Same(
        "typescript/handwritten_decorators.ts.txt",
        "read",
        [("Reader/read", 15), ("Storage/Writer/read", 22)],
        [("Reader/read", 15), ("Writer.read", 22)],
    ),
    "TSX render in three components": Same(
        "tsx/handwritten_components.tsx.txt",
        "render",
        [("Greeting/render", 7), ("Farewell/render", 13), ("Widgets/Panel/render", 20)],
        [("Farewell/render", 13), ("Panel/render", 20), ("render[0]", 7)],
    ),
    "TSX function overloads": Same(
        "tsx/handwritten_components.tsx.txt",
        "label",
        [("label", 26), ("label", 27), ("label", 28)],
        [("label[2]", 28)],
    ),
    "Go methods of three types, by index": Same(
        "go/errors.go.txt",
        "Format",
        [("fundamental/Format", 127), ("withStack/Format", 165), ("withMessage/Format", 250)],
        [("Format[1]", 165), ("Format[2]", 250)],
    ),
    "Go methods of three types, by receiver": Same(
        "go/errors.go.txt",
        "Format",
        [("fundamental/Format", 127), ("withStack/Format", 165), ("withMessage/Format", 250)],
        [("withStack/Format", 165), ("withMessage.Format", 250)],
    ),
    "Go function and methods named Cause": Same(
        "go/errors.go.txt",
        "Cause",
        [("withStack/Cause", 160), ("withMessage/Cause", 245), ("Cause", 264)],
        [("Cause[2]", 264)],
    ),
    "Rust struct and its impl blocks": Same(
        "rust/lib.rs.txt",
        "FnvHasher",
        [("FnvHasher", 85), ("FnvHasher", 91), ("FnvHasher", 99), ("FnvHasher", 108)],
        [("FnvHasher[3]", 108), ("FnvHasher/write", 114)],
    ),
    "Rust trait method and its impl": Same(
        "rust/handwritten_traits.rs.txt",
        "area",
        [("Shape/area", 20), ("Square/area", 31)],
        [("Square/area", 31), ("Shape.area", 20)],
    ),
    "Java overloaded methods": Same(
        "java/Parser.java.txt",
        "parse",
        [("Parser/parse", 45), ("Parser/parse", 72)],
        [("parse[1]", 72), ("Parser/parse[0]", 45)],
    ),
    "Java overloaded constructors and their class": Same(
        "java/Parser.java.txt",
        "Entity",
        [("Parser/Entity", 235), ("Parser/Entity/Entity", 244), ("Parser/Entity/Entity", 249)],
        [("Parser/Entity/Entity[1]", 249)],
    ),
    "Java interface method and its implementation": Same(
        "java/Parser.java.txt",
        "apply",
        [("Parser/Rule/apply", 212), ("Parser/MatchRule/apply", 278)],
        [("Rule/apply", 212), ("MatchRule.apply", 278)],
    ),
    "C++ member function overloads": Same(
        "cpp/chrono.h.txt",
        "get_duration",
        [("duration_caster/get_duration", n) for n in (61, 66, 69)],
        [("duration_caster/get_duration[2]", 69)],
    ),
    "C++ methods of template specializations": Same(
        "cpp/chrono.h.txt",
        "load",
        [("duration_caster/load", 33), ("type_caster/load", 125)],
        [("type_caster/load", 125), ("duration_caster.load", 33)],
    ),
    "C++ overloads of one method": Same(
        "cpp/handwritten_nested.cpp.txt",
        "scale",
        [("geo/Shape/scale", 24), ("geo/Shape/scale", 25)],
        [("Shape/scale[1]", 25)],
    ),
    "C# overloaded static methods": Same(
        "csharp/Interop.cs.txt",
        "GetThunk",
        [("Python.Runtime/Interop/GetThunk", 148), ("Python.Runtime/Interop/GetThunk", 155)],
        [("Interop/GetThunk[1]", 155), ("GetThunk[0]", 148)],
    ),
    "C# overloads and a same-named method elsewhere": Same(
        "csharp/handwritten_nested.cs.txt",
        "Read",
        [("Samples/Reader/Read", 9), ("Samples/Reader/Read", 13), ("Samples/Writer/Read", 28)],
        [("Writer/Read", 28), ("Reader/Read[1]", 13), ("Samples.Reader.Read[0]", 9)],
    ),
    "C struct and its uses": Same(
        "c/handwritten_structs.c.txt",
        "point",
        [("point", 6)],
        [("point", 6)],
    ),
    "Ruby methods of five classes": Same(
        "ruby/cookie.rb.txt",
        "encode",
        [
            ("Rack/Session/Cookie/Base64/encode", 52),
            ("Rack/Session/Cookie/Base64/Marshal/encode", 62),
            ("Rack/Session/Cookie/Base64/JSON/encode", 75),
            ("Rack/Session/Cookie/Base64/ZipJSON/encode", 86),
            ("Rack/Session/Cookie/Identity/encode", 101),
        ],
        [("Marshal/encode", 62), ("Identity.encode", 101), ("Base64/encode", 52)],
    ),
    "Ruby initialize of a class and its nested class": Same(
        "ruby/cookie.rb.txt",
        "initialize",
        [
            ("Rack/Session/Cookie/initialize", 107),
            ("Rack/Session/Cookie/SessionId/initialize", 158),
        ],
        [("Cookie/initialize", 107), ("SessionId/initialize", 158)],
    ),
    "PHP method of an interface, a class and a trait": Same(
        "php/handwritten_attributes.php.txt",
        "read",
        [("Reader/read", 9), ("FileReader/read", 15), ("Reads/read", 27)],
        [("Reads/read", 27), ("FileReader.read", 15), ("/Reader/read", 9)],
    ),
}


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=i, marks=[bug(c.bug)] if c.bug else []) for i, c in SAME_NAMES.items()],
)
def test_a_shared_name_is_ambiguous_and_longer_paths_or_indexes_pick_one(case: Same) -> None:
    found = symbols(case.sample)
    if len(case.matches) > 1:
        with pytest.raises(EditError) as caught:
            find_symbol(found, name_path=case.name)
        assert caught.value.code == "AMBIGUOUS_SYMBOL"
        listed = [(c["name_path"], c["start_line"]) for c in caught.value.data["candidates"]]
        assert listed == case.matches
    else:
        assert [(s.name_path, s.start_line) for s in found if s.name == case.name] == case.matches
    for name_path, start_line in case.picks:
        picked = find_symbol(found, name_path=name_path)
        assert picked.start_line == start_line, name_path


def test_an_index_past_the_matches_is_not_found_and_lists_them() -> None:
    found = symbols("java/Parser.java.txt")
    with pytest.raises(EditError) as caught:
        find_symbol(found, name_path="parse[2]")
    assert caught.value.code == "SYMBOL_NOT_FOUND"
    assert [c["start_line"] for c in caught.value.data["candidates"]] == [45, 72]


def test_an_unknown_name_is_not_found_and_the_closest_names_are_listed() -> None:
    found = symbols("ruby/cookie.rb.txt")
    with pytest.raises(EditError) as caught:
        find_symbol(found, name_path="Cookie/generate_hmak")
    assert caught.value.code == "SYMBOL_NOT_FOUND"
    names = [c["name_path"] for c in caught.value.data["candidates"]]
    assert "Rack/Session/Cookie/generate_hmac" in names


# -- by position: the innermost definition around a line -----------------------------------------

POSITIONS: dict[str, tuple[str, int, str, int]] = {
    # id: (sample, line, the innermost symbol's name path, its first line)
    "Python nested function": (
        "python/base_user.py.txt",
        108,
        "AbstractBaseUser/check_password/setter",
        106,
    ),
    "Python docstring of a method": (
        "python/base_user.py.txt",
        103,
        "AbstractBaseUser/check_password",
        100,
    ),
    "Python decorator line": ("python/base_user.py.txt", 80, "AbstractBaseUser/is_anonymous", 80),
    "Python class body between methods": ("python/base_user.py.txt", 53, "AbstractBaseUser", 43),
    "JavaScript private method": ("javascript/index.js.txt", 70, "QuickLRU/#set", 68),
    "TypeScript overload implementation": (
        "typescript/Notification.ts.txt",
        106,
        "Notification/do",
        104,
    ),
    "TypeScript JSDoc of an overload": (
        "typescript/Notification.ts.txt",
        121,
        "Notification/accept",
        119,
    ),
    "TSX JSX inside a component": (
        "tsx/QueryErrorResetBoundary.tsx.txt",
        166,
        "QueryErrorResetBoundary",
        127,
    ),
    "Go interface inside a function": ("go/errors.go.txt", 277, "Cause/causer", 276),
    "Go method body": ("go/errors.go.txt", 170, "withStack/Format", 165),
    "Rust method in an impl": ("rust/lib.rs.txt", 120, "FnvHasher/write", 114),
    "Rust attribute line": ("rust/lib.rs.txt", 161, "test/basic_tests", 161),
    "Java method of a nested class": ("java/Parser.java.txt", 290, "Parser/MatchRule/apply", 278),
    "Java annotation line": ("java/Parser.java.txt", 255, "Parser/Entity/toString", 255),
    "C function inside #ifdef": ("c/proc.c.txt", 100, "psutil_proc_cpu_affinity_get", 86),
    "C++ method of a template class": ("cpp/chrono.h.txt", 90, "duration_caster/cast", 76),
    "C# delegate's attribute": ("csharp/Interop.cs.txt", 165, "Python.Runtime/Interop/BB_N", 165),
    "C# constructor": ("csharp/Interop.cs.txt", 208, "Python.Runtime/ThunkInfo/ThunkInfo", 205),
    "Ruby method three classes deep": (
        "ruby/cookie.rb.txt",
        68,
        "Rack/Session/Cookie/Base64/Marshal/decode",
        66,
    ),
    "PHP closure inside a method": ("php/LazyString.php.txt", 41, "LazyString/fromCallable", 23),
}


@pytest.mark.parametrize(
    ("sample", "line_number", "name_path", "start_line"), POSITIONS.values(), ids=POSITIONS.keys()
)
def test_a_position_resolves_to_the_innermost_definition_around_it(
    sample: str, line_number: int, name_path: str, start_line: int
) -> None:
    symbol = find_symbol(symbols(sample), line=line_number, column=5)
    assert (symbol.name_path, symbol.start_line) == (name_path, start_line)


def test_a_position_outside_every_definition_is_not_found() -> None:
    with pytest.raises(EditError) as caught:
        find_symbol(symbols("python/base_user.py.txt"), line=6, column=1)
    assert caught.value.code == "SYMBOL_NOT_FOUND"
    assert caught.value.data["candidates"]


def test_a_position_in_a_method_with_a_computed_name_resolves_to_that_method() -> None:
    symbol = find_symbol(symbols("javascript/index.js.txt"), line=240, column=5)
    assert (symbol.start_line, symbol.end_line) == (235, 253)


def test_only_struct_definitions_are_struct_symbols() -> None:
    structs = [s.name_path for s in symbols("c/handwritten_structs.c.txt") if s.kind == "struct"]
    assert structs == ["point", "shape", "shape/bounds", "size_t2"]  # typedef struct {...} too


def test_a_header_of_cpp_is_read_as_cpp_and_a_header_of_c_as_c(tmp_path: Path) -> None:
    from editguard import Workspace

    cpp = "namespace ui {\nclass Widget {\n public:\n  void draw() {}\n};\n}\n"
    assert [(s.name_path, s.kind) for s in symbols_of("w.h", cpp)] == [
        ("ui", "namespace"),
        ("ui/Widget", "class"),
        ("ui/Widget/draw", "method"),
    ]
    # `new` and `class` are plain identifiers in C: read as C++, this header would be broken.
    c = "struct s {\n  int new;\n  int class;\n};\nint add(int a, int b) { return a + b; }\n"
    assert [(s.name_path, s.kind) for s in symbols_of("c.h", c)] == [
        ("s", "struct"),
        ("add", "function"),
    ]
    (tmp_path / "c.h").write_text(c)
    (tmp_path / "w.h").write_text(cpp)
    ws = Workspace([tmp_path], prewarm=False)
    assert ws.edit_symbol("c.h", "add", new_body="int add(int a, int b) { return b + a; }\n")
    with pytest.raises(EditError) as err:
        ws.edit_symbol("w.h", "ui/Widget/draw", new_body="  void draw() { template }\n")
    assert err.value.code == "VALIDATION_FAILED"

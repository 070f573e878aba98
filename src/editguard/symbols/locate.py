"""Finding definitions in a parse tree: kind, name path and whole-line range of each."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate
from typing import Any

from editguard.core.document import LF
from editguard.core.memo import ContentMemo
from editguard.core.plan import Plan
from editguard.errors import InvalidRequest
from editguard.languages import (
    LANGUAGES,
    ParseTimeout,
    grammar_for,
    language,
    language_of,
    parse,
)

# language -> node type -> kind. A node of such a type is a definition.
_DEFINITIONS: dict[str, dict[str, str]] = {
    "python": {"function_definition": "function", "class_definition": "class"},
    "javascript": {
        "function_declaration": "function",
        "generator_function_declaration": "function",
        "class_declaration": "class",
        "method_definition": "method",
    },
    "go": {
        "function_declaration": "function",
        "method_declaration": "method",
        "type_spec": "type",
        "type_alias": "type",
    },
    "rust": {
        "function_item": "function",
        "struct_item": "struct",
        "enum_item": "enum",
        "trait_item": "trait",
        "impl_item": "impl",
        "mod_item": "module",
        "union_item": "union",
        "type_item": "type",
        "macro_definition": "macro",
        "function_signature_item": "function",
    },
    "java": {
        "class_declaration": "class",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "record",
        "annotation_type_declaration": "annotation",
        "method_declaration": "method",
        "constructor_declaration": "constructor",
        "compact_constructor_declaration": "constructor",
    },
    "c": {
        "function_definition": "function",
        "struct_specifier": "struct",
        "enum_specifier": "enum",
        "union_specifier": "union",
        "type_definition": "type",
    },
    "csharp": {
        "class_declaration": "class",
        "interface_declaration": "interface",
        "struct_declaration": "struct",
        "enum_declaration": "enum",
        "record_declaration": "record",
        "method_declaration": "method",
        "constructor_declaration": "constructor",
        "property_declaration": "property",
        "namespace_declaration": "namespace",
        "delegate_declaration": "delegate",
        "destructor_declaration": "destructor",
        "operator_declaration": "operator",
        "conversion_operator_declaration": "operator",
        "indexer_declaration": "indexer",
    },
    "ruby": {
        "method": "method",
        "singleton_method": "method",
        "class": "class",
        "module": "module",
    },
    "php": {
        "function_definition": "function",
        "class_declaration": "class",
        "interface_declaration": "interface",
        "trait_declaration": "trait",
        "method_declaration": "method",
        "enum_declaration": "enum",
    },
}
_DEFINITIONS["typescript"] = {
    **_DEFINITIONS["javascript"],
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "method_signature": "method",
    "abstract_method_signature": "method",
    "function_signature": "function",
    "internal_module": "namespace",
    "module": "namespace",
}
_DEFINITIONS["tsx"] = _DEFINITIONS["typescript"]
_DEFINITIONS["cpp"] = {
    **_DEFINITIONS["c"],
    "class_specifier": "class",
    "namespace_definition": "namespace",
}
# Wrappers whose range belongs to the definition inside them.
_WRAPPERS = {"decorated_definition", "export_statement", "template_declaration"}
# Sibling nodes directly above a definition that belong to it.
_LEADING = {
    "comment",
    "line_comment",
    "block_comment",
    "attribute_item",
    "attribute",
    "decorator",
    "marker_annotation",
    "annotation",
}
# Arrow functions and function expressions bound to a name: const f = () => {...}, and class
# fields holding one: onClick = () => {...} (JavaScript; TypeScript's public_field_definition).
_BOUND_FUNCTIONS = {"arrow_function", "function", "function_expression", "generator_function"}
_BOUND_KINDS = {
    "variable_declarator": "function",
    "field_definition": "method",
    "public_field_definition": "method",
}
_NAME_FIELDS = ("name", "declarator", "property")
# Specifiers that name a type are definitions only with a body: `struct point *p` is a use.
_NEED_BODY = {"struct_specifier", "enum_specifier", "union_specifier", "class_specifier"}
# C/C++ declarations that wrap a type definition: `struct S {...};`.
_DECLARATIONS = {"field_declaration", "declaration"}
# Comments that mark editor regions, not documentation.
_REGION_MARKER = re.compile(
    r"<\/?editor-fold|#\s*(end)?region\b|//\s*(end)?region\b", re.IGNORECASE
)
_NAMES = {
    "identifier",
    "setter",  # Ruby `def x=`
    "operator",  # Ruby `def ==`
    "nested_namespace_specifier",  # C++ `namespace a::b`
    "type_identifier",
    "field_identifier",
    "property_identifier",
    "constant",
    "name",
    "namespace_identifier",
    "qualified_identifier",
    "destructor_name",
    "operator_name",
    "scoped_identifier",
    "scoped_type_identifier",
    "private_property_identifier",
    "qualified_name",
    "simple_identifier",
    "computed_property_name",
}


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition: what it is, where (1-based inclusive lines; character offsets of the
    whole lines in the normalized text), and its name path from the top of the file."""

    name: str
    kind: str
    name_path: str
    start_line: int
    end_line: int
    start: int
    end: int
    depth: int
    children: tuple[Symbol, ...] = field(default=(), repr=False, compare=False)
    # Where the definition begins and ends as (line, column), 1-based, both inclusive. A
    # definition with only blanks before it on its first line begins at column 1, and one with
    # only blanks after it ends at the end of its last line: columns tell apart only the
    # definitions that share a line (`class A { f() {} } class B { g() {} }`).
    begin: tuple[int, int] = field(default=(0, 0), compare=False)
    finish: tuple[int, int] = field(default=(0, 0), compare=False)


def symbols_supported(name: str) -> bool:
    """Whether symbols can be located in a file called ``name``."""
    return language_of(name) in _DEFINITIONS


def _definitions(ext: str) -> dict[str, str]:
    """Node type -> kind for the grammar ``ext`` (an extension grammar_for returned)."""
    lang = language_of(ext)
    assert lang is not None  # grammar_for returns only extensions that have a grammar
    return _DEFINITIONS[lang]


# Symbols by content: a read, an edit and its checks of one version find them once, and a
# lookup started in the background after a read serves the edit that follows.
_CACHE: ContentMemo[tuple[Symbol, ...]] = ContentMemo(size=32)


def symbols_of(
    name: str,
    text: str,
    base: tuple[str, Plan] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> tuple[Symbol, ...]:
    """Every definition of ``text`` (normalized) in file order, as a flat tuple.

    ``cancel`` is asked now and then; True stops the work (a background parse gives way to a
    call this way).

    Raises:
        InvalidRequest: editguard does not locate symbols in this file type.
        ParseTimeout: ``cancel`` said to stop (nothing is kept).
    """
    ext = grammar_for(name, text)
    if ext is None or not symbols_supported(name):
        raise InvalidRequest(
            f"symbols are not supported for {name}; they are for "
            + ", ".join(lang for lang in LANGUAGES if lang in _DEFINITIONS),
            data={"field": "path"},
        )
    return _CACHE.get(ext, text, lambda: tuple(_flatten(_collect(ext, text, base, cancel))))


def _flatten(symbols: list[Symbol]) -> list[Symbol]:
    out: list[Symbol] = []
    for symbol in symbols:
        out.append(symbol)
        out.extend(_flatten(list(symbol.children)))
    return out


class _Text:
    """Byte rows of the text and the character offset of each line start."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass")
        self.line_starts = [0, *accumulate(len(line) + 1 for line in text.split(LF))][:-1]

    def line_end(self, row: int) -> int:
        """Character offset just after line ``row`` (0-based), its break included."""
        return self.line_starts[row + 1] if row + 1 < len(self.line_starts) else len(self.text)

    def node_text(self, node: Any) -> str:
        return str(self.data[node.start_byte : node.end_byte].decode("utf-8", "replace"))


# Functions defined directly in these are methods (a Rust or Ruby module holds functions).
_CLASS_LIKE = {"class", "struct", "interface", "trait", "impl", "record", "enum"}


@cache
def _query(ext: str) -> Any:
    """One query that captures every definition node of the language (it runs in C)."""
    from tree_sitter import Query  # noqa: PLC0415 - loaded on first use

    grammar = language(ext)
    kinds = [k for k in _definitions(ext) if grammar.id_for_node_kind(k, True) is not None]
    patterns = [
        f"({k} body: (_)) @definition" if k in _NEED_BODY else f"({k}) @definition" for k in kinds
    ]
    bound = [k for k in _BOUND_FUNCTIONS if grammar.id_for_node_kind(k, True) is not None]
    values = " ".join(f"({k})" for k in bound)
    patterns += [
        f"({holder} value: [{values}]) @definition"
        for holder in _BOUND_KINDS
        if bound and grammar.id_for_node_kind(holder, True) is not None
    ]
    return Query(grammar, "\n".join(patterns))


def _collect(
    ext: str,
    text: str,
    base: tuple[str, Plan] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> list[Symbol]:
    from tree_sitter import QueryCursor  # noqa: PLC0415

    table = _definitions(ext)
    tree = parse(ext, text, base)
    src = _Text(text)
    nodes = list(QueryCursor(_query(ext)).captures(tree.root_node).get("definition", []))
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    # Each definition as a record, in file order: (fields of its Symbol, index of its parent).
    records: list[tuple[dict[str, Any], int]] = []
    # Open definitions, innermost last: (end byte, path, kind, record index).
    stack: list[tuple[int, tuple[str, ...], str, int]] = []
    siblings = _Siblings()
    for count, node in enumerate(nodes):
        if cancel is not None and count % 64 == 0 and cancel():
            raise ParseTimeout("stopped: a call arrived")
        while stack and node.start_byte >= stack[-1][0]:
            stack.pop()
        scope, name = _name_of(node, src)
        if not name:
            continue
        kind = _BOUND_KINDS.get(node.type) or table[node.type]
        if node.type == "type_definition":  # typedef struct {...} name: a struct by its name
            named = node.child_by_field_name("type")
            if named is not None and named.type in _NEED_BODY and named.child_by_field_name("body"):
                kind = table.get(named.type, kind)
        if kind == "function" and (scope or (stack and stack[-1][2] in _CLASS_LIKE)):
            kind = "method"  # in a class, or defined for one outside it (C++ `S::f`)
        # A bound function's range is its whole declaration (const f = ...), with wrappers.
        outer: Any = node.parent if node.type == "variable_declarator" and node.parent else node
        outer = _outermost(outer, table)
        path = (*(stack[-1][1] if stack else ()), *scope, name)
        first = _first_row(outer, siblings, src)
        end_row, end_col = outer.end_point
        last = end_row - 1 if end_col == 0 and end_row > first else end_row
        fields = {
            "name": name,
            "kind": kind,
            "name_path": "/".join(path),
            "start_line": first + 1,
            "end_line": last + 1,
            "start": src.line_starts[first],
            "end": src.line_end(last),
            "depth": len(path) - 1,
        }
        # `const base = 2, double = (x) => x * base;`: the range is the declaration's lines,
        # but the definition itself is only its declarator.
        declaration = node.parent if node.type == "variable_declarator" else None
        alone = declaration is None or (
            sum(c.type == "variable_declarator" for c in declaration.named_children) == 1
        )
        fields["begin"], fields["finish"] = _columns(outer if alone else node, src, first, last)
        records.append((fields, stack[-1][3] if stack else -1))
        stack.append((node.end_byte, path, kind, len(records) - 1))
    # Build each Symbol once, children first (they come after their parent in file order).
    children: list[list[Symbol]] = [[] for _ in records]
    roots: list[Symbol] = []
    for index in range(len(records) - 1, -1, -1):
        fields, parent = records[index]
        symbol = Symbol(**fields, children=tuple(reversed(children[index])))
        (children[parent] if parent >= 0 else roots).append(symbol)
    roots.reverse()
    return roots


_LINE_END = 1 << 30  # a column past any line's end


def shares_lines(symbol: Symbol) -> bool:
    """Whether other code stands on the first or last line of ``symbol`` (a whole-line edit
    of the symbol would change it too)."""
    return symbol.begin[1] > 1 or symbol.finish[1] != _LINE_END


def _columns(
    node: Any, src: _Text, first: int, last: int
) -> tuple[tuple[int, int], tuple[int, int]]:
    """(begin, finish) of a definition node whose symbol covers rows ``first``..``last``."""
    data = src.data
    row, col = node.start_point
    before = data[node.start_byte - col : node.start_byte]
    if row > first or not before.strip():
        begin = (first + 1, 1)
    else:
        begin = (row + 1, len(before.decode("utf-8", "replace")) + 1)
    end_row, end_col = node.end_point
    stop = data.find(b"\n", node.end_byte)
    after = data[node.end_byte : stop if stop >= 0 else len(data)]
    if end_row > last or not after.strip():
        finish = (last + 1, _LINE_END)
    else:
        head = data[node.end_byte - end_col : node.end_byte]
        finish = (end_row + 1, len(head.decode("utf-8", "replace")))
    return begin, finish


def _outermost(node: Any, table: dict[str, str]) -> Any:
    """The node whose range the definition takes: wrappers (decorators, export, template), a
    Go type_declaration with this one spec, and nodes that begin where it begins (a C++ class
    declared inside a field_declaration)."""
    while node.parent is not None and node.parent.parent is not None:
        parent = node.parent
        wraps = parent.type in _WRAPPERS
        single_spec = parent.type == "type_declaration" and parent.named_child_count == 1
        # `class B {...};` inside a class, or `struct S {...};`: the declaration around it
        # (not any parent that happens to start there, such as a block of statements).
        same_start = parent.start_byte == node.start_byte and parent.type in _DECLARATIONS
        if not (wraps or single_spec or same_start):
            break
        node = parent
    return node


class _Siblings:
    """Previous named siblings without tree-sitter's ``prev_named_sibling``, which walks from
    the parent's first child on every call (quadratic in a file of many top-level items)."""

    def __init__(self) -> None:
        self._where: dict[int, tuple[list[Any], int]] = {}

    def previous(self, node: Any) -> Any:
        """The named sibling right before ``node``, or None."""
        where = self._where.get(node.id)
        if where is None:
            parent = node.parent
            if parent is None:
                return None
            kids = parent.named_children
            for i, kid in enumerate(kids):
                self._where[kid.id] = (kids, i)
            where = self._where.get(node.id)
            if where is None:  # not a named child (cannot happen for a definition)
                return node.prev_named_sibling
        kids, i = where
        return kids[i - 1] if i > 0 else None


_COMMENTS = {"comment", "line_comment", "block_comment"}
# Comments that document the enclosing module or crate, not the item below (Rust `//!`, `/*!`).
_INNER_DOC = ("//!", "/*!")


def _first_row(node: Any, siblings: _Siblings, src: _Text) -> int:
    """The first line of a definition, with the attributes and doc comments right above it."""
    row = node.start_point[0]
    sibling = _leading_before(node, siblings)
    while sibling is not None and sibling.type in _LEADING and sibling.end_point[0] >= row - 1:
        if sibling.type in _COMMENTS:
            line_start = sibling.start_byte - sibling.start_point[1]
            if src.data[line_start : sibling.start_byte].strip():
                break  # after code on its line (`int y; /* ...`, `class A {  // ...`): its own
            text = src.data[sibling.start_byte : sibling.end_byte].decode("utf-8", "replace")
            if _REGION_MARKER.search(text) or text.startswith(_INNER_DOC):
                break  # an editor region marker, or documentation of the enclosing module
        row = sibling.start_point[0]
        sibling = _leading_before(sibling, siblings)
    return int(row)


def _leading_before(node: Any, siblings: _Siblings) -> Any:
    """The named node right before ``node``; for the first node of a body that begins with it
    (a Python or Ruby class body), the node before that body (a comment under `class A:`)."""
    previous = siblings.previous(node)
    while (
        previous is None and node.parent is not None and node.parent.start_byte == node.start_byte
    ):
        node = node.parent
        previous = siblings.previous(node)
    return previous


def _name_of(node: Any, src: _Text) -> tuple[tuple[str, ...], str]:
    """(scope, name): the scope holds the type a method is defined for outside its class
    (C++ ``S::f``, a Go receiver ``(s *S) f``), so that it nests under that type."""
    if node.type == "impl_item":  # impl Trait for Type / impl Type: named after the type
        target = node.child_by_field_name("type")
        return (), _plain(src.node_text(target)) if target is not None else ""
    receiver = node.child_by_field_name("receiver") if node.type == "method_declaration" else None
    if receiver is not None:
        kinds = [n for n in _descendants(receiver) if n.type == "type_identifier"]
        scope = (src.node_text(kinds[0]),) if kinds else ()
        return scope, _plain(src.node_text(node.child_by_field_name("name")))
    special = _SPECIAL_NAMES.get(node.type)
    if special is not None:
        return (), special(node, src)
    for name_field in _NAME_FIELDS:
        found = node.child_by_field_name(name_field)
        if found is None:
            continue
        raw = _innermost_name(found, src)
        if raw:
            parts = _split_scope(raw)
            return tuple(p for p in parts[:-1] if p), parts[-1]
    return (), ""


def _operator_symbol(node: Any, src: _Text) -> str:
    """C# ``operator +``: the token after the ``operator`` keyword."""
    tokens = node.children
    for i, child in enumerate(tokens[:-1]):
        if child.type == "operator":
            return "operator " + src.node_text(tokens[i + 1]).strip()
    return "operator"


def _conversion(node: Any, src: _Text) -> str:
    """C# ``implicit operator int``: named after the type it converts to."""
    target = node.child_by_field_name("type")
    return "operator " + (src.node_text(target).strip() if target is not None else "")


def _destructor(node: Any, src: _Text) -> str:
    """C# ``~A()``: not ``A``, which is the constructor's name."""
    name = node.child_by_field_name("name")
    return "~" + (src.node_text(name).strip() if name is not None else "")


_SPECIAL_NAMES: dict[str, Callable[[Any, _Text], str]] = {
    "operator_declaration": _operator_symbol,
    "conversion_operator_declaration": _conversion,
    "destructor_declaration": _destructor,
    "indexer_declaration": lambda _node, _src: "this[]",
}


def _split_scope(raw: str) -> list[str]:
    """``a::b::S<T>::f`` -> ``["a", "b", "S", "f"]``: split on ``::`` outside template
    arguments, drop the arguments, and keep an operator's name whole (``operator<<``)."""
    if ":" not in raw and "<" not in raw and "(" not in raw:
        return [raw.strip()]  # a plain name: most of them
    parts: list[str] = []
    depth = start = i = 0
    while i < len(raw):
        if _OPERATOR.match(raw, i) and depth == 0:
            break  # the rest is the operator's name, brackets and all
        char = raw[i]
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif depth == 0 and raw.startswith("::", i):
            parts.append(raw[start:i])
            start = i = i + 2
            continue
        i += 1
    parts.append(raw[start:])
    return [_operator_or_plain(p.strip()) for p in parts]


def _operator_or_plain(part: str) -> str:
    """``S<T>`` -> ``S``; ``operator<<`` stays; ``operator int() const`` -> ``operator int``."""
    if not _OPERATOR.match(part):
        return part.split("<", 1)[0].strip() or part  # Ruby's `<=>` is a name of its own
    if not part.startswith("operator()") and "(" in part:
        return part[: part.index("(")].strip()  # a conversion: its declarator is not the name
    return part


_OPERATOR = re.compile(r"(?<![\w])operator(?![\w])")


def _descendants(node: Any) -> list[Any]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.named_children))
    return out


def _innermost_name(node: Any, src: _Text) -> str:
    """The (possibly qualified) identifier inside nested declarators: ``&S::f(int)`` -> ``S::f``."""
    current = node
    for _ in range(10):
        if current.type in _NAMES:
            return src.node_text(current).strip()
        inner = current.child_by_field_name("declarator") or current.child_by_field_name("name")
        if inner is None:
            named = current.named_children
            names = [c for c in named if c.type in _NAMES]
            if names:
                return src.node_text(names[0]).strip()
            nested = [c for c in named if c.type.endswith("declarator")]
            if not nested:
                return ""
            inner = nested[0]
        current = inner
    return ""


def _plain(name: str) -> str:
    """A qualified name's last part (``Foo::bar`` -> ``bar``), without generics."""
    name = re.split(r"::|\\\\", name)[-1]
    return name.split("<", 1)[0].strip()

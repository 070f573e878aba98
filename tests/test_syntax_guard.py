"""The syntax guard on every language it knows: a valid edit passes, an edit that breaks the
syntax is refused in strict mode (nothing written), written with warnings in interactive mode and
only reported in verify_only mode, and an error that was already in the file never blocks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, Workspace
from editguard.languages import LANGUAGES, iter_languages, language_of

from .conftest import Snapshot, set_old_mtime


@dataclass(frozen=True)
class Sample:
    """A small valid file of one language, an edit that keeps it valid and one that breaks it."""

    language: str
    extension: str
    source: str
    valid: tuple[str, str]  # old_text -> new_text, the file stays valid
    breaking: tuple[str, str]  # old_text -> new_text, a syntax error tree-sitter detects

    @property
    def name(self) -> str:
        return "sample" + self.extension

    def with_valid_edit(self) -> str:
        return replace_once(self.source, *self.valid)

    def with_breaking_edit(self) -> str:
        return replace_once(self.source, *self.breaking)


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with its only occurrence of ``old`` replaced by ``new``."""
    assert text.count(old) == 1, f"{old!r} must occur exactly once"
    return text.replace(old, new)


PYTHON = '''\
"""Inventory helpers."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0

    def total(self) -> float:
        return self.price * self.quantity


def cheapest(items: list[Item]) -> Item | None:
    if not items:
        return None
    return min(items, key=lambda item: item.price)
'''

JAVASCRIPT = """\
// Shopping cart helpers.
const TAX_RATE = 0.2;

export class Cart {
  constructor() {
    this.items = [];
  }

  add(name, price, quantity = 1) {
    this.items.push({ name, price, quantity });
    return this;
  }

  total() {
    const net = this.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
    return net * (1 + TAX_RATE);
  }
}

export function formatPrice(value) {
  return `${value.toFixed(2)} EUR`;
}
"""

TYPESCRIPT = """\
export interface User {
  id: number;
  name: string;
  email?: string;
}

export type Role = "admin" | "editor" | "viewer";

export function displayName(user: User): string {
  return user.email ? `${user.name} <${user.email}>` : user.name;
}

export class Registry<T extends User> {
  private readonly users = new Map<number, T>();

  register(user: T): void {
    this.users.set(user.id, user);
  }

  find(id: number): T | undefined {
    return this.users.get(id);
  }
}
"""

TSX = """\
import React from "react";

type Props = {
  title: string;
  items: string[];
};

export function List({ title, items }: Props) {
  return (
    <section className="list">
      <h2>{title}</h2>
      <ul>
        {items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    </section>
  );
}

export default List;
"""

JSON = """\
{
  "name": "editguard-demo",
  "version": "1.2.0",
  "private": true,
  "scripts": {
    "build": "tsc -p .",
    "test": "vitest run"
  },
  "dependencies": {
    "react": "^18.3.1",
    "zod": "^3.23.8"
  },
  "keywords": ["demo", "editing"],
  "engines": {
    "node": ">=20"
  }
}
"""

YAML = """\
name: ci
on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - run: pip install -e .[test]
      - run: pytest -q
"""

TOML = """\
[project]
name = "demo"
version = "0.3.1"
description = "A small demo package"
requires-python = ">=3.11"
dependencies = [
    "httpx>=0.27",
    "rich>=13",
]

[project.scripts]
demo = "demo.cli:main"

[tool.ruff]
line-length = 100

[tool.pytest.ini_options]
addopts = "-q"
testpaths = ["tests"]
"""

GO = """\
package shapes

import (
    "fmt"
    "math"
)

type Circle struct {
    Radius float64
}

func (c Circle) Area() float64 {
    return math.Pi * c.Radius * c.Radius
}

func Describe(shapes []Circle) []string {
    out := make([]string, 0, len(shapes))
    for _, s := range shapes {
        out = append(out, fmt.Sprintf("circle of area %.2f", s.Area()))
    }
    return out
}
"""

RUST = """\
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub struct Inventory {
    items: HashMap<String, u32>,
}

impl Inventory {
    pub fn new() -> Self {
        Self { items: HashMap::new() }
    }

    pub fn add(&mut self, name: &str, count: u32) {
        *self.items.entry(name.to_string()).or_insert(0) += count;
    }

    pub fn count(&self, name: &str) -> u32 {
        self.items.get(name).copied().unwrap_or(0)
    }
}
"""

JAVA = """\
package com.example.bank;

import java.util.ArrayList;
import java.util.List;

public class Account {
    private final String owner;
    private final List<Long> movements = new ArrayList<>();

    public Account(String owner) {
        this.owner = owner;
    }

    public void deposit(long cents) {
        if (cents <= 0) {
            throw new IllegalArgumentException("amount must be positive");
        }
        movements.add(cents);
    }

    public long balance() {
        return movements.stream().mapToLong(Long::longValue).sum();
    }
}
"""

C = r"""#include <stdio.h>
#include <stdlib.h>

struct point {
    int x;
    int y;
};

static int manhattan(struct point a, struct point b)
{
    return abs(a.x - b.x) + abs(a.y - b.y);
}

int main(void)
{
    struct point origin = {0, 0};
    struct point target = {3, -4};

    printf("distance: %d\n", manhattan(origin, target));
    return 0;
}
"""

CPP = """\
#include <iostream>
#include <string>
#include <vector>

namespace shop {
class Basket {
public:
    void add(const std::string& name, double price) {
        names_.push_back(name);
        total_ += price;
    }

    double total() const { return total_; }
private:
    std::vector<std::string> names_;
    double total_ = 0.0;
};

}  // namespace shop

int main() {
    shop::Basket basket;
    basket.add("apple", 0.5);
    std::cout << basket.total() << std::endl;
}
"""

CSHARP = """\
using System;
using System.Collections.Generic;
using System.Linq;

namespace Library
{
    public record Book(string Title, string Author, int Year);

    public class Catalog
    {
        private readonly List<Book> _books = new();

        public void Add(Book book) => _books.Add(book);

        public IEnumerable<Book> By(string author)
        {
            return _books.Where(b => b.Author == author).OrderBy(b => b.Year);
        }

        public int Count => _books.Count;
    }
}
"""

RUBY = """\
# A tiny bank account.
class Account
  attr_reader :owner, :balance

  def initialize(owner, balance = 0)
    @owner = owner
    @balance = balance
  end

  def deposit(amount)
    raise ArgumentError, "amount must be positive" unless amount.positive?

    @balance += amount
    self
  end

  def to_s
    "#{owner}: #{format('%.2f', balance)}"
  end
end
"""

PHP = r"""<?php

declare(strict_types=1);

namespace App\Models;

final class Invoice
{
    /** @var list<float> */
    private array $lines = [];

    public function __construct(private string $customer) {}

    public function addLine(float $amount): self
    {
        $this->lines[] = $amount;
        return $this;
    }

    public function total(): float
    {
        return array_sum($this->lines);
    }
}
"""

BASH = r"""#!/usr/bin/env bash
set -euo pipefail

backup_dir="${BACKUP_DIR:-/var/backups}"

log() {
    printf '%s %s\n' "$(date +%H:%M:%S)" "$*"
}

backup() {
    local src="$1"
    if [[ ! -d "$src" ]]; then
        log "skipping missing folder $src"
        return 1
    fi
    tar -czf "$backup_dir/$(basename "$src").tar.gz" "$src"
    log "saved $src"
}

for folder in "$@"; do
    backup "$folder" || true
done
"""

HTML = """\
<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Release notes</title>
    <link rel="stylesheet" href="style.css">
  </head>
  <body>
    <header>
      <h1>Release notes</h1>
    </header>
    <main>
      <ul class="changes">
        <li>Faster start-up</li>
        <li>Safer edits</li>
      </ul>
    </main>
    <footer>
      <p>&copy; 2024 Example</p>
    </footer>
  </body>
</html>
"""

CSS = """\
:root {
  --accent: #3366cc;
  --radius: 4px;
}

body {
  margin: 0;
  font-family: system-ui, sans-serif;
}

.button {
  padding: 0.5rem 1rem;
  border-radius: var(--radius);
  background: var(--accent);
  color: white;
}

.button:hover {
  background: #254f9e;
}

@media (max-width: 600px) {
  .button { width: 100%; }
}
"""

SAMPLES = [
    Sample(
        "python",
        ".py",
        PYTHON,
        valid=("quantity: int = 0", "quantity: int = 1"),
        breaking=("key=lambda item: item.price)", "key=lambda item: item.price"),
    ),
    Sample(
        "javascript",
        ".js",
        JAVASCRIPT,
        valid=("const TAX_RATE = 0.2;", "const TAX_RATE = 0.21;"),
        breaking=("return net * (1 + TAX_RATE);", "return net * (1 + TAX_RATE;"),
    ),
    Sample(
        "typescript",
        ".ts",
        TYPESCRIPT,
        valid=('"viewer";', '"viewer" | "guest";'),
        breaking=("register(user: T): void {", "register(user: T: void {"),
    ),
    Sample(
        "tsx",
        ".tsx",
        TSX,
        valid=("<h2>{title}</h2>", '<h2 className="title">{title}</h2>'),
        breaking=("<li key={item}>{item}</li>", "<li key={item}>{item</li>"),
    ),
    Sample(
        "json",
        ".json",
        JSON,
        valid=('"version": "1.2.0"', '"version": "1.3.0"'),
        breaking=('["demo", "editing"],', '["demo", "editing",'),
    ),
    Sample(
        "yaml",
        ".yaml",
        YAML,
        valid=("runs-on: ubuntu-latest", "runs-on: ubuntu-24.04"),
        breaking=("branches: [main]", "branches: [main"),
    ),
    Sample(
        "toml",
        ".toml",
        TOML,
        valid=("line-length = 100", "line-length = 110"),
        breaking=('testpaths = ["tests"]', 'testpaths = ["tests"'),
    ),
    Sample(
        "go",
        ".go",
        GO,
        valid=("Radius float64", "Radius float64 // in metres"),
        breaking=("s.Area()))\n    }\n", "s.Area()))\n"),
    ),
    Sample(
        "rust",
        ".rs",
        RUST,
        valid=("#[derive(Debug, Clone)]", "#[derive(Debug, Clone, Default)]"),
        breaking=(".unwrap_or(0)", ".unwrap_or(0"),
    ),
    Sample(
        "java",
        ".java",
        JAVA,
        valid=("this.owner = owner;", "this.owner = owner.strip();"),
        breaking=("mapToLong(Long::longValue).sum();", "mapToLong(Long::longValue.sum();"),
    ),
    Sample(
        "c",
        ".c",
        C,
        valid=("{3, -4}", "{6, -8}"),
        breaking=("abs(a.y - b.y);", "abs(a.y - b.y;"),
    ),
    Sample(
        "cpp",
        ".cpp",
        CPP,
        valid=('basket.add("apple", 0.5);', 'basket.add("pear", 0.75);'),
        breaking=("names_.push_back(name);", "names_.push_back(name;"),
    ),
    Sample(
        "csharp",
        ".cs",
        CSHARP,
        valid=("int Year);", "int Year, string Isbn);"),
        breaking=("OrderBy(b => b.Year);", "OrderBy(b => b.Year;"),
    ),
    Sample(
        "ruby",
        ".rb",
        RUBY,
        valid=("balance = 0)", "balance = 100)"),
        breaking=("    self\n  end\n", "    self\n"),
    ),
    Sample(
        "php",
        ".php",
        PHP,
        valid=("return array_sum($this->lines);", "return round(array_sum($this->lines), 2);"),
        breaking=("$this->lines[] = $amount;", "$this->lines[ = $amount;"),
    ),
    Sample(
        "bash",
        ".sh",
        BASH,
        valid=('log "saved $src"', 'log "saved $src to $backup_dir"'),
        breaking=("        return 1\n    fi\n", "        return 1\n"),
    ),
    Sample(
        "html",
        ".html",
        HTML,
        valid=("<li>Safer edits</li>", "<li>Safer edits</li>\n        <li>Fewer tokens</li>"),
        breaking=("<h1>Release notes</h1>", '<h1 class="title>Release notes</h1>'),
    ),
    Sample(
        "css",
        ".css",
        CSS,
        valid=("margin: 0;", "margin: 0 auto;"),
        breaking=("  .button { width: 100%; }\n}\n", "  .button { width: 100%; }\n"),
    ),
]


PYTHON_ONLY = [
    pytest.param(
        "        return self.price * self.quantity\n",
        "        subtotal = self.price * self.quantity\n            return subtotal\n",
        "IndentationError: unexpected indent",
        id="a line indented too deep inside a function body",
    ),
    pytest.param(
        "from dataclasses import dataclass\n",
        "from dataclasses import dataclass\n\nreturn None\n",
        "'return' outside function",
        id="a return at module level",
    ),
    pytest.param(
        "    if not items:\n        return None\n",
        "    if not items:\n\treturn None\n",
        "TabError: inconsistent use of tabs and spaces in indentation",
        id="a block indented with a tab among spaces",
    ),
]

# (extension, old_text, new_text, the sources of the findings, as observed)
STRICT_PARSERS = [
    pytest.param(
        ".json",
        '"zod": "^3.23.8"\n',
        '"zod": "^3.23.8",\n',
        {"syntax", "json"},
        id="json trailing comma",
    ),
    pytest.param(
        ".json",
        '"private": true,',
        '"private": true, // never publish',
        {"json"},
        id="json comment, which tree-sitter-json accepts",
    ),
    pytest.param(
        ".toml",
        "line-length = 100\n",
        "line-length = 100\nline-length = 120\n",
        {"toml"},
        id="toml duplicate key",
    ),
    pytest.param(
        ".toml",
        'addopts = "-q"',
        "addopts = -q",
        {"syntax", "toml"},
        id="toml bad value",
    ),
    pytest.param(
        ".yaml",
        "    runs-on: ubuntu-latest",
        "     runs-on: ubuntu-latest",
        {"syntax", "yaml"},
        id="yaml bad indentation",
    ),
    pytest.param(
        ".yaml",
        'python: ["3.11", "3.12"]',
        'python: ["3.11", "3.12"',
        {"syntax", "yaml"},
        id="yaml unclosed bracket",
    ),
    pytest.param(
        ".yaml",
        "runs-on: ubuntu-latest",
        "runs-on: *runner",
        {"yaml"},
        id="yaml undefined alias, which tree-sitter-yaml accepts",
    ),
]

SAMPLE_OF = {sample.extension: sample for sample in SAMPLES}


def by_language(sample: Sample) -> str:
    return sample.language


def create(root: Path, name: str, text: str) -> Path:
    """A file holding ``text`` exactly, with an old mtime so that any rewrite would show."""
    path = root / name
    path.write_bytes(text.encode())
    set_old_mtime(path)
    return path


def edit(old_text: str, new_text: str) -> dict[str, str]:
    return {"old_text": old_text, "new_text": new_text}


def assert_located(findings: list[dict[str, Any]], new_text: str) -> None:
    """Every finding points at a 1-based line of ``new_text`` and quotes that line."""
    lines = new_text.split("\n")
    assert findings
    for finding in findings:
        assert 1 <= finding["line"] <= len(lines), finding
        assert finding["column"] >= 1, finding
        assert finding["line_text"] == lines[finding["line"] - 1], finding
        assert finding["blocking"] is True, finding


def refused(ws: Workspace, path: Path, old_text: str, new_text: str) -> list[dict[str, Any]]:
    """The findings of a strict edit that must be refused, after checking nothing was written."""
    before = Snapshot.of(path)
    with pytest.raises(EditError) as caught:
        ws.edit_file(path.name, [edit(old_text, new_text)], mode="strict")
    assert caught.value.code == "VALIDATION_FAILED"
    assert Snapshot.of(path) == before
    findings: list[dict[str, Any]] = caught.value.data["findings"]
    assert_located(findings, replace_once(before.data.decode(), old_text, new_text))
    return findings


# -- the table ----------------------------------------------------------------------------


def test_the_table_covers_every_language_the_guard_knows() -> None:
    assert sorted(sample.language for sample in SAMPLES) == sorted(LANGUAGES)
    assert {language for _extension, language in iter_languages()} == set(LANGUAGES)
    for sample in SAMPLES:
        assert language_of(sample.name) == sample.language


@pytest.mark.parametrize("sample", SAMPLES, ids=by_language)
def test_every_sample_is_accepted_as_a_new_file(ws: Workspace, sample: Sample) -> None:
    result = ws.write_file(sample.name, sample.source, mode="strict")
    assert result.written
    assert result.validation.passed
    assert result.validation.findings == []
    assert 10 <= sample.source.count("\n") <= 25


# -- every language -----------------------------------------------------------------------


@pytest.mark.parametrize("sample", SAMPLES, ids=by_language)
def test_a_valid_edit_passes(ws: Workspace, root: Path, sample: Sample) -> None:
    path = create(root, sample.name, sample.source)
    result = ws.edit_file(sample.name, [edit(*sample.valid)], mode="strict")
    assert result.written
    assert result.validation.passed
    assert result.validation.findings == []
    assert path.read_bytes() == sample.with_valid_edit().encode()


def guard_source(sample: Sample) -> str:
    """Who reports a breaking edit: Python's compiler for Python, tree-sitter for the rest."""
    return "python" if sample.language == "python" else "syntax"


@pytest.mark.parametrize("sample", SAMPLES, ids=by_language)
def test_a_breaking_edit_is_refused_in_strict_mode(
    ws: Workspace, root: Path, sample: Sample
) -> None:
    path = create(root, sample.name, sample.source)
    findings = refused(ws, path, *sample.breaking)
    assert guard_source(sample) in {finding["source"] for finding in findings}
    if sample.language == "python":  # the compiler names the one cause
        assert len(findings) == 1


@pytest.mark.parametrize("sample", SAMPLES, ids=by_language)
def test_interactive_mode_writes_and_warns(ws: Workspace, root: Path, sample: Sample) -> None:
    path = create(root, sample.name, sample.source)
    result = ws.edit_file(sample.name, [edit(*sample.breaking)], mode="interactive")
    assert result.written
    assert path.read_bytes() == sample.with_breaking_edit().encode()
    assert not result.validation.passed
    assert result.validation.findings
    assert guard_source(sample) in {finding.source for finding in result.validation.findings}
    assert_located(
        [finding.model_dump() for finding in result.validation.findings],
        sample.with_breaking_edit(),
    )


@pytest.mark.parametrize("sample", SAMPLES, ids=by_language)
def test_verify_only_writes_nothing_and_reports(ws: Workspace, root: Path, sample: Sample) -> None:
    path = create(root, sample.name, sample.source)
    before = Snapshot.of(path)
    result = ws.edit_file(sample.name, [edit(*sample.breaking)], mode="verify_only")
    assert not result.written
    assert Snapshot.of(path) == before
    assert not result.validation.passed
    assert result.validation.findings
    assert guard_source(sample) in {finding.source for finding in result.validation.findings}


@pytest.mark.parametrize("sample", SAMPLES, ids=by_language)
def test_a_file_already_broken_still_accepts_an_unrelated_edit(
    ws: Workspace, root: Path, sample: Sample
) -> None:
    broken = sample.with_breaking_edit()
    path = create(root, sample.name, broken)
    result = ws.edit_file(sample.name, [edit(*sample.valid)], mode="strict")
    assert result.written
    assert result.validation.passed
    assert result.validation.findings == []
    assert path.read_bytes() == replace_once(broken, *sample.valid).encode()


# Error recovery can report an old error somewhere else after an unrelated edit: an unclosed
# bracket swallows what follows differently, a missing ';' moves onto an inserted line.
MOVED_ERRORS = {
    "python, unclosed bracket above": (
        "p.py",
        "def a():\n    return (1\n\n\ndef b():\n    return 2\n",
        "    return 2",
        "    y = 5\n    return 2",
    ),
    "c++, a macro the grammar cannot read": (
        "h.cpp",
        (Path(__file__).parent / "symbol_samples" / "cpp" / "chrono.h.txt").read_text(),
        "template <typename type>\nclass duration_caster {",
        "// note\ntemplate <typename type>\nclass duration_caster {",
    ),
}


@pytest.mark.parametrize("case", MOVED_ERRORS.values(), ids=MOVED_ERRORS.keys())
def test_an_old_error_that_moves_does_not_block_an_unrelated_edit(
    ws: Workspace, root: Path, case: tuple[str, str, str, str]
) -> None:
    name, text, old, new = case
    assert text.count(old) == 1
    (root / name).write_text(text)
    result = ws.edit_file(name, [edit(old, new)], mode="strict")
    assert result.written
    assert result.validation.findings == []


@pytest.mark.parametrize("case", MOVED_ERRORS.values(), ids=MOVED_ERRORS.keys())
def test_a_new_error_in_a_file_already_broken_is_still_refused(
    ws: Workspace, root: Path, case: tuple[str, str, str, str]
) -> None:
    name, text, old, _new = case
    (root / name).write_text(text)
    broken = "x = = 1\n" if name.endswith(".py") else "int x = ;\n"
    with pytest.raises(EditError) as err:
        ws.edit_file(name, [edit(old, broken + old)], mode="strict")
    assert err.value.code == "VALIDATION_FAILED"
    assert (root / name).read_text() == text


# -- the strict parsers -------------------------------------------------------------------


@pytest.mark.parametrize(("old_text", "new_text", "message"), PYTHON_ONLY)
def test_python_refuses_what_only_the_compiler_sees(
    ws: Workspace, root: Path, old_text: str, new_text: str, message: str
) -> None:
    path = create(root, "sample.py", PYTHON)
    findings = refused(ws, path, old_text, new_text)
    assert {finding["source"] for finding in findings} == {"python"}
    assert any(message in finding["message"] for finding in findings), findings


@pytest.mark.parametrize(("extension", "old_text", "new_text", "sources"), STRICT_PARSERS)
def test_json_toml_and_yaml_are_also_read_by_their_own_parser(
    ws: Workspace, root: Path, extension: str, old_text: str, new_text: str, sources: set[str]
) -> None:
    path = create(root, "sample" + extension, SAMPLE_OF[extension].source)
    findings = refused(ws, path, old_text, new_text)
    assert {finding["source"] for finding in findings} == sources


def test_a_new_json_file_is_checked_by_the_json_parser(tmp_path: Path) -> None:
    ws = Workspace([str(tmp_path)])
    with pytest.raises(EditError) as err:
        ws.write_file("new.json", '{"a": 1} {"b": 2}\n')
    assert err.value.code == "VALIDATION_FAILED"
    assert {f["source"] for f in err.value.data["findings"]} == {"json"}
    assert not (tmp_path / "new.json").exists()
    (tmp_path / "empty.json").write_text("")
    with pytest.raises(EditError):
        ws.write_file("empty.json", '{"a": 1 // c\n}')


def test_a_toml_error_at_the_end_of_the_document_points_at_the_last_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "c.toml").write_text("[a]\nb = 1\nc = [1, 2]\n")
    ws = Workspace([str(tmp_path)])
    with pytest.raises(EditError) as err:
        ws.edit_file("c.toml", [{"old_text": "[1, 2]", "new_text": "[1, 2"}])
    toml = [f for f in err.value.data["findings"] if f["source"] == "toml"]
    assert [(f["line"], f["line_text"]) for f in toml] == [(3, "c = [1, 2")]


# -- what the guard cannot check: it says so, never crashes ---------------------------------

DEEP = {
    "JSON nested 1,500 levels": ("d.json", '{"v": 1, "n": ' + "[" * 1500 + "]" * 1500 + "}\n"),
    "Python expression the compiler cannot hold": ("e.py", "x = " + "-" * 200_000 + "1\n"),
}


@pytest.mark.parametrize("case", DEEP.values(), ids=DEEP.keys())
def test_a_file_too_deep_for_the_parser_is_edited_with_a_note(
    ws: Workspace, root: Path, case: tuple[str, str]
) -> None:
    name, text = case
    (root / name).write_text(text)
    old = '"v": 1' if name.endswith(".json") else "x = "
    new = '"v": 2' if name.endswith(".json") else "y = "
    result = ws.edit_file(name, [edit(old, new)])
    assert result.written
    assert result.validation.passed
    assert any("nested too deeply" in note for note in result.validation.notes)


def test_a_parse_over_its_time_budget_skips_the_check_with_a_note(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from editguard.validate import syntax

    monkeypatch.setattr(syntax, "GUARD_BUDGET", 0.0)  # the real parser, cancelled at once
    text = "// head\n" + "function f(x) {\n  return (x;\n}\n" * 2000
    (root / "big.js").write_text(text)
    result = ws.edit_file("big.js", [edit("// head", "// top")], mode="strict")
    assert result.written
    assert any("the parser gave up after 0 s" in n for n in result.validation.notes)
    monkeypatch.setattr(syntax, "GUARD_BUDGET", 10.0)  # the parser is usable again after
    with pytest.raises(EditError) as err:
        ws.edit_file("big.js", [edit("// top", "// top\nlet = ;")], mode="strict")
    assert err.value.code == "VALIDATION_FAILED"


def test_a_new_text_over_5_mb_is_not_parsed(ws: Workspace, root: Path) -> None:
    (root / "small.py").write_text("x = 1\n")
    big = "x = (\n" + "y = 1\n" * 900_000  # broken, and over 5 MB
    result = ws.write_file("small.py", big)
    assert result.written
    assert any("over 5 MB" in note for note in result.validation.notes)


def test_a_refusal_names_the_lines_the_edit_wrote_when_the_errors_are_elsewhere(
    ws: Workspace, root: Path
) -> None:
    funcs = "".join(f"func f{i}() int {{\n\treturn {i}\n}}\n\n" for i in range(5))
    text = "package p\n\nfunc a(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n\n"
    (root / "m.go").write_text(text + funcs)
    with pytest.raises(EditError) as err:
        ws.edit_file("m.go", [edit("\t\treturn 1\n\t}\n", "\t\treturn 1\n")])
    assert err.value.code == "VALIDATION_FAILED"
    assert err.value.data["changed_lines"] == [5, 5]
    assert "The edit wrote line 5. None of the problems is there" in err.value.message

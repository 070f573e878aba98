"""The ``editguard`` command: run any tool with the same JSON arguments the MCP tool takes.

editguard call TOOL '{"path": ...}'     exit 0 ok, 1 the tool reported an error, 2 usage
editguard call TOOL --args-file F       (or - for standard input)
editguard tools                         every tool's name, description and JSON Schema
editguard serve [ROOT ...]              the MCP server on stdio (--http [HOST:]PORT for HTTP)
editguard history [PATH]                the changes editguard made, newest first (--change ID)
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import io
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from editguard import __version__
from editguard.config import Config
from editguard.terminal import format_history, print_error, print_human

EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE = 0, 1, 2

# Seconds a one-shot call waits for a slow analyzer it asked for (a language server starting
# cold): the process ends after the answer, so nothing pending would ever be read.
ONE_SHOT_WAIT = 60.0


class _Usage(Exception):
    """A usage error: bad JSON, an unknown tool, arguments given twice."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``editguard`` command."""
    parser = argparse.ArgumentParser(
        prog="editguard",
        description="Exact, safe file edits for LLM agents. Runs the same tools as the MCP server.",
    )
    parser.add_argument("--version", action="version", version=f"editguard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    checks = argparse.ArgumentParser(add_help=False)
    checks.add_argument(
        "--linter",
        action="append",
        default=[],
        metavar="NAME",
        help="run this linter (ruff, mypy, pylint, eslint) on a temporary copy of each edited "
        "file, when installed; its new findings are warnings (repeatable)",
    )
    checks.add_argument(
        "--blocking-linter",
        action="append",
        default=[],
        metavar="NAME",
        help="like --linter, but its new findings refuse the edit in strict mode",
    )

    checks.add_argument(
        "--analyzer",
        action="append",
        default=None,
        metavar="NAME",
        help="find the problems each edit introduced with this analyzer: ruff, basedpyright "
        "(with editguard[types]), typescript (the project's own node_modules/typescript: turning "
        "it on trusts that code); repeatable; none: no analyzer (default: ruff and basedpyright "
        "when installed for serve, ruff alone for call)",
    )
    checks.add_argument(
        "--language-server",
        action="append",
        default=[],
        metavar="NAME:EXT[,EXT]:COMMAND",
        help="also find problems with this language server, on files of these extensions "
        "(e.g. gopls:.go:gopls, 'clangd:.c,.h,.cpp:clangd --background-index'); repeatable; "
        "its program is looked up on PATH, and one inside the roots runs only by absolute path",
    )
    checks.add_argument(
        "--analysis-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"how long an edit's answer waits for the analyzers (default: "
        f"{Config.analysis_budget:g} s for serve; for call, {ONE_SHOT_WAIT:g} s when an analyzer "
        "other than ruff is asked for); those still working are named in problems_pending",
    )
    checks.add_argument(
        "--format",
        action="store_true",
        help="format the lines each edit wrote with the project's formatter (ruff format or "
        "black, gofmt, rustfmt; a call's format: false turns it off, format: true turns it on "
        "without this flag)",
    )
    checks.add_argument(
        "--formatter",
        action="append",
        default=[],
        metavar="NAME",
        help="also allow this formatter: prettier (the project's node_modules/.bin/prettier: "
        "allowing it trusts that code); repeatable; none: only these, no default one",
    )
    checks.add_argument(
        "--journal",
        metavar="DIR",
        help="the folder for the journal of multi-file changes (default: $EDITGUARD_JOURNAL, "
        "else ~/.local/state/editguard/journal); a crashed change is restored from it at start",
    )
    checks.add_argument(
        "--history",
        metavar="DIR",
        help="the folder of the history of changes (default: $EDITGUARD_HISTORY, else "
        "~/.local/state/editguard/history; one database per set of roots)",
    )
    checks.add_argument(
        "--no-history", action="store_true", help="record no history (undo has nothing to undo)"
    )
    checks.add_argument(
        "--history-entries",
        type=int,
        default=Config.history_entries,
        metavar="N",
        help=f"keep at most N changes in the history (default: {Config.history_entries:,}; the "
        "oldest go first)",
    )
    checks.add_argument(
        "--history-bytes",
        type=int,
        default=Config.history_bytes,
        metavar="N",
        help=f"keep at most N bytes of stored changes (default: {Config.history_bytes >> 20} MiB)",
    )
    checks.add_argument(
        "--exact",
        action="store_true",
        help="turn the match ladder off: old texts must be in the file exactly",
    )
    for flag, default, what in (
        ("--max-file-bytes", Config.max_file_bytes, "a file read or written, and every result"),
        ("--max-argument-bytes", Config.max_argument_bytes, "one argument of a call"),
        ("--max-request-bytes", Config.max_request_bytes, "all arguments of a call together"),
    ):
        checks.add_argument(
            flag,
            type=int,
            default=default,
            metavar="N",
            help=f"the size limit in bytes for {what} (default: {default:,})",
        )

    call = sub.add_parser(
        "call",
        parents=[checks],
        help="run one tool with JSON arguments and print its JSON result",
        description="Run TOOL with JSON arguments (as the MCP tool takes them); print the result.",
    )
    call.add_argument("tool", metavar="TOOL", help="tool name, e.g. edit_file (see `tools`)")
    call.add_argument(
        "arguments",
        nargs="?",
        metavar="JSON",
        help="the arguments as a JSON object, or - to read them from stdin",
    )
    call.add_argument(
        "--args-file", metavar="FILE", help="read the JSON arguments from FILE (- for stdin)"
    )
    call.add_argument(
        "--root",
        action="append",
        metavar="DIR",
        dest="roots",
        help="an allowed folder (repeatable; default: the current directory)",
    )
    call.add_argument(
        "--json", action="store_true", help="print JSON even when stdout is a terminal"
    )

    sub.add_parser("tools", help="print every tool's name, description and JSON Schema as JSON")

    log = sub.add_parser(
        "history",
        parents=[checks],
        help="print the changes editguard made, newest first",
        description="Print the changes editguard made in these roots, newest first (coloured "
        "in a terminal); --change ID prints one change with its diff.",
    )
    log.add_argument("path", nargs="?", metavar="PATH", help="only the changes of this file")
    log.add_argument(
        "--root",
        action="append",
        metavar="DIR",
        dest="roots",
        help="an allowed folder (repeatable; default: the current directory)",
    )
    log.add_argument("-n", "--limit", type=int, default=20, help="how many (default: 20)")
    log.add_argument("--change", type=int, metavar="ID", help="one change, with its diff")
    log.add_argument("--json", action="store_true", help="print JSON")

    serve = sub.add_parser(
        "serve",
        parents=[checks],
        help="run the MCP server (stdio; Streamable HTTP with --http)",
        description="Run the MCP server over stdio, or over Streamable HTTP at /mcp with --http.",
    )
    serve.add_argument(
        "roots", nargs="*", metavar="ROOT", help="allowed folders (default: the current directory)"
    )
    serve.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve Streamable HTTP at http://HOST:PORT/mcp (host: 127.0.0.1)",
    )
    serve.add_argument(
        "--token",
        default=None,
        help="require 'Authorization: Bearer TOKEN' on every HTTP request "
        "(default: $EDITGUARD_TOKEN); needed to bind a non-loopback address",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another Host name HTTP clients may use (DNS-rebinding protection)",
    )
    serve.add_argument(
        "--tools",
        default="all",
        metavar="NAMES",
        help="serve only these tools: comma-separated tool names and sets (all, edit: for hosts "
        "with their own file reader and writer, minimal: read_file, edit_file, write_file); "
        "default: all",
    )
    serve.add_argument(
        "--compat",
        choices=["filesystem"],
        help="serve another server's tool set instead, with editguard underneath: filesystem = "
        "the MCP reference filesystem server's 14 tools and arguments (a drop-in for it)",
    )
    serve.add_argument(
        "--compat-notebooks",
        action="store_true",
        help="with --compat filesystem: read a notebook (.ipynb) as cells and edit it by cell, "
        "as editguard's own tools do (default: as the text of its JSON, as that server does)",
    )
    serve.add_argument(
        "--log-level",
        default="INFO",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        help="what the server logs to stderr (default: INFO)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``editguard`` console script; returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        # A file name may hold bytes that are no UTF-8 (kept as lone surrogates): print them as
        # \udcXX escapes, which JSON reads back, instead of failing.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    # Start-up builds many objects that live as long as the process (modules, models, tool
    # schemas): collecting garbage while they are made only walks them again and again.
    gc.disable()
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`editguard tools | head`): end quietly, as cat does. Point
        # stdout at /dev/null so that the interpreter's final flush does not fail again.
        import os  # noqa: PLC0415

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    finally:
        gc.enable()


def _started(*, serving: bool = False) -> None:
    """What start-up imports is in: collect garbage again (a server first moves what it has
    made so far out of the collector's sight: it lives as long as the process)."""
    if serving:
        gc.freeze()
    gc.enable()


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if (
        args.command == "call"
        and args.arguments is None
        and len(extra) == 1
        and (extra[0] == "-" or not extra[0].startswith("-"))
    ):
        # `call TOOL --json '{...}'`: argparse gives the optional JSON its slot before the
        # flag, so the JSON after it comes back unrecognized. It is the JSON argument.
        args.arguments, extra = extra[0], []
    if extra:
        parser.error("unrecognized arguments: " + " ".join(extra))
    if args.command == "tools":
        _started()
        return _tools(sys.stdout)
    try:
        if args.command == "serve":
            return _serve(args)
        if args.command == "history":
            _started()
            return _history(args, sys.stdout)
        return _call(args, sys.stdout)
    except _Usage as exc:
        print(f"editguard: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _serve(args: argparse.Namespace) -> int:
    import logging  # noqa: PLC0415
    import os  # noqa: PLC0415

    from editguard.tools import select  # noqa: PLC0415

    if args.compat_notebooks and args.compat is None:
        raise _Usage("--compat-notebooks goes with --compat filesystem")
    try:
        tools = select(args.tools)
    except ValueError as exc:
        raise _Usage(f"--tools: {exc}") from None
    # stdout belongs to the protocol on stdio: every log line goes to stderr.
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # Each call names its client from the initialize request; "mcp" where it gave none.
    context = dataclasses.replace(_context(args, prewarm=True, serving=True), client="mcp")
    from editguard._http import (  # noqa: PLC0415 - the SDK loads only to serve
        TOKEN_ENV,
        parse_address,
        serve_http,
    )
    from editguard.mcp_server import EditguardServer, serve_stdio  # noqa: PLC0415

    _started(serving=True)
    address = None
    if args.http is not None:
        try:
            address = parse_address(args.http)
        except ValueError:
            raise _Usage(f"--http takes [HOST:]PORT, not {args.http!r}") from None
    if args.compat is not None and args.tools != "all":
        raise _Usage("--compat serves its own tool set: leave out --tools")
    server = EditguardServer(
        context,
        log_level=args.log_level,
        tools=tools,
        compat=args.compat,
        compat_notebooks=args.compat_notebooks,
    )
    try:
        if address is None:
            serve_stdio(server)
            return EXIT_OK
        token = args.token or os.environ.get(TOKEN_ENV) or None
        try:
            serve_http(server, address[0], address[1], token, args.log_level, args.allow_host)
        except ValueError as exc:
            raise _Usage(str(exc)) from None
        return EXIT_OK
    finally:
        if context.analysis is not None:  # the language servers end with the server
            context.analysis.close()


def _context(
    args: argparse.Namespace, *, prewarm: bool, serving: bool = False, analysed: bool = True
) -> Any:
    """The tools' context the command line describes (what a Workspace holds, without importing
    every tool). ``serving``: a long-lived process (every configured analyzer, kept warm);
    else one call (the fast analyzers only, unless asked for others).

    Raises:
        _Usage: a bad limit, linter, analyzer or root.
    """
    from editguard.tools._context import open_context  # noqa: PLC0415

    analyzers, budget = _analyzers(args, serving=serving) if analysed else ((), 0.0)
    try:
        config = Config(
            roots=args.roots or Config.roots,
            analyzers=analyzers,
            analysis_budget=budget,
            format=args.format,
            formatters=_formatters(args),
            linters=_linters(args),
            prewarm=prewarm,
            max_file_bytes=_limit(args.max_file_bytes, "--max-file-bytes"),
            max_argument_bytes=_limit(args.max_argument_bytes, "--max-argument-bytes"),
            max_request_bytes=_limit(args.max_request_bytes, "--max-request-bytes"),
            exact=args.exact,
            journal=args.journal,
            history=False if args.no_history else args.history,
            history_entries=_limit(args.history_entries, "--history-entries"),
            history_bytes=_limit(args.history_bytes, "--history-bytes"),
        )
        return open_context(config)
    except ValueError as exc:
        raise _Usage(str(exc)) from None


def _history(args: argparse.Namespace, out: TextIO) -> int:
    from editguard.errors import EditError  # noqa: PLC0415
    from editguard.tools import tool_named  # noqa: PLC0415

    context = _context(args, prewarm=False, analysed=False)
    arguments: dict[str, Any] = {"limit": _limit(args.limit, "--limit")}
    if args.path is not None:
        arguments["path"] = args.path
    if args.change is not None:
        arguments["change_id"] = args.change
    human = out.isatty() and not args.json
    answer = tool_named("history").run_safely(context, arguments)
    if isinstance(answer, EditError):
        print_error(out, answer.to_dict(), human)
        return EXIT_TOOL_ERROR
    result = answer.model_dump(mode="json")
    if not human:
        json.dump(result, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return EXIT_OK
    out.write(format_history(result["changes"], colour=True))
    return EXIT_OK


def _limit(value: int, flag: str) -> int:
    """A size limit from the command line, which must be positive."""
    if value < 1:
        raise _Usage(f"{flag} must be 1 or more, not {value}")
    return value


def _analyzers(args: argparse.Namespace, *, serving: bool) -> tuple[Any, float]:
    """The analyzers and the budget the flags ask for (see --analyzer, --analysis-budget).

    Raises:
        _Usage: an unknown analyzer, a malformed --language-server, or a negative budget.
    """
    from editguard.analyze import DEFAULT, KNOWN, SERVED, parse_language_server  # noqa: PLC0415

    asked = [n for names in args.analyzer or () for n in names.split(",") if n.strip()]
    budget = args.analysis_budget
    if budget is not None and not budget >= 0:
        raise _Usage(f"--analysis-budget must be 0 or more seconds, not {budget}")
    try:
        servers = tuple(parse_language_server(s) for s in args.language_server)
    except ValueError as exc:
        raise _Usage(str(exc)) from None
    if not asked:
        names: tuple[str, ...] = SERVED if serving else DEFAULT
        if budget is None:
            budget = ONE_SHOT_WAIT if servers and not serving else Config.analysis_budget
        return (*names, *servers), budget
    if "none" in asked:
        return (), 0.0
    unknown = [n for n in asked if n not in KNOWN]
    if unknown:
        raise _Usage(f"unknown analyzer {unknown[0]!r}; known: {', '.join(sorted(KNOWN))}, none")
    if budget is None:
        slow = bool(servers) or any(n != "ruff" for n in asked)
        budget = ONE_SHOT_WAIT if slow and not serving else Config.analysis_budget
    return (*dict.fromkeys(asked), *servers), budget


def _formatters(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The formatters the flags allow: the default ones and those named (``none``: only those
    named after it)."""
    from editguard.analyze.format import DEFAULT, KNOWN  # noqa: PLC0415 - runs nothing

    named = [n.strip() for names in args.formatter for n in names.split(",") if n.strip()]
    if not named:
        return None
    unknown = [n for n in named if n not in (*KNOWN, "none")]
    if unknown:
        raise _Usage(f"unknown formatter {unknown[0]!r}; known: {', '.join(KNOWN)}, none")
    base: tuple[str, ...] = () if "none" in named else DEFAULT
    return tuple(dict.fromkeys([*base, *(n for n in named if n != "none")]))


def _linters(args: argparse.Namespace) -> list[Any]:
    if not args.linter and not args.blocking_linter:
        return []  # and the validators stay unloaded until an edit needs them
    from editguard.validate.linters import linter_named  # noqa: PLC0415

    try:
        return [linter_named(n) for n in args.linter] + [
            linter_named(n, blocking=True) for n in args.blocking_linter
        ]
    except ValueError as exc:
        raise _Usage(str(exc)) from None


def _tools(out: TextIO) -> int:
    from editguard.tools._listing import listing  # noqa: PLC0415 - keeps `--help` instant

    json.dump(listing(), out, indent=2, ensure_ascii=False)
    out.write("\n")
    return EXIT_OK


def _read_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The call's JSON arguments.

    Raises:
        _Usage: no arguments, arguments given twice, or an --args-file that cannot be read.
        InvalidRequest: arguments that are not one JSON object (not JSON, not UTF-8, nested too
            deeply, a number too long to read).
    """
    from editguard.errors import InvalidRequest  # noqa: PLC0415

    if args.arguments is not None and args.args_file is not None:
        raise _Usage("give the JSON arguments either inline or with --args-file, not both")
    source = args.args_file if args.args_file is not None else args.arguments
    if source is None:
        raise _Usage("no arguments: give a JSON object, --args-file FILE, or - for stdin")
    if source == "-" or args.args_file is not None:
        try:
            bound = args.max_request_bytes * 4 + 1  # JSON escapes may take 6 bytes a character
            if source == "-":
                data = sys.stdin.buffer.read(bound)
            else:
                with open(source, "rb") as handle:
                    data = handle.read(bound)
        except OSError as exc:
            raise _Usage(f"cannot read --args-file {source}: {exc.strerror}") from None
        if len(data) >= bound:
            raise InvalidRequest(
                f"the arguments are more than {bound - 1:,} bytes of JSON; the limit for a call "
                f"is {args.max_request_bytes:,} bytes of arguments",
                data={"field": "(arguments)", "limit": args.max_request_bytes},
            )
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidRequest(
                f"the arguments are not UTF-8 (byte {exc.start}); send them as UTF-8 JSON",
                data={"field": "(arguments)"},
            ) from None
    else:
        raw = source
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(
            f"the arguments are not valid JSON: {exc}", data={"field": "(arguments)"}
        ) from None
    except RecursionError:
        raise InvalidRequest(
            "the arguments are nested too deeply to read", data={"field": "(arguments)"}
        ) from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise InvalidRequest(
            f"the arguments cannot be read: {exc}", data={"field": "(arguments)"}
        ) from None
    if not isinstance(value, dict):
        raise InvalidRequest("the arguments must be one JSON object", data={"field": "(arguments)"})
    return value


def _call(args: argparse.Namespace, out: TextIO) -> int:
    from editguard.errors import EditError  # noqa: PLC0415
    from editguard.tools import tool_named  # noqa: PLC0415

    try:
        tool = tool_named(args.tool)
    except KeyError:
        from editguard.tools import NAMES  # noqa: PLC0415

        names = ", ".join(NAMES)
        raise _Usage(f"no tool named {args.tool!r}; the tools are: {names}") from None
    human = out.isatty() and not args.json
    try:
        arguments = _read_arguments(args)
    except EditError as exc:
        print_error(out, exc.to_dict(), human)
        return EXIT_TOOL_ERROR
    # One call, then the process ends: nothing to parse ahead for.
    context = dataclasses.replace(_context(args, prewarm=False), client="cli")
    _started()
    try:
        answer = tool.run_safely(context, arguments)
    finally:
        if context.analysis is not None:  # no language server outlives the command
            context.analysis.close()
    if isinstance(answer, EditError):
        print_error(out, answer.to_dict(), human)
        return EXIT_TOOL_ERROR
    result = answer.model_dump(mode="json")
    if human:
        print_human(out, result)
    else:
        json.dump(result, out, indent=2, ensure_ascii=False)
        out.write("\n")
    return EXIT_OK

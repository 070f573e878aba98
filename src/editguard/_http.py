"""The HTTP transport of the MCP server: Streamable HTTP at ``/mcp``, and what guards it.

What stands between the network and :class:`~editguard.mcp_server.EditguardServer`:

* who may connect: a server on an address other machines can reach refuses to start without a
  token (:func:`serve_http`), and with a token every request must carry
  ``Authorization: Bearer <token>`` (:class:`HttpFront`);
* which names it answers to: DNS-rebinding protection checks the Host and Origin headers
  (:func:`transport_security`), and its 421 names ``--allow-host``, the option that admits a
  name (:func:`_explaining_421`);
* where it listens: an address it cannot listen on (a port in use) is one clear error before
  the server announces its URL (:func:`check_listenable`).

Every refusal says what to send or start next. This module imports the MCP SDK and Starlette;
the CLI imports it only for ``serve --http``.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import logging
import re
import socket
from collections.abc import Sequence
from typing import Any

from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger("editguard")

TOKEN_ENV = "EDITGUARD_TOKEN"  # noqa: S105 - the name of a variable, not a secret
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


WELL_KNOWN = "/.well-known/"
HOW_TO_AUTHORIZE = (
    "send the header 'Authorization: Bearer <token>' on every request, with the token this "
    f"server was started with (editguard serve --token TOKEN, or the {TOKEN_ENV} variable in its "
    "environment)"
)


class HttpFront:
    """ASGI middleware in front of the Streamable HTTP app.

    - ``/.well-known/...`` (OAuth discovery) answers 404: editguard has no OAuth, and a 401
      there would make a client start an OAuth flow instead of asking for the token.
    - With a token, every other request must carry ``Authorization: Bearer <token>``; a 401
      says how to send it and where the token comes from.
    - The SDK's 421 for an unknown Host header (DNS-rebinding protection) names
      ``--allow-host``, the option that admits that name.
    """

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if str(scope.get("path", "")).startswith(WELL_KNOWN):
            message = "editguard serves no OAuth metadata; to connect, " + HOW_TO_AUTHORIZE
            await _answer(send, 404, {"error": "not_found", "message": message})
            return
        headers = dict(scope.get("headers", []))
        if self.expected is not None:
            given = headers.get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                problem = "the token sent is not this server's" if given else "no token was sent"
                await _answer(
                    send,
                    401,
                    {"error": "unauthorized", "message": f"{problem}: {HOW_TO_AUTHORIZE}"},
                    [(b"www-authenticate", b'Bearer realm="editguard"')],
                )
                return
        await self.app(scope, receive, _explaining_421(send, headers.get(b"host", b"")))


async def _answer(
    send: Send,
    status: int,
    body: dict[str, str],
    headers: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


_HOST_NAME = re.compile(r"[A-Za-z0-9.:-]{1,253}")


def _host_name(host: str) -> str:
    """The name in a Host header (``name``, ``name:port``, ``[v6]``, ``[v6]:port``), without
    the port or brackets: what ``--allow-host`` takes."""
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.partition(":")[0]


def _explaining_421(send: Send, host: bytes) -> Send:
    """``send``, with the body of a 421 (the SDK's "Invalid Host header") replaced by one that
    names ``--allow-host`` and the name to give it."""
    held = False

    async def explaining(message: Any) -> None:
        nonlocal held
        if message["type"] == "http.response.start" and message["status"] == 421:
            held = True  # sent below, with the new body's length
            return
        if not held or message["type"] != "http.response.body":
            await send(message)
            return
        if message.get("more_body"):
            return
        name = _host_name(host.decode("latin-1"))
        shown = name if _HOST_NAME.fullmatch(name) else "NAME"  # never echo odd bytes back
        data = (
            f"editguard: this server does not answer to the Host name {shown!r} "
            "(DNS-rebinding protection). If clients reach it by that name, start it with "
            f"--allow-host {shown} (repeatable).\n"
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 421,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(data)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": data})

    return explaining


def parse_address(value: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` into (host, port); host defaults to loopback.

    Raises:
        ValueError: not an address.
    """
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    host = host.strip("[]") or "127.0.0.1"
    number = int(port)
    if not 0 <= number <= 65535:
        raise ValueError(f"port {number} is out of range")
    return host, number


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def transport_security(host: str, extra_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """DNS-rebinding protection (Host and Origin checks) for the address served."""
    names = {*LOOPBACK_NAMES, host, *extra_hosts}
    if host in ("0.0.0.0", "::"):  # noqa: S104 - only reached with a token; see serve_http
        names.add(socket.gethostname())
    hosts = sorted(f"[{n}]" if ":" in n else n for n in names)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for n in hosts for h in (n, f"{n}:*")],
        allowed_origins=[
            f"{scheme}://{n}{port}"
            for n in hosts
            for scheme in ("http", "https")
            for port in ("", ":*")
        ],
    )


def build_http_app(
    server: MCPServer, host: str, token: str | None, extra_hosts: Sequence[str] = ()
) -> ASGIApp:
    """The Streamable HTTP app at ``/mcp``, with Host/Origin checks and the optional token."""
    app: ASGIApp = server.streamable_http_app(
        host=host, transport_security=transport_security(host, extra_hosts)
    )
    return HttpFront(app, token)


def serve_http(
    server: MCPServer,
    host: str,
    port: int,
    token: str | None,
    log_level: str,
    extra_hosts: Sequence[str] = (),
) -> None:
    """Serve Streamable HTTP at ``http://host:port/mcp`` until interrupted.

    Raises:
        ValueError: a non-loopback address without a token; an address this machine cannot
            listen on (a port in use, a host that is not this machine's).
    """
    if not is_loopback(host) and not token:
        raise ValueError(
            f"refusing to serve on {host}, which other machines can reach, without a token: "
            f"give --token TOKEN (or set {TOKEN_ENV}), or serve on 127.0.0.1"
        )
    check_listenable(host, port)
    import uvicorn  # noqa: PLC0415 - only the HTTP transport needs it

    app = build_http_app(server, host, token, extra_hosts)
    logger.info("editguard serves MCP at http://%s:%d/mcp", host, port)
    uvicorn.run(app, host=host, port=port, log_level=log_level.lower())


def check_listenable(host: str, port: int) -> None:
    """Bind every address ``host`` names on ``port`` as the server will (then let them go), so
    that a port in use is one clear error before the server announces its URL.

    Raises:
        ValueError: a port in use, a host that is not this machine's, a port it may not use.
    """
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ValueError(f"cannot listen on {shown}: {exc}") from None
    held: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            held.append(sock)
            # As asyncio's server does: a port in TIME_WAIT is free, one being listened on not.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(
                f"port {port} is already in use on {host} (another editguard serve, or another "
                f"program): stop it, or choose another port (--http {host}:PORT)"
            ) from None
        raise ValueError(f"cannot listen on {shown}: {exc.strerror or exc}") from None
    finally:
        for sock in held:
            sock.close()

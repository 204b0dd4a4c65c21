"""A page that stops reading, in a chat with pages that read: does the server keep the others moving?

    python bench/webapp_slow_pages.py [--slow-games 10] [--slow-seconds 40] [--slow-think 0.1] [--seed 1]

(also ``python bench/webapp.py --slow-page`` with the same options). One server process (the pages' routes,
`adapters/web/server.py`, over a local redis-server) holds ``--slow-games`` chats of 6 people (52 cards, a
new game whenever one ends), every person's page open and reading; the first chat moves every
``--slow-think`` seconds, the others ten times slower. Run twice: every page reading, then with the first
chat's second player holding a second page that reads nothing (a raw socket with a 4 KiB receive buffer
that only pings every 2 s, so the heartbeat never drops it; opened again whenever the server cuts it).
Printed: the reading pages' move-to-page latency p50/p99 (the first chat's, the others'), the server's
event-loop lag p99, when the silent pages were closed, and any chat whose moves stopped reaching its pages
("FROZEN").
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import logging
import os
import random
import socket
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp  # noqa: E402
from web_common import (  # noqa: E402
    LAG_SLEEP,
    PAGE_WAIT,
    Table,
    bench_store,
    client,
    close_tables,
    drive,
    listen,
    ms,
    open_tables,
    parent_says,
    percentile,
    probe_lag,
    seat_chats,
    server_process,
    signed_in,
    tell_parent,
    until,
)

SLOW_WORDS = "deck=52"  # long games: many states for the silent page to fall behind on
SILENT_PING_EVERY = 2.0  # seconds between the silent page's pings (it sends, so no heartbeat drops it)
PLAYERS = 6


async def serve_slow_pages(games: int, players: int, seed: int) -> None:
    """Start the games, serve the pages, probe the loop's lag and note each page closed for lagging; on
    "mark" count afresh, on "report" print both, on "again <n>" start a new game in game n's chat (its
    pages follow: everyone is seated again); stop when the parent closes our stdin."""
    store, close = await bench_store("durak-bench-slow-")
    lags: list[float] = []
    dropped: list[float] = []  # when pages were closed for not reading (the hub logs each)

    class Dropped(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "did not read" in record.getMessage():
                dropped.append(time.time())

    logging.getLogger("durak.web").addHandler(Dropped(logging.INFO))
    logging.getLogger("durak.web").setLevel(logging.INFO)

    try:
        chats = await seat_chats(store, games, players, seed, 900_000, 60_000, SLOW_WORDS)
        runner, port = await listen(store, backlog=2048)
        tell_parent({"port": port, "games": [chat.announced() for chat in chats]})
        prober = asyncio.create_task(probe_lag(lags))
        async for said in parent_says():
            if said == ["mark"]:
                lags.clear()
                dropped.clear()
            elif said == ["report"]:
                summary = {
                    "p99": percentile(lags, 0.99),
                    "max": percentile(lags, 1.0),
                }  # a line of a few bytes
                tell_parent({"lags": summary, "dropped": dropped})
            elif len(said) == 2 and said[0] == "again":
                await chats[int(said[1])].start_game(SLOW_WORDS)
        prober.cancel()
        await runner.cleanup()
    finally:
        await close()


class SilentSocket:
    """A page that reads nothing: a raw socket that says hello, then only pings every few seconds (so the
    server's heartbeat never drops it), with a small receive buffer."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.pinger: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, port: int, hello: dict[str, Any]) -> SilentSocket:
        loop = asyncio.get_running_loop()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        await loop.sock_sendall(sock, (
            f"GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode())  # fmt: skip
        answer = b""
        while b"\r\n\r\n" not in answer:  # the handshake's answer, and not a byte more
            answer += await loop.sock_recv(sock, 1)
        silent = cls(sock)
        await silent.send(json.dumps(hello).encode(), opcode=1)
        silent.pinger = asyncio.create_task(silent.ping())
        return silent

    async def send(self, payload: bytes, opcode: int) -> None:
        mask = os.urandom(4)
        size = len(payload)
        head = bytes([0x80 | opcode]) + (
            bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + size.to_bytes(2, "big")
        )
        body = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        await asyncio.get_running_loop().sock_sendall(self.sock, head + mask + body)

    async def ping(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                await asyncio.sleep(SILENT_PING_EVERY)
                await self.send(b"", opcode=9)

    def close(self) -> None:
        if self.pinger is not None:
            self.pinger.cancel()
        self.sock.close()


async def slow_page_run(
    games: int, players: int, seconds: float, think: float, seed: int, silent: bool
) -> None:
    """``games`` chats of ``players`` people, every person's page open and reading; in the first chat moves
    every ``think`` seconds (a new game whenever one ends), in the others every 10 ``think``; with ``silent``,
    the first chat's second player has a second page that reads nothing, opened again whenever the server
    closes it (a hostile client that reconnects). Printed: the reading pages' move-to-page latency (the first
    chat's, the others'), the server's loop lag, and when the silent pages were closed."""
    first_chat: list[float] = []
    other_chats: list[float] = []
    silent_pages: list[SilentSocket] = []
    stalled: list[float] = []  # when a chat's reading pages stopped getting its moves
    started = time.time()

    async with server_process(__file__, "--serve-slow", str(games), str(players), str(seed)) as server:

        async def keep_moving(
            http: aiohttp.ClientSession, base: str, number: int, table: Table, pace: float
        ) -> None:
            rng = random.Random(seed + number)
            until_ = time.perf_counter() + seconds
            latencies = first_chat if number == 0 else other_chats
            while time.perf_counter() < until_:
                if table.pages[0].state.get("phase") != "play":  # over: the chat starts the next game
                    version = table.version
                    await server.tell(f"again {number}")
                    await until(
                        table,
                        lambda v=version: table.version > v and table.pages[0].state.get("phase") == "play",
                    )
                try:
                    latencies += await drive(http, base, table, 1, pace, rng)
                except TimeoutError:
                    stalled.append(time.time())  # a move reached no reading page in PAGE_WAIT: frozen
                    return

        try:
            info = server.info
            async with client() as http:
                tables = await open_tables(http, server.base, info["games"])
                uid, name = info["games"][0]["people"][1]
                hello = {"type": "hello", "authorization": signed_in(uid, name)}

                async def keep_silent() -> None:  # a silent page there all along: again once one is cut
                    while True:
                        silent_pages.append(
                            await SilentSocket.open(info["port"], hello | {"ref": tables[0].ref})
                        )
                        assert silent_pages[-1].pinger is not None
                        await silent_pages[-1].pinger  # ends when a ping fails: the server cut the connection
                        silent_pages[-1].close()

                await server.tell("mark")
                started = time.time()
                silencer = asyncio.create_task(keep_silent()) if silent else None
                await asyncio.gather(
                    *(
                        keep_moving(http, server.base, n, table, think if n == 0 else think * 10)
                        for n, table in enumerate(tables)
                    )
                )
                if silencer is not None:
                    silencer.cancel()
                report = await server.ask("report")
                await close_tables(tables)
        finally:
            for silent_page in silent_pages:
                silent_page.close()

    with_silent = "with a page that reads nothing in the first chat" if silent else "every page reading"
    print(f"slow page ({with_silent}): {games} chats of {players} people ({SLOW_WORDS}), {seconds:g} s")
    print(f"  the first chat's reading pages, a move every {think:g} s: {len(first_chat)} deliveries, "
          f"move-to-page p50 {ms(first_chat, 0.5)} ms, p99 {ms(first_chat, 0.99)} ms, max {ms(first_chat, 1.0)} ms")  # fmt: skip
    print(f"  the other chats' pages: {len(other_chats)} deliveries, p50 {ms(other_chats, 0.5)} ms, "
          f"p99 {ms(other_chats, 0.99)} ms")  # fmt: skip
    lags = report["lags"]
    print(f"  event loop lag (a {LAG_SLEEP * 1000:g} ms sleep's overshoot): p99 {lags['p99'] * 1000:.1f} ms, "
          f"max {lags['max'] * 1000:.1f} ms")  # fmt: skip
    if silent:
        closed = ", ".join(f"{when - started:.0f} s" for when in report["dropped"]) or "never"
        print(
            f"  silent pages opened {len(silent_pages)}, closed by the server for not reading after: {closed}"
        )
    for when in stalled:
        print(
            f"  FROZEN: after {when - PAGE_WAIT - started:.0f} s a move reached no reading page in {PAGE_WAIT:g} s"
        )


def add_options(parser: argparse.ArgumentParser) -> None:
    """This run's options (bench/webapp.py offers them too, beside ``--slow-page``)."""
    parser.add_argument("--slow-games", type=int, default=10, help="chats in the slow-page run")
    parser.add_argument("--slow-seconds", type=float, default=40.0)
    parser.add_argument(
        "--slow-think", type=float, default=0.1, help="seconds between the first chat's moves"
    )


async def run(args: argparse.Namespace) -> None:
    """Every page reading, then one not."""
    for silent in (False, True):
        await slow_page_run(args.slow_games, PLAYERS, args.slow_seconds, args.slow_think, args.seed, silent)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser)
    parser.add_argument("--seed", type=int, default=1)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve-slow":
        asyncio.run(serve_slow_pages(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
    else:
        main()

"""What the web benches share (bench/webapp.py, bench/webapp_replays.py, bench/webapp_slow_pages.py, and
bench/telegram_scale.py's pages): the server process each starts and talks to over its stdin and stdout,
the chats it seats, the pages this process opens, reads and presses on, and the figures' percentiles.

Imported by those scripts, which put the repository and bench/ on ``sys.path`` first. The server side's
imports are inside its functions, so the people's side does not load what only the server runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
from telegram_calls import NAMES

from tests.web.initdata import make_init_data

if TYPE_CHECKING:
    from aiohttp import web

    from bot.inputs import User
    from bot.service import GameService
    from storage.connect import Close
    from storage.store import RedisGameStore
    from tests.bot.harness import Harness

TOKEN = "7012345678:AAHbenchbenchbench_bench-bench0123"
PAGE_WAIT = 15.0  # seconds a move may take to reach every page before the run is called broken
LAG_SLEEP = 0.005  # the server's loop-lag probe: how late a 5 ms sleep wakes


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def ms(values: list[float], share: float) -> str:
    """A percentile of seconds, printed in milliseconds."""
    return f"{percentile(values, share) * 1000:.1f}"


# ---- the server side (a child process) -------------------------------------------------------------------


async def bench_store(prefix: str) -> tuple[RedisGameStore, Close]:
    """A store on a local redis-server of its own, in a fresh temporary directory."""
    from storage.connect import open_store

    return await open_store(None, Path(tempfile.mkdtemp(prefix=prefix)))


async def no_chat(platform: str, chat_id: str, effects: list[Any]) -> None:
    """Where the effects for the chat go when no chat adapter is there: the pages are what is measured."""


async def listen(
    store: RedisGameStore,
    *,
    service: GameService | None = None,
    deliver: Callable[[str, str, list[Any]], Any] = no_chat,
    backlog: int = 128,
    **options: Any,
) -> tuple[web.AppRunner, int]:
    """The pages' routes (`adapters/web/server.py`) over ``service`` (a plain `GameService` of the store
    without one), served on a free port of 127.0.0.1; the runner and the port."""
    from aiohttp import web

    from adapters.web.server import WebFrontEnd
    from bot.service import GameService

    front = WebFrontEnd(service or GameService(store), store.redis, deliver, telegram_token=TOKEN, **options)
    runner = web.AppRunner(front.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=backlog)
    await site.start()
    return runner, int(runner.addresses[0][1])


@dataclass
class SeatedChat:
    """A Telegram group of people playing through the service (`tests/bot/harness.py`), a game running."""

    harness: Harness
    users: list[User]
    people: list[tuple[str, str]]  # (user id, name), as the parent signs them in
    ref: str = ""  # the running game's page

    async def start_game(self, words: str = "") -> str:
        """/newgame ``words``, everyone joins, the first starts; the new game's page ref."""
        from adapters.web.links import game_ref
        from bot.queries import session_id
        from bot.session import ChatSession
        from storage import ChatRef

        harness, users = self.harness, self.users
        harness.clock = time.time()
        await harness.command(users[0], "newgame", words)
        for user in users[1:]:
            await harness.tap(user, "Join")
        await harness.tap(users[0], "Start")
        record = await harness.store.load(ChatRef("tg", harness.chat))
        assert record.state is not None
        self.ref = game_ref(harness.chat, session_id(ChatSession.decode(record.state)))
        return self.ref

    def announced(self) -> dict[str, Any]:
        return {"ref": self.ref, "people": self.people}


async def seat_chats(
    store: RedisGameStore,
    chats: int,
    players: int,
    seed: int,
    first_chat: int,
    first_user: int,
    words: str = "",
) -> list[SeatedChat]:
    """``chats`` groups (ids from ``-100<first_chat>``) of ``players`` people (ids from ``first_user``, ten
    apart per chat), each with a game of ``words`` started."""
    from bot.inputs import User
    from tests.bot.harness import Harness

    seated: list[SeatedChat] = []
    for number in range(chats):
        harness = Harness(store, seed=seed + number, chat=f"-100{first_chat + number}")
        people = [(str(first_user + number * 10 + seat), NAMES[seat % len(NAMES)]) for seat in range(players)]
        chat = SeatedChat(harness, [User(uid, name) for uid, name in people], people)
        await chat.start_game(words)
        seated.append(chat)
    return seated


async def probe_lag(lags: list[float]) -> None:
    """Forever: how late a ``LAG_SLEEP`` sleep wakes (the event loop's lag), added to ``lags``."""
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        await asyncio.sleep(LAG_SLEEP)
        lags.append(loop.time() - started - LAG_SLEEP)


def tell_parent(message: dict[str, Any]) -> None:
    """One line of JSON on stdout, which the parent reads."""
    print(json.dumps(message), flush=True)


async def parent_says() -> AsyncIterator[list[str]]:
    """The words of each line the parent writes to our stdin, until it closes it."""
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        yield line.split()


# ---- the parent's side: the server process, and the people's pages --------------------------------------


@dataclass
class ServerProcess:
    process: asyncio.subprocess.Process
    info: dict[str, Any]  # the line it printed once serving (its port, what it set up)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.info['port']}"

    async def tell(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def ask(self, line: str) -> dict[str, Any]:
        """Tell it ``line``; the line of JSON it answers."""
        assert self.process.stdout is not None
        await self.tell(line)
        answer: dict[str, Any] = json.loads(await self.process.stdout.readline())
        return answer


@contextlib.asynccontextmanager
async def server_process(script: str, *argv: str) -> AsyncIterator[ServerProcess]:
    """``python script *argv`` serving, once it has said where; on leaving, its stdin closed (its cue to
    stop) and its exit awaited."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, script, *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        info = json.loads(await asyncio.wait_for(process.stdout.readline(), 300))
        yield ServerProcess(process, info)
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 30)


def client() -> aiohttp.ClientSession:
    """An HTTP client with no limit on open connections: every page holds one."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))


@dataclass
class OpenPage:
    user_id: str
    auth: str
    socket: aiohttp.ClientWebSocketResponse
    state: dict[str, Any] = field(default_factory=dict)
    arrived: dict[int, float] = field(default_factory=dict)  # version -> when this page got it


@dataclass
class Table:
    ref: str
    pages: list[OpenPage]
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    readers: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def version(self) -> int:
        return min(int(page.state.get("version", -1)) for page in self.pages)


async def page_states(socket: aiohttp.ClientWebSocketResponse) -> AsyncIterator[dict[str, Any]]:
    """The states a page's WebSocket brings, as they arrive."""
    async for message in socket:
        if message.type != aiohttp.WSMsgType.TEXT:
            continue
        data = json.loads(message.data)
        if data.get("type") == "state":
            yield data["state"]


async def read_states(table: Table, page: OpenPage) -> None:
    async for state in page_states(page.socket):
        page.state = state
        page.arrived.setdefault(int(page.state["version"]), time.perf_counter())
        async with table.changed:
            table.changed.notify_all()


def signed_in(user_id: str, name: str) -> str:
    """The Authorization a page sends: initData made by Telegram's rules, for the bench's bot token."""
    return "tma " + make_init_data(TOKEN, int(user_id), name)


async def open_page(
    http: aiohttp.ClientSession, base: str, table: Table, user_id: str, name: str
) -> OpenPage:
    auth = signed_in(user_id, name)
    socket = await http.ws_connect(f"{base}/api/ws", heartbeat=None, max_msg_size=0)
    await socket.send_json({"type": "hello", "authorization": auth, "ref": table.ref})
    return OpenPage(user_id, auth, socket)


async def until(table: Table, ready: Any, timeout: float = PAGE_WAIT) -> None:
    async with table.changed:
        await asyncio.wait_for(table.changed.wait_for(ready), timeout)


async def open_tables(http: aiohttp.ClientSession, base: str, games: list[dict[str, Any]]) -> list[Table]:
    """Every person's page of every game (``{"ref", "people"}``, as the server announced them) open and
    read, once each page has its first state."""
    tables: list[Table] = []
    for game in games:
        table = Table(game["ref"], [])
        opened = await asyncio.gather(
            *(open_page(http, base, table, uid, name) for uid, name in game["people"])
        )
        table.pages.extend(opened)
        table.readers += [asyncio.create_task(read_states(table, page)) for page in opened]
        tables.append(table)
    for table in tables:
        await until(table, lambda t=table: all(page.state for page in t.pages))
    return tables


async def close_tables(tables: list[Table]) -> None:
    for table in tables:
        for reader in table.readers:
            reader.cancel()
    await asyncio.gather(*(page.socket.close() for table in tables for page in table.pages))


async def drive(
    http: aiohttp.ClientSession, base: str, table: Table, moves: int, think: float, rng: random.Random
) -> list[float]:
    """The person to act thinks (``think`` seconds on average), presses a legal move, and every page gets
    the new state; again. Latencies (s)."""
    latencies: list[float] = []
    for _ in range(moves):
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
        acting = [page for page in table.pages if page.state.get("actions")]
        if not acting or table.pages[0].state.get("phase") != "play":
            break
        page = acting[0]
        action = rng.choice(page.state["actions"])
        before = table.version
        sent = time.perf_counter()
        async with http.post(
            f"{base}/api/press", json={"payload": action["payload"]}, headers={"Authorization": page.auth}
        ) as answer:
            body = await answer.json()
        if not body.get("ok"):
            raise RuntimeError(f"press refused: {body.get('reason')}")
        version = int(body["state"]["version"])
        await until(table, lambda version=version: table.version >= version)
        for each in table.pages:
            got = min(when for v, when in each.arrived.items() if v > before)
            latencies.append(got - sent)
    return latencies

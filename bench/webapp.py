"""The web front end under load, and the Bot API writes it saves.

    python bench/webapp.py [--pages 500] [--players 5] [--moves 12] [--writes-players 3 4] [--seed 1]
                           [--skip-pages] [--skip-writes]

1. Pages. One server process (the page's routes, `adapters/web/server.py`, over one `GameService`, a local
   redis-server) holds ``--pages`` open pages: ``pages / players`` Telegram games of ``--players`` people,
   every person with the page open on a WebSocket, signed in with initData made by Telegram's rules. This
   process drives them: in every game at once, the person to act presses a legal move through
   ``POST /api/press`` (as the page does), then waits until every page of the game has the new state, then
   the next move. Printed: move-to-every-page latency p50/p99 (from sending the press to each page's
   receiving the state), the server's resident memory before and after opening the pages (per page), and
   moves per second.
2. Bot API writes per applied move, on the fake Telegram (as bench/telegram_calls.py, whose recorded games
   and replay it reuses): one seeded game of ``--writes-players`` people, before (the app off: everyone taps
   in the chat, at human speed) and after (everyone plays in the app: the same moves through the service as
   the press endpoint sends them, with every player's page open). Writes are sendMessage, editMessageText,
   editMessageReplyMarkup and deleteMessage, for the whole game (lobby included). From them: how many such
   games one bot token can host at once under Telegram's ~30 messages a second, at the game's measured
   tempo.
3. A replay flood (``--replay-flood [--replays 40] [--replay-concurrency 4] [--replay-seconds 10]``, run
   alone). One server process (the pages' routes over a local redis-server) holds ``--replays`` archived
   4-player games of one account (~182 actions each, random legal moves); this process asks for them
   ``--replay-concurrency`` at a time for ``--replay-seconds`` as that account, while asking ``/healthz``
   every 10 ms. Printed: the answers by status, /healthz's latency and the server's event-loop lag (how late
   a 5 ms sleep wakes), idle and under the flood; first as served (the per-person limit and the replay
   cache), then cold (neither: every ask builds its replay, the worst case for the loop).
4. A page that stops reading (``--slow-page [--slow-games 10] [--slow-seconds 40] [--slow-think 0.1]``, run
   alone). One server process holds ``--slow-games`` chats of 6 people (52 cards, a new game whenever one
   ends), every person's page open and reading; the first chat moves every ``--slow-think`` seconds, the
   others ten times slower. Run twice: every page reading, then with the first chat's second player holding
   a second page that reads nothing (a raw socket with a 4 KiB receive buffer that only pings every 2 s, so
   the heartbeat never drops it; opened again whenever the server cuts it). Printed: the reading pages'
   move-to-page latency p50/p99 (the first chat's, the others'), the server's event-loop lag p99, when the
   silent pages were closed, and any chat whose moves stopped reaching its pages ("FROZEN").
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import socket
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402
import fakeredis  # noqa: E402
from telegram_calls import NAMES, TAP_EVERY, WORDS, record  # noqa: E402
from telegram_calls import play as play_in_chat  # noqa: E402

from tests.web.initdata import make_init_data  # noqa: E402

TOKEN = "7012345678:AAHbenchbenchbench_bench-bench0123"
WRITES = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage")
BOT_API_MESSAGES_PER_SECOND = 30  # Telegram's overall limit for one bot token (bots FAQ)
PAGE_WAIT = 15.0  # seconds a move may take to reach every page before the run is called broken


# ---- 1. pages: the server side (a child process) ----------------------------------------------------


async def serve(games: int, players: int, seed: int) -> None:
    """Set up the games, serve the pages, print where; stop when the parent closes our stdin."""
    from aiohttp import web

    from adapters.web.links import game_ref
    from adapters.web.server import WebFrontEnd
    from bot.context import ServiceConfig
    from bot.effects import Effect
    from bot.inputs import User
    from bot.queries import session_id
    from bot.service import GameService
    from bot.session import ChatSession
    from storage.connect import open_store
    from storage.keys import ChatRef
    from tests.bot.harness import Harness

    store, close = await open_store(None, Path(tempfile.mkdtemp(prefix="durak-bench-web-")))
    delivered = Counter[str]()

    async def deliver(platform: str, chat_id: str, effects: list[Effect]) -> None:
        delivered[platform] += len(effects)  # no chat adapter here: the pages are what is measured

    try:
        setup = []
        for number in range(games):
            chat = f"-100{700_000 + number}"
            harness = Harness(store, seed=seed + number, chat=chat)
            harness.clock = time.time()
            people = [(str(50_000 + number * 10 + seat), NAMES[seat % len(NAMES)]) for seat in range(players)]
            users = [User(uid, name) for uid, name in people]
            await harness.command(users[0], "newgame", "")
            for user in users[1:]:
                await harness.tap(user, "Join")
            await harness.tap(users[0], "Start")
            record_ = await store.load(ChatRef("tg", chat))
            assert record_.state is not None
            ref = game_ref(chat, session_id(ChatSession.decode(record_.state)))
            setup.append({"ref": ref, "people": people})
        service = GameService(store, ServiceConfig(ai_delay=0))
        front = WebFrontEnd(service, store.redis, deliver, telegram_token=TOKEN)
        runner = web.AppRunner(front.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=2048)
        await site.start()
        port = runner.addresses[0][1]
        print(json.dumps({"port": port, "games": setup}), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes it
        await runner.cleanup()
    finally:
        await close()


# ---- 1. pages: the people's side (this process) -------------------------------------------------------


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

    @property
    def version(self) -> int:
        return min(int(page.state.get("version", -1)) for page in self.pages)


def rss_kb(pid: int) -> int:
    """The process's resident memory (kB), as the kernel counts it."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """CPU time the process has used so far (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


async def open_page(
    http: aiohttp.ClientSession, base: str, table: Table, user_id: str, name: str
) -> OpenPage:
    auth = "tma " + make_init_data(TOKEN, int(user_id), name)
    socket = await http.ws_connect(f"{base}/api/ws", heartbeat=None, max_msg_size=0)
    await socket.send_json({"type": "hello", "authorization": auth, "ref": table.ref})
    return OpenPage(user_id, auth, socket)


async def until(table: Table, ready: Any, timeout: float = PAGE_WAIT) -> None:
    async with table.changed:
        await asyncio.wait_for(table.changed.wait_for(ready), timeout)


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


async def pages_run(pages: int, players: int, moves: int, think: float, seed: int) -> None:
    games = max(1, pages // players)
    server = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve", str(games), str(players), str(seed),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    try:
        line = await asyncio.wait_for(server.stdout.readline(), 300)
        info = json.loads(line)
        base = f"http://127.0.0.1:{info['port']}"
        await asyncio.sleep(0.5)
        rss_before = rss_kb(server.pid)
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:
            tables: list[Table] = []
            readers = []
            for game in info["games"]:
                table = Table(game["ref"], [])
                opened = await asyncio.gather(
                    *(open_page(http, base, table, uid, name) for uid, name in game["people"])
                )
                table.pages.extend(opened)
                readers += [asyncio.create_task(read_states(table, page)) for page in opened]
                tables.append(table)
            for table in tables:
                await until(table, lambda t=table: all(page.state for page in t.pages))
            await asyncio.sleep(1.0)
            rss_after = rss_kb(server.pid)
            open_pages = sum(len(table.pages) for table in tables)
            rng = random.Random(seed)
            started, cpu_before = time.perf_counter(), cpu_seconds(server.pid)
            results = await asyncio.gather(
                *(drive(http, base, table, moves, think, random.Random(rng.random())) for table in tables)
            )
            seconds = time.perf_counter() - started
            server_cpu = cpu_seconds(server.pid) - cpu_before
            latencies = sorted(x for result in results for x in result)
            moved = len(latencies) // players
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*(page.socket.close() for table in tables for page in table.pages))
    finally:
        server.stdin.close()
        await asyncio.wait_for(server.wait(), 30)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(
        f"pages: {open_pages} open on one server process ({games} games of {players} people, all on the app)"
    )
    print(
        f"  moves {moved} in {seconds:.1f}s ({moved / seconds:.1f}/s; a person thinks {think:g}s on average "
        f"before a move, once every page has the last one); move-to-every-page latency over "
        f"{len(latencies)} deliveries: p50 {p50:.1f} ms, p99 {p99:.1f} ms"
    )
    print(
        f"  server CPU: {server_cpu / moved * 1000:.1f} ms per move (the press, its save, and the new state built "
        f"and sent to each of the game's {players} pages): one core keeps up with ~{moved / server_cpu:.0f} "
        f"moves/s; machine load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  server memory: {rss_before / 1024:.1f} MiB before the pages, {rss_after / 1024:.1f} MiB with them: "
        f"{(rss_after - rss_before) / open_pages:.1f} KiB per open page"
    )


# ---- 3. a replay flood: one account asking for its archived replays ----------------------------------

FLOOD_CHAT = "-100800000"
FLOOD_USERS = ("9001", "9002", "9003", "9004")  # the flooding account is the first; every game seats all four
LAG_SLEEP = 0.005  # the server's loop-lag probe: how late a 5 ms sleep wakes


def flood_games(count: int, seed: int, actions: int = 182) -> list[str]:
    """``count`` archived 4-player games of ~``actions`` actions (random legal moves), as
    `bot.game.archive.archive` writes them."""
    from core import Settings, new_game

    records: list[str] = []
    settings = Settings.from_words("deck=36")
    attempt = seed
    while len(records) < count:
        attempt += 1
        game = new_game(settings, [f"P{n}" for n in range(4)], seed=attempt)
        rng = random.Random(attempt)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            game = game.apply(seat, rng.choice(game.legal_actions(seat)))
        if abs(len(game.log) - actions) > 12 or game.result is None:
            continue
        records.append(json.dumps({
            "game_id": f"f{len(records)}", "chat": f"tg:{FLOOD_CHAT}", "chat_title": "Club",
            "words": game.settings.to_words(), "players": list(game.players),
            "seats": [{"user_id": uid, "ai": None} for uid in FLOOD_USERS], "seed": game.seed, "deck": None,
            "dealer": game.dealer, "last_durak": game.last_durak, "log": [[s, c] for s, c in game.log],
            "result": {"durak": game.result.durak, "draw": game.result.draw,
                       "order_out": list(game.result.order_out)},
            "started_at": 0, "finished_at": 1,
        }, separators=(",", ":")))  # fmt: skip
    return records


async def serve_replays(count: int, seed: int, cold: bool) -> None:
    """Archive the games, serve the pages' routes, probe the loop's lag; on "mark" start counting the lag
    afresh, on "report" print it; stop when the parent closes our stdin. ``cold``: no replay cache and no
    per-user limit, so every ask builds its replay (the worst case)."""
    from aiohttp import web

    from adapters.web.server import WebFrontEnd
    from bot.runtime.ratelimit import PressLimiter
    from bot.service import GameService
    from storage.connect import open_store
    from storage.keys import archive_key

    store, close = await open_store(None, Path(tempfile.mkdtemp(prefix="durak-bench-replays-")))
    lags: list[float] = []
    loop = asyncio.get_running_loop()

    async def probe() -> None:
        while True:
            started = loop.time()
            await asyncio.sleep(LAG_SLEEP)
            lags.append(loop.time() - started - LAG_SLEEP)

    async def nothing(platform: str, chat_id: str, effects: list[Any]) -> None:
        pass

    try:
        records = flood_games(count, seed)
        for record_ in records:
            await store.redis.set(archive_key(json.loads(record_)["game_id"]), record_, ex=3600)
        options: dict[str, Any] = {}
        if cold:
            options = {"replay_cache_bytes": 0, "replay_limiter": PressLimiter(1e9, 1e9)}
        front = WebFrontEnd(GameService(store), store.redis, nothing, telegram_token=TOKEN, **options)
        runner = web.AppRunner(front.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        actions = statistics.mean(len(json.loads(r)["log"]) for r in records)
        print(json.dumps({"port": runner.addresses[0][1], "actions": actions}), flush=True)
        prober = asyncio.create_task(probe())
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            if line.strip() == "mark":
                lags.clear()
            elif line.strip() == "report":
                print(json.dumps({"lags": lags}), flush=True)
        prober.cancel()
        await runner.cleanup()
    finally:
        await close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


async def replay_flood_run(count: int, concurrency: int, seconds: float, seed: int, cold: bool) -> None:
    """One account asks for its ``count`` replays, ``concurrency`` at a time for ``seconds``, while
    ``/healthz`` is asked every 10 ms; printed: the answers, /healthz's latency and the server's loop lag,
    idle and under the flood."""
    server = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve-replays", str(count), str(seed), "1" if cold else "0",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    statuses: Counter[int] = Counter()
    sizes: list[int] = []
    answers: list[float] = []
    try:
        info = json.loads(await asyncio.wait_for(server.stdout.readline(), 300))
        base = f"http://127.0.0.1:{info['port']}"
        auth = "tma " + make_init_data(TOKEN, int(FLOOD_USERS[0]), "Flo")
        refs = [f"{FLOOD_CHAT}_f{n}-replay" for n in range(count)]

        async def lag_report() -> list[float]:
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(b"report\n")
            await server.stdin.drain()
            lags: list[float] = json.loads(await server.stdout.readline())["lags"]
            return lags

        async def healthz(http: aiohttp.ClientSession, until: float) -> list[float]:
            took: list[float] = []
            while time.perf_counter() < until:
                sent = time.perf_counter()
                async with http.get(f"{base}/healthz") as answer:
                    await answer.read()
                took.append(time.perf_counter() - sent)
                await asyncio.sleep(0.01)
            return took

        async def flood(http: aiohttp.ClientSession, until: float, worker: int) -> None:
            asked = worker
            while time.perf_counter() < until:
                sent = time.perf_counter()
                params = {"ref": refs[asked % count]}
                async with http.get(
                    f"{base}/api/replay", params=params, headers={"Authorization": auth}
                ) as a:
                    body = await a.read()
                answers.append(time.perf_counter() - sent)
                statuses[a.status] += 1
                if a.status == 200:
                    sizes.append(len(body))
                asked += concurrency

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            server.stdin.write(b"mark\n")
            idle_health = await healthz(http, time.perf_counter() + 2.0)
            idle_lags = await lag_report()
            server.stdin.write(b"mark\n")
            until = time.perf_counter() + seconds
            probing = asyncio.create_task(healthz(http, until))
            await asyncio.gather(*(flood(http, until, n) for n in range(concurrency)))
            flood_health = await probing
            flood_lags = await lag_report()
    finally:
        server.stdin.close()
        await asyncio.wait_for(server.wait(), 30)

    def ms(values: list[float], share: float) -> str:
        return f"{percentile(values, share) * 1000:.1f}"

    mode = "cold: no replay cache, no per-user limit" if cold else "as served"
    print(
        f"replay flood ({mode}): one account, {count} archived games of {info['actions']:.0f} actions on average "
        f"(replay JSON {statistics.mean(sizes or [0]) / 1024:.0f} KiB), {concurrency} at a time for {seconds:g} s"
    )
    answered = ", ".join(f"{status}: {n}" for status, n in sorted(statuses.items()))
    print(f"  replays asked {sum(statuses.values())} ({answered}); answer p50 {ms(answers, 0.5)} ms, "
          f"p99 {ms(answers, 0.99)} ms")  # fmt: skip
    print(f"  /healthz idle p99 {ms(idle_health, 0.99)} ms; under the flood p50 {ms(flood_health, 0.5)} ms, "
          f"p99 {ms(flood_health, 0.99)} ms, max {ms(flood_health, 1.0)} ms")  # fmt: skip
    print(f"  event loop lag (a {LAG_SLEEP * 1000:g} ms sleep's overshoot) idle p99 {ms(idle_lags, 0.99)} ms; "
          f"under the flood p99 {ms(flood_lags, 0.99)} ms, max {ms(flood_lags, 1.0)} ms (target: p99 < 20 ms)")  # fmt: skip


# ---- 4. a page that stops reading, in a chat with pages that read ----------------------------------------

SLOW_WORDS = "deck=52"  # long games: many states for the silent page to fall behind on
SILENT_PING_EVERY = 2.0  # seconds between the silent page's pings (it sends, so no heartbeat drops it)


async def serve_slow_pages(games: int, players: int, seed: int) -> None:
    """Start the games, serve the pages, probe the loop's lag and note each page closed for lagging; on
    "mark" count afresh, on "report" print both, on "again <n>" start a new game in game n's chat (its
    pages follow: everyone is seated again); stop when the parent closes our stdin."""
    import logging

    from aiohttp import web

    from adapters.web.links import game_ref
    from adapters.web.server import WebFrontEnd
    from bot.inputs import User
    from bot.queries import session_id
    from bot.service import GameService
    from bot.session import ChatSession
    from storage.connect import open_store
    from storage.keys import ChatRef
    from tests.bot.harness import Harness

    store, close = await open_store(None, Path(tempfile.mkdtemp(prefix="durak-bench-slow-")))
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    dropped: list[float] = []  # when pages were closed for not reading (the hub logs each)

    class Dropped(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "did not read" in record.getMessage():
                dropped.append(time.time())

    logging.getLogger("durak.web").addHandler(Dropped(logging.INFO))
    logging.getLogger("durak.web").setLevel(logging.INFO)

    async def probe() -> None:
        while True:
            started = loop.time()
            await asyncio.sleep(LAG_SLEEP)
            lags.append(loop.time() - started - LAG_SLEEP)

    async def nothing(platform: str, chat_id: str, effects: list[Any]) -> None:
        pass

    async def start_game(harness: Harness, users: list[User]) -> str:
        harness.clock = time.time()
        await harness.command(users[0], "newgame", SLOW_WORDS)
        for user in users[1:]:
            await harness.tap(user, "Join")
        await harness.tap(users[0], "Start")
        record_ = await store.load(ChatRef("tg", harness.chat))
        assert record_.state is not None
        return game_ref(harness.chat, session_id(ChatSession.decode(record_.state)))

    try:
        tables: list[tuple[Harness, list[User]]] = []
        setup = []
        for number in range(games):
            harness = Harness(store, seed=seed + number, chat=f"-100{900_000 + number}")
            people = [(str(60_000 + number * 10 + seat), NAMES[seat % len(NAMES)]) for seat in range(players)]
            users = [User(uid, name) for uid, name in people]
            setup.append({"ref": await start_game(harness, users), "people": people})
            tables.append((harness, users))
        front = WebFrontEnd(GameService(store), store.redis, nothing, telegram_token=TOKEN)
        runner = web.AppRunner(front.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=2048)
        await site.start()
        print(json.dumps({"port": runner.addresses[0][1], "games": setup}), flush=True)
        prober = asyncio.create_task(probe())
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            said = line.split()
            if said == ["mark"]:
                lags.clear()
                dropped.clear()
            elif said == ["report"]:
                summary = {
                    "p99": percentile(lags, 0.99),
                    "max": percentile(lags, 1.0),
                }  # a line of a few bytes
                print(json.dumps({"lags": summary, "dropped": dropped}), flush=True)
            elif len(said) == 2 and said[0] == "again":
                await start_game(*tables[int(said[1])])
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
    server = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve-slow", str(games), str(players), str(seed),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    stdin, stdout = server.stdin, server.stdout
    first_chat: list[float] = []
    other_chats: list[float] = []
    silent_pages: list[SilentSocket] = []
    stalled: list[float] = []  # when a chat's reading pages stopped getting its moves
    started = time.time()

    async def command(line: str) -> None:
        stdin.write(line.encode() + b"\n")
        await stdin.drain()

    async def keep_moving(
        http: aiohttp.ClientSession, base: str, number: int, table: Table, pace: float
    ) -> None:
        rng = random.Random(seed + number)
        until_ = time.perf_counter() + seconds
        latencies = first_chat if number == 0 else other_chats
        while time.perf_counter() < until_:
            if table.pages[0].state.get("phase") != "play":  # over: the chat starts the next game
                version = table.version
                await command(f"again {number}")
                await until(
                    table, lambda v=version: table.version > v and table.pages[0].state.get("phase") == "play"
                )
            try:
                latencies += await drive(http, base, table, 1, pace, rng)
            except TimeoutError:  # a move did not reach every reading page in PAGE_WAIT: the chat is frozen
                stalled.append(time.time())
                return

    try:
        info = json.loads(await asyncio.wait_for(stdout.readline(), 300))
        base = f"http://127.0.0.1:{info['port']}"
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            tables: list[Table] = []
            readers = []
            for game in info["games"]:
                table = Table(game["ref"], [])
                opened = await asyncio.gather(
                    *(open_page(http, base, table, uid, name) for uid, name in game["people"])
                )
                table.pages.extend(opened)
                readers += [asyncio.create_task(read_states(table, page)) for page in opened]
                tables.append(table)
            for table in tables:
                await until(table, lambda t=table: all(page.state for page in t.pages))
            uid, name = info["games"][0]["people"][1]
            hello = {"type": "hello", "authorization": "tma " + make_init_data(TOKEN, int(uid), name)}

            async def keep_silent() -> None:  # a silent page there all along: again once one is cut
                while True:
                    silent_pages.append(await SilentSocket.open(info["port"], hello | {"ref": tables[0].ref}))
                    assert silent_pages[-1].pinger is not None
                    await silent_pages[-1].pinger  # ends when a ping fails: the server cut the connection
                    silent_pages[-1].close()

            await command("mark")
            started = time.time()
            silencer = asyncio.create_task(keep_silent()) if silent else None
            await asyncio.gather(
                *(
                    keep_moving(http, base, n, table, think if n == 0 else think * 10)
                    for n, table in enumerate(tables)
                )
            )
            if silencer is not None:
                silencer.cancel()
            await command("report")
            report = json.loads(await stdout.readline())
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*(page.socket.close() for table in tables for page in table.pages))
    finally:
        for silent_page in silent_pages:
            silent_page.close()
        stdin.close()
        await asyncio.wait_for(server.wait(), 30)

    def ms(values: list[float], share: float) -> str:
        return f"{percentile(values, share) * 1000:.1f}"

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


# ---- 2. Bot API writes per applied move ------------------------------------------------------------------


class EveryoneOnApp:
    """Every seated person has the page open (`GameService.on_app`)."""

    def __init__(self, user_ids: set[str]) -> None:
        self.user_ids = user_ids

    async def __call__(self, chat: object) -> set[str]:
        return self.user_ids


@dataclass
class Writes:
    mode: str
    actions: int
    calls: Counter[str]
    virtual_seconds: float

    @property
    def writes(self) -> int:
        return sum(self.calls[method] for method in WRITES)

    @property
    def per_move(self) -> float:
        return self.writes / self.actions

    @property
    def moves_per_minute(self) -> float:
        return self.actions / (self.virtual_seconds / 60)


async def play_in_app(players: int, speed: float, seed: int) -> Writes:
    """The recorded game again, the lobby in the chat, every move from the app (the service, then the chat's
    adapter, as the press endpoint does) at the same human pace, with everyone's page open."""
    from adapters.telegram.miniapp import MiniApp
    from bot.buttons import named
    from bot.context import ServiceConfig
    from bot.inputs import Press, User
    from bot.payloads import Payload
    from bot.session import Playing
    from tests.fakes.telegram_api import FakeTelegram
    from tests.telegram.world import World

    log = record(players, seed)
    fake = FakeTelegram()
    await fake.start()
    redis = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    config = ServiceConfig(ai_delay=0, app_platforms=frozenset({"tg"}))
    world = World(fake, redis, speed=speed, seed=seed, service_config=config, virtual_time=True)
    world.bot.delivery.mini_app = MiniApp("https://durak.example.net/app", "table")
    try:
        await world.start()
        people = [world.person(name) for name in NAMES[:players]]
        world.service.on_app = EveryoneOnApp({str(person.id) for person in people})
        group = fake.add_group("Durak club", people, owner=people[0])
        await world.settle()
        fake.calls.clear()
        started_at = fake.clock.now()
        await world.say(group, people[0], f"/newgame {WORDS}")
        lobby = world.newest(group, "New game")
        for person in people[1:]:
            await world.tap(group, lobby, person, "Join")
        await world.tap(group, lobby, people[0], "Start")
        session = await world.session(group)
        assert session is not None and isinstance(session.header, Playing)
        game_id, next_tap = session.header.game_id, fake.clock.now()
        for step, (seat, code) in enumerate(log):
            next_tap += TAP_EVERY
            await fake.clock.sleep(next_tap - fake.clock.now())
            person = people[seat]
            payload = Payload(str(group.id), game_id, step, named(code)).encode()
            effects = await world.service.handle(
                Press("tg", User(str(person.id), person.first_name), payload)
            )
            world.bot.delivery.submit(effects)
        await world.settle(30)
        assert "Game over" in world.newest(group).text
        fake.assert_no_bad_requests()
        return Writes("app", len(log), Counter(fake.calls), fake.clock.now() - started_at)
    finally:
        await world.stop()
        await fake.close()
        await redis.aclose()


async def writes_run(players: int, speed: float, seed: int) -> None:
    from bot.context import ServiceConfig

    chat = await play_in_chat(players, "human", speed, seed, ServiceConfig.announce_after)
    before = Writes("chat", chat.actions, chat.calls, chat.virtual_seconds)
    after = await play_in_app(players, speed, seed)
    print(f"Bot API message writes ({', '.join(WRITES)}), one {players}-player game, lobby included:")
    for run in (before, after):
        calls = " ".join(f"{method} {run.calls[method]}" for method in WRITES)
        print(
            f"  {'app off (chat)' if run.mode == 'chat' else 'everyone on the app':<20} {run.actions} moves, "
            f"{run.writes} writes ({calls}): {run.per_move:.2f} per move"
        )
    tempo = before.moves_per_minute
    print(
        f"games one bot token can host at {BOT_API_MESSAGES_PER_SECOND} messages/s, at {tempo:.0f} moves a minute:"
    )
    for run in (before, after):
        per_game = run.per_move * tempo / 60  # writes a second per game
        label = "app off (chat)" if run.mode == "chat" else "everyone on the app"
        print(
            f"  {label:<20} {BOT_API_MESSAGES_PER_SECOND / per_game:.0f} games ({per_game:.2f} writes/s per game)"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--players", type=int, default=5, help="people per game in the pages run (2-6)")
    parser.add_argument("--moves", type=int, default=10, help="moves per game in the pages run")
    parser.add_argument(
        "--think",
        type=float,
        default=3.0,
        help="seconds a person thinks before a move, on average (0: flat out)",
    )
    parser.add_argument("--writes-players", type=int, nargs="+", default=[3, 4])
    parser.add_argument(
        "--speed", type=float, default=20.0, help="virtual seconds per real second (writes run)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-pages", action="store_true")
    parser.add_argument("--skip-writes", action="store_true")
    parser.add_argument(
        "--replay-flood", action="store_true", help="run only the replay flood (as served, then cold)"
    )
    parser.add_argument("--replays", type=int, default=40, help="archived games of the flooding account")
    parser.add_argument("--replay-concurrency", type=int, default=4)
    parser.add_argument("--replay-seconds", type=float, default=10.0)
    parser.add_argument(
        "--slow-page",
        action="store_true",
        help="run only the slow-page run (every page reading, then one not)",
    )
    parser.add_argument("--slow-games", type=int, default=10, help="chats in the slow-page run")
    parser.add_argument("--slow-seconds", type=float, default=40.0)
    parser.add_argument(
        "--slow-think", type=float, default=0.1, help="seconds between the first chat's moves"
    )
    args = parser.parse_args()
    if args.slow_page:
        for silent in (False, True):
            await slow_page_run(args.slow_games, 6, args.slow_seconds, args.slow_think, args.seed, silent)
        return
    if args.replay_flood:
        for cold in (False, True):
            await replay_flood_run(
                args.replays, args.replay_concurrency, args.replay_seconds, args.seed, cold
            )
        return
    if not args.skip_pages:
        await pages_run(args.pages, args.players, args.moves, args.think, args.seed)
    if not args.skip_writes:
        for players in args.writes_players:
            await writes_run(players, args.speed, args.seed)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        os.environ.setdefault("PYTHONHASHSEED", "0")
        asyncio.run(serve(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
    elif len(sys.argv) == 5 and sys.argv[1] == "--serve-slow":
        asyncio.run(serve_slow_pages(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
    elif len(sys.argv) == 5 and sys.argv[1] == "--serve-replays":
        asyncio.run(serve_replays(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"))
    else:
        asyncio.run(main())

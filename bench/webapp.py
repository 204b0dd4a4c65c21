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
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
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
    from adapters.web.state import session_id
    from bot.context import ServiceConfig
    from bot.effects import Effect
    from bot.inputs import User
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


async def read_states(table: Table, page: OpenPage) -> None:
    async for message in page.socket:
        if message.type != aiohttp.WSMsgType.TEXT:
            continue
        data = json.loads(message.data)
        if data.get("type") != "state":
            continue
        page.state = data["state"]
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
            payload = Payload(str(group.id), game_id, step, code).encode()
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
    args = parser.parse_args()
    if not args.skip_pages:
        await pages_run(args.pages, args.players, args.moves, args.think, args.seed)
    if not args.skip_writes:
        for players in args.writes_players:
            await writes_run(players, args.speed, args.seed)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        os.environ.setdefault("PYTHONHASHSEED", "0")
        asyncio.run(serve(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
    else:
        asyncio.run(main())

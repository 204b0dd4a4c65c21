"""The web front end under load, and the Bot API writes it saves.

    python bench/webapp.py [--pages 500] [--players 5] [--moves 12] [--writes-players 3 4] [--seed 1]
                           [--skip-pages] [--skip-writes]
    python bench/webapp.py --replay-flood [--replays 40] [--replay-concurrency 4] [--replay-seconds 10]
    python bench/webapp.py --slow-page [--slow-games 10] [--slow-seconds 40] [--slow-think 0.1]

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
3. A replay flood (``--replay-flood``, run alone): one account asking for its archived replays while
   ``/healthz`` is asked, as served and cold. bench/webapp_replays.py, which runs it on its own too, says
   what it measures.
4. A page that stops reading (``--slow-page``, run alone): chats whose pages read, one with a page that
   reads nothing. bench/webapp_slow_pages.py, which runs it on its own too, says what it measures.

What the runs share (the server process, the pages, the percentiles) is in bench/web_common.py.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fakeredis  # noqa: E402
import webapp_replays  # noqa: E402
import webapp_slow_pages  # noqa: E402
from telegram_calls import NAMES, TAP_EVERY, WORDS, record  # noqa: E402
from telegram_calls import play as play_in_chat  # noqa: E402
from web_common import (  # noqa: E402
    Table,
    bench_store,
    client,
    close_tables,
    drive,
    listen,
    open_tables,
    parent_says,
    percentile,
    seat_chats,
    server_process,
    tell_parent,
)

WRITES = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage")
BOT_API_MESSAGES_PER_SECOND = 30  # Telegram's overall limit for one bot token (bots FAQ)


# ---- 1. pages: the server side (a child process) ----------------------------------------------------


async def serve(games: int, players: int, seed: int) -> None:
    """Set up the games, serve the pages, print where; stop when the parent closes our stdin."""
    from bot.context import ServiceConfig
    from bot.effects import Effect
    from bot.service import GameService

    store, close = await bench_store("durak-bench-web-")
    delivered = Counter[str]()

    async def deliver(platform: str, chat_id: str, effects: list[Effect]) -> None:
        delivered[platform] += len(effects)  # no chat adapter here: the pages are what is measured

    try:
        chats = await seat_chats(store, games, players, seed, 700_000, 50_000)
        service = GameService(store, ServiceConfig(ai_delay=0))
        runner, port = await listen(store, service=service, deliver=deliver, backlog=2048)
        tell_parent({"port": port, "games": [chat.announced() for chat in chats]})
        async for _ in parent_says():  # until the parent closes our stdin
            pass
        await runner.cleanup()
    finally:
        await close()


# ---- 1. pages: the people's side (this process) -------------------------------------------------------


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


async def pages_run(pages: int, players: int, moves: int, think: float, seed: int) -> None:
    games = max(1, pages // players)
    async with server_process(__file__, "--serve", str(games), str(players), str(seed)) as server:
        pid, base = server.process.pid, server.base
        await asyncio.sleep(0.5)
        rss_before = rss_kb(pid)
        async with client() as http:
            tables: list[Table] = await open_tables(http, base, server.info["games"])
            await asyncio.sleep(1.0)
            rss_after = rss_kb(pid)
            open_pages = sum(len(table.pages) for table in tables)
            rng = random.Random(seed)
            started, cpu_before = time.perf_counter(), cpu_seconds(pid)
            results = await asyncio.gather(
                *(drive(http, base, table, moves, think, random.Random(rng.random())) for table in tables)
            )
            seconds = time.perf_counter() - started
            server_cpu = cpu_seconds(pid) - cpu_before
            latencies = sorted(x for result in results for x in result)
            moved = len(latencies) // players
            await close_tables(tables)
    p50 = statistics.median(latencies) * 1000
    p99 = percentile(latencies, 0.99) * 1000
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
        "--replay-flood",
        action="store_true",
        help="run only the replay flood (as served, then cold): bench/webapp_replays.py",
    )
    webapp_replays.add_options(parser)
    parser.add_argument(
        "--slow-page",
        action="store_true",
        help="run only the slow-page run (every page reading, then one not): bench/webapp_slow_pages.py",
    )
    webapp_slow_pages.add_options(parser)
    args = parser.parse_args()
    if args.slow_page:
        await webapp_slow_pages.run(args)
        return
    if args.replay_flood:
        await webapp_replays.run(args)
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
    else:
        asyncio.run(main())

"""Many games at once on one bot token, at human pace, through the fake Telegram with its limits on.

    python bench/telegram_scale.py [--games 10 25 50] [--processes 1 2] [--app] [--seconds 45]
                                   [--warmup 5] [--players 4] [--speed 1] [--seed 1]
                                   [--ramp 0]

For each number of games N and each number of bot processes (1, 2): a local redis-server, the fake Bot API
(tests/fakes/telegram_api.py) enforcing Telegram's limits (30 messages a second overall, 20 a minute per
group, 429 with retry_after beyond), and the bot processes serving the webhook behind a round-robin proxy
(tests/scale/cluster.py), as in production behind a load balancer. N groups of ``--players`` people each:
the first opens a lobby with /newgame, the others join through the lobby's deep link, the first starts; a
game that ends is started again the same way. Every seat is a simulated person: when their screen shows move
buttons they think 2-8 s (uniform, seeded), then tap a random legal move of what is on screen then.

Chat play: the moves are the buttons of each person's hand in their private chat. Mini App play
(``--app``): every person has the game's page open (a WebSocket to one of the processes, as pages spread
over a balancer), and presses through the page's ``POST /api/press`` (through the proxy), as
bench/webapp.py's people do; the chat gets the group's table and what the app does not replace.

People start playing once every game was dealt and the bot has sent what that queued (setting up N lobbies
at once is its own burst, not steady play: at 300 games its replies would still be going out during the
window; "setup s" is how long it took). ``--ramp`` opens the lobbies spread over that many seconds, as
groups do, instead of all in the same second (each lobby costs about 12 messages of the token's 30 a
second), and each game is played as soon as it is dealt; the window opens ``--warmup`` seconds after the
last was. Measured over a window of ``--seconds`` that opens ``--warmup``
seconds after that; people stop at its end, the bot is given
time to deliver what is queued, then the screens are judged. Printed per N and process count:

- writes/move: sendMessage + editMessageText + deleteMessage that Telegram accepted in the window, over the
  moves applied in it (lobbies of restarted games included);
- 429: refusals for flood in the window (and over the whole run, setup included);
- next p50/p95: from a press to the next actor's buttons on screen: for every private chat (chat play) or
  page (app) that shows move buttons for the following step, when the fake stored the message version (or
  the page got the state) showing them;
- table p95: from a press to the group's table showing that step or a later one (its "My hand" link
  carries the step);
- stale: screens left at the end showing an older step than one already delivered to that chat for the
  same game (a hand or table edit overtaken by an older one, an announced hand's old copy not removed).
- not mod: edits Telegram answered "message is not modified" over the run (the bot should provoke none);
- 2live: private chats left at the end with more than one message showing buttons to press (one live hand
  a person).

Times are Telegram (virtual) seconds: the fake's clock, which the bot processes pace by, runs ``--speed``
times real time (1: real time, the default and what the documented figures use). The last line gives the
largest N per token whose next-actor p95 is under 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp  # noqa: E402
from scale_figures import (  # noqa: E402
    TARGET,
    WRITES,
    Key,
    Press,
    Result,
    hand_step,
    largest,
    not_modified,
    print_row,
    several_live_hands,
    stale_screens,
    table_step,
)
from telegram_calls import NAMES, WORDS  # noqa: E402
from web_common import page_states  # noqa: E402

from adapters.web.links import game_ref  # noqa: E402
from bot.payloads import parse  # noqa: E402
from bot.queries import session_id  # noqa: E402
from bot.session import ChatSession, Playing  # noqa: E402
from storage import ChatRef
from storage.connect import client_for_url  # noqa: E402
from storage.embedded import RedisServer  # noqa: E402
from storage.store import RedisGameStore  # noqa: E402
from tests.fakes.telegram_api import FakeTelegram  # noqa: E402
from tests.fakes.telegram_model import Clock, FakeChat, FakeUser, StoredMessage  # noqa: E402
from tests.scale.cluster import BotExited, Cluster, webhook_bots  # noqa: E402
from tests.web.initdata import make_init_data  # noqa: E402

THINK = (2.0, 8.0)  # seconds a person thinks once their buttons are on screen
APP_URL = "https://durak.example.net/app"
SETUP_LIMIT = (
    120.0  # real seconds for each step of a lobby (and N more for all): a game not dealt is left out
)
SETTLE_QUIET = 3.0  # real seconds without a write: the bot has delivered what was queued
SETTLE_LIMIT = 30.0


@dataclass
class Page:
    """One person's open Mini App page on the current game."""

    auth: str
    socket: aiohttp.ClientWebSocketResponse
    game_id: str
    state: dict[str, Any] = field(default_factory=dict)
    reader: asyncio.Task[None] | None = None


@dataclass
class Table:
    group: FakeChat
    seats: list[FakeUser]
    over: asyncio.Event = field(default_factory=asyncio.Event)
    dealt: asyncio.Event = field(default_factory=asyncio.Event)
    games: int = 0


class Scale:
    """The people of N games and what the fake saw of them."""

    def __init__(
        self,
        fake: FakeTelegram,
        cluster: Cluster,
        store: RedisGameStore,
        http: aiohttp.ClientSession,
        players: int,
        app: bool,
        seed: int,
    ) -> None:
        self.fake, self.cluster, self.store, self.http = fake, cluster, store, http
        self.players, self.app = players, app
        self.rng = random.Random(seed)
        self.running = True
        self.playing = asyncio.Event()  # set once every game was dealt: people play from then on
        self.ramp = 0.0  # lobbies opening over this many seconds: each table plays once it is dealt
        self.tables: dict[int, Table] = {}
        self.changed: dict[int, asyncio.Event] = defaultdict(asyncio.Event)  # user id -> screen changed
        self.pages: dict[int, Page] = {}  # user id -> page (app play)
        self.shown: dict[Key, dict[int, float]] = defaultdict(dict)  # app: (game, step) -> user -> when
        self.group_of: dict[int, int] = {}  # user id -> their group
        self.presses: list[Press] = []
        self.refused = 0
        self.stuck: list[str] = []  # why games were left out
        self.tasks: list[asyncio.Task[None]] = []
        self.last_write = time.monotonic()
        self.app_base = ""
        fake.watchers.append(self.wrote)

    def wrote(self, message: StoredMessage) -> None:
        self.last_write = time.monotonic()
        chat = self.fake.chats[message.chat_id]
        if chat.is_group:
            table = self.tables.get(chat.id)
            if table is not None and "Game over" in message.text:
                table.over.set()
        else:
            self.changed[chat.id].set()

    # ---- setting up and restarting games --------------------------------------------------------------
    def add_games(self, count: int, ramp: float = 0.0) -> None:
        """``count`` groups of people; their lobbies open spread evenly over ``ramp`` virtual seconds."""
        self.ramp = ramp
        for number in range(count):
            seats = [
                self.fake.add_user(NAMES[seat % len(NAMES)], username=f"p{number}_{seat}")
                for seat in range(self.players)
            ]
            group = self.fake.add_group(f"Durak club {number}", seats, owner=seats[0])
            self.fake.user_starts(seats[0])
            table = Table(group, seats)
            self.group_of.update((user.id, group.id) for user in seats)
            self.tables[group.id] = table
            self.tasks.append(asyncio.create_task(self.host(table, ramp * number / count)))
            for user in seats:
                rng = random.Random(self.rng.random())
                self.tasks.append(asyncio.create_task(self.person(table, user, rng)))

    async def until(self, ready: Any, what: Any, limit: float = SETUP_LIMIT) -> Any:
        """Poll ``ready()`` until it is true; ``what()`` says what was awaited, when it never was."""
        deadline = time.monotonic() + limit
        while not (found := ready()):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what()}")
            await asyncio.sleep(0.1)
        return found

    def newest(self, chat: FakeChat, since: int, containing: str) -> StoredMessage | None:
        for message_id in range(chat.next_message_id - 1, since - 1, -1):
            message = chat.messages.get(message_id)
            if message is not None and message.from_bot and containing in message.text:
                return message
        return None

    async def host(self, table: Table, after: float = 0.0) -> None:
        """Deal a game in the chat (the first ``after`` virtual seconds from now); when it is over, again."""
        await self.fake.clock.sleep(after)
        while self.running:
            session = await self.deal(table)
            table.over.clear()
            if self.app:
                await self.open_pages(table, session)
            table.games += 1
            table.dealt.set()
            await table.over.wait()
            await self.fake.clock.sleep(self.rng.uniform(*THINK))

    async def deal(self, table: Table) -> ChatSession:
        """/newgame, the others join by the lobby's deep link, the first starts: the dealt session."""
        group, owner = table.group, table.seats[0]
        since = group.next_message_id
        self.fake.user_sends(group, owner, f"/newgame {WORDS}")
        lobby = await self.until(
            lambda: self.newest(group, since, "New game"), lambda: f"a lobby in {group.id}"
        )
        for user in table.seats[1:]:
            self.fake.press_button(group, lobby.message_id, user, "Join")
        everyone = f"{self.players} players"
        await self.until(
            lambda: everyone in lobby.text,
            lambda: f"everyone seated in {group.id} (the lobby ends {lobby.text[-60:]!r})",
        )
        self.fake.press_button(group, lobby.message_id, owner, "Start")
        deadline = time.monotonic() + SETUP_LIMIT
        while time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            record = await self.store.load(ChatRef("tg", str(group.id)))
            session = ChatSession.decode(record.state) if record.state else None
            if session is not None and isinstance(session.header, Playing):
                return session
        raise AssertionError(f"the game in {group.id} was not dealt")

    # ---- chat play ------------------------------------------------------------------------------------
    def hand(self, user: FakeUser) -> StoredMessage | None:
        """The newest message of the person's private chat showing move buttons."""
        chat = self.fake.chats[user.id]
        for message_id in range(chat.next_message_id - 1, 0, -1):
            message = chat.messages.get(message_id)
            if message is not None and not message.deleted and hand_step(message.current) is not None:
                return message
        return None

    def hand_offered(self, user: FakeUser) -> tuple[StoredMessage, Key] | None:
        hand = self.hand(user)
        if hand is None:
            return None
        key = hand_step(hand.current)
        return (hand, key) if key is not None else None

    async def press_hand(self, user: FakeUser, hand: StoredMessage, rng: random.Random) -> None:
        """Tap a move of what is on screen, and wait for the press's answer."""
        moves = [b["callback_data"] for b in hand.buttons() if parse(b.get("callback_data", ""))]
        moves = [data for data in moves if data.rsplit("|", 1)[1][:1].islower()]
        query_id = self.fake.user_presses(user, hand.message_id, user, rng.choice(moves))
        with contextlib.suppress(AssertionError):
            await self.until(lambda: query_id in self.fake.callback_answers, lambda: "an answer", 10.0)

    async def person(self, table: Table, user: FakeUser, rng: random.Random) -> None:
        """Once moves are on screen, think, then tap one of those on screen then; again."""
        look: Any = self.page_offered if self.app else self.hand_offered
        press: Any = self.press_page if self.app else self.press_hand
        await (table.dealt if self.ramp else self.playing).wait()
        changed, last = self.changed[user.id], None
        while self.running:
            changed.clear()
            seen = look(user)
            if seen is None or seen[1] == last:
                await changed.wait()
                continue
            await self.fake.clock.sleep(rng.uniform(*THINK))
            seen = look(user)  # what is on screen now
            if not self.running or seen is None or seen[1] == last:
                continue
            screen, last = seen
            self.presses.append(Press(table.group.id, last[0], last[1], self.fake.clock.now()))
            await press(user, screen, rng)

    # ---- Mini App play ------------------------------------------------------------------------------
    async def open_pages(self, table: Table, session: ChatSession) -> None:
        assert isinstance(session.header, Playing)
        ref = game_ref(str(table.group.id), session_id(session))
        for number, user in enumerate(table.seats):
            old = self.pages.pop(user.id, None)
            if old is not None:
                await old.socket.close()
            port = self.cluster.ports[(table.group.id + number) % len(self.cluster.ports)]
            auth = "tma " + make_init_data(self.fake.token, user.id, user.first_name)
            socket = await self.http.ws_connect(
                f"http://127.0.0.1:{port}/app/api/ws", heartbeat=None, max_msg_size=0
            )
            await socket.send_json({"type": "hello", "authorization": auth, "ref": ref})
            page = Page(auth, socket, session.header.game_id)
            page.reader = asyncio.create_task(self.read_page(user, page))
            self.pages[user.id] = page

    async def read_page(self, user: FakeUser, page: Page) -> None:
        async for state in page_states(page.socket):
            page.state = state
            if page.state.get("actions"):
                key = (page.game_id, int(page.state["step"]))
                self.shown[key].setdefault(user.id, self.fake.clock.now())
            self.changed[user.id].set()

    def page_offered(self, user: FakeUser) -> tuple[Page, Key] | None:
        page = self.pages.get(user.id)
        if page is None or not page.state.get("actions") or page.state.get("phase") != "play":
            return None
        return page, (page.game_id, int(page.state["step"]))

    async def press_page(self, user: FakeUser, page: Page, rng: random.Random) -> None:
        action = rng.choice(page.state["actions"])
        async with self.http.post(
            f"{self.cluster.proxy_url}/app/api/press",
            json={"payload": action["payload"]},
            headers={"Authorization": page.auth},
        ) as answer:
            body = await answer.json(content_type=None)
        if not body.get("ok"):
            self.refused += 1

    async def stop(self) -> None:
        self.running = False
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for page in self.pages.values():
            if page.reader is not None:
                page.reader.cancel()
            await page.socket.close()

    async def settle(self) -> None:
        """Until the bot has written nothing for a while: what was queued is delivered."""
        begin = time.monotonic()
        while time.monotonic() - self.last_write < SETTLE_QUIET and time.monotonic() - begin < SETTLE_LIMIT:
            await asyncio.sleep(0.2)

    # ---- the figures ----------------------------------------------------------------------------------
    def first_shown(self) -> tuple[dict[Key, dict[int, float]], dict[str, list[tuple[int, float]]]]:
        """When each (game, step) first showed moves, per private chat (or page); per game, the table's
        versions (step, when)."""
        hands: dict[Key, dict[int, float]] = defaultdict(dict)
        tables: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for chat in self.fake.chats.values():
            for message in chat.messages.values():
                if not message.from_bot:
                    continue
                for version in message.versions:
                    if chat.is_group:
                        if (key := table_step(version)) is not None:
                            tables[key[0]].append((key[1], version.at))
                    elif (key := hand_step(version)) is not None:
                        hands[key].setdefault(chat.id, version.at)
        return (self.shown if self.app else hands), tables


async def measure(*args: Any, **options: Any) -> Result:
    """`measure_once`, started again if a bot process could not start (its free port taken meanwhile)."""
    for attempt in range(3):
        try:
            return await measure_once(*args, **options)
        except BotExited:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def measure_once(
    games: int,
    processes: int,
    app: bool,
    seconds: float,
    warmup: float,
    players: int = 4,
    speed: float = 1.0,
    seed: int = 1,
    ramp: float = 0.0,
) -> Result:
    """One run: N games on ``processes`` bot processes, measured over a window (virtual seconds)."""
    server = RedisServer(Path(tempfile.mkdtemp(prefix="durak-bench-scale-")) / "redis")
    server.start()
    fake = FakeTelegram()
    fake.clock = Clock(speed=speed)
    await fake.start()
    client = client_for_url(server.url)
    try:
        async with (
            webhook_bots(fake, server.url, processes, speed, APP_URL if app else None) as cluster,
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http,
        ):
            scale = Scale(fake, cluster, RedisGameStore(client), http, players, app, seed)
            begin = fake.clock.now()
            scale.add_games(games, ramp)
            waits = [asyncio.create_task(table.dealt.wait()) for table in scale.tables.values()]
            await asyncio.wait(waits, timeout=SETUP_LIMIT + games + ramp / speed)  # lobbies queue up
            for wait in waits:
                wait.cancel()
            if not ramp:  # what setting up queued (lobby replies, first hands) is out before play
                await scale.settle()
            setup = fake.clock.now() - begin
            scale.playing.set()
            start = fake.clock.now() + warmup
            end = start + seconds
            load_before = os.getloadavg()[0]
            await fake.clock.sleep(end - fake.clock.now())
            failed = [
                task for task in scale.tasks if task.done() and not task.cancelled() and task.exception()
            ]
            await scale.stop()
            await scale.settle()
            for task in failed:  # a lobby that never filled is a game left out ("dealt"); anything else a bug
                if not isinstance(task.exception(), AssertionError):
                    raise task.exception()  # type: ignore[misc]
                scale.stuck.append(str(task.exception()))
            return figures(
                scale, games, processes, app, start, end, setup, max(load_before, os.getloadavg()[0])
            )
    finally:
        await fake.close()
        await client.aclose()
        server.stop()


def figures(
    scale: Scale, games: int, processes: int, app: bool, start: float, end: float, setup: float, load: float
) -> Result:
    fake = scale.fake
    first: dict[Key, Press] = {}
    for press in scale.presses:
        if start <= press.at < end:
            first.setdefault((press.game_id, press.step), press)
    hands, tables = scale.first_shown()
    next_samples, table_samples = [], []
    for (game_id, step), press in first.items():
        next_samples += [at - press.at for at in hands.get((game_id, step + 1), {}).values()]
        later = [at for shown, at in tables.get(game_id, []) if shown > step]
        if later:
            table_samples.append(min(later) - press.at)
    in_window = [record for record in fake.call_log if start <= record.at < end]
    written = [r for r in in_window if r.method in WRITES and r.status == 200]
    kinds = Counter(
        f"{'group' if int(r.params.get('chat_id', 0)) < 0 else 'private'} {r.method}" for r in written
    )
    stale = stale_screens(fake)
    return Result(
        games, processes, app, len(first), len(written),
        sum(1 for r in in_window if r.status == 429), sum(1 for r in fake.call_log if r.status == 429),
        next_samples, table_samples, len(stale), stale[:3], setup, end - start, scale.refused, load,
        sum(table.games > 0 for table in scale.tables.values()), scale.stuck[:3], kinds,
        not_modified(fake), several_live_hands(fake),
    )  # fmt: skip


def print_header(app: bool, speed: float, players: int) -> None:
    mode = (
        "Mini App play (pages over WebSocket, presses by /api/press)"
        if app
        else "chat play (hands in private chats)"
    )
    print(f"{mode}; {players} people a game, each thinks {THINK[0]:g}-{THINK[1]:g} s; clock speed {speed:g}")
    print(
        f"{'games':>5} {'procs':>5} {'moves':>6} {'writes/move':>11} {'429':>4} {'429 all':>7} "
        f"{'next p50':>8} {'next p95':>8} {'table p95':>9} {'stale':>5} {'dealt':>5} {'setup s':>7} {'load':>5} "
        f"{'not mod':>7} {'2live':>5}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, nargs="+", default=[10, 25, 50])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--app", action="store_true", help="Mini App play instead of chat play")
    parser.add_argument("--seconds", type=float, default=45.0, help="the measured window (virtual s)")
    parser.add_argument("--warmup", type=float, default=5.0, help="virtual s after every game was dealt")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--speed", type=float, default=1.0, help="virtual seconds per real second")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--ramp", type=float, default=0.0, help="virtual s over which the lobbies open (0: all at once)"
    )
    args = parser.parse_args()
    print_header(args.app, args.speed, args.players)
    rows = []
    for processes in args.processes:
        for games in args.games:
            rows.append(
                await measure(
                    games,
                    processes,
                    args.app,
                    args.seconds,
                    args.warmup,
                    args.players,
                    args.speed,
                    args.seed,
                    args.ramp,
                )
            )
            print_row(rows[-1])
    print(
        "writes/move: sendMessage + editMessageText + deleteMessage accepted in the window over the moves "
        "applied in it; 429: flood refusals in the window (all: the whole run, setup included); next: from a "
        "press to the next actor's move buttons on screen; table: to the group's table showing that step; "
        'stale: screens left showing an older step than one delivered; not mod: edits answered "message is '
        'not modified" (the whole run); 2live: private chats left with two hands showing buttons; dealt: games '
        "dealt within "
        f"{SETUP_LIMIT:g} s; times in Telegram seconds; load: "
        f"the machine's 1-minute load average ({os.cpu_count()} cores)"
    )
    mode = "Mini App play" if args.app else "chat play"
    print(f"largest N per token with next-actor p95 < {TARGET:g} s, {mode}: {largest(rows)}")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())

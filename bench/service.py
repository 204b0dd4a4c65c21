"""Service throughput: many simulated games at once through `GameService`, on a real local redis-server.

    python bench/service.py [--games 200] [--seconds 10] [--processes 1 2 4] [--players 2 4 6]
                            [--paced 0.5 | --offered 1500]
    python bench/service.py --mixed [--human-games 20] [--ai-games 20] [--seconds 10] [--think 1.0]

Every seat is a person, simulated: the player whose private hand shows move buttons presses one of them (a
random one: a cheap legal choice that needs no engine here) as soon as the previous press has returned, so
each game always has one input in flight and the service is the only thing being measured. Each game opens
with /newgame, the others press Join, the creator presses Start; a finished game is followed by a new one in
the same chat. The games are spread over 1, 2 and 4 worker processes sharing one redis-server (unix socket,
AOF on, as the embedded default; ``--fsync always everysec`` runs everything once per policy, side by side).

Flat out, latency is mostly queueing (each of N games waits for the N-1 inputs ahead of it: p50 is about N
divided by the rate), so latency is judged in the paced runs, where people think between presses and the
process is offered a fixed rate (``--offered``, or ``--paced`` times the flat-out rate).

Printed per run: applied inputs per second (every input that saved a new state: lobby presses and moves),
game moves per second, p50/p99 latency of one input from `handle()` to its effects, Redis round trips per
applied input (`store.round_trips`), and after the runs the stored state size of 2-, 4- and 6-player games.

``--mixed``: one process as `durak-bot run` is, with the turn-timer loop, serving N games of two people and M
games of one person against a hard AI seat (its moves come from the timer loop after AI_DELAY, 1.2 s), people
thinking ``--think`` seconds on average. A ticker coroutine asks to wake every 5 ms; how late it wakes is
the event loop's lag. Printed: the lag's p50/p99/max, the people's inputs' p50/p99, AI moves made and
where they came from, once with the AI decided on the event loop (as before `bot/runtime/ai_pool.py`) and once
in the worker pool (AI_WORKERS, default: cores - 1).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import multiprocessing as mp
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import payloads  # noqa: E402
from bot.context import ServiceConfig  # noqa: E402
from bot.effects import Alert, Effect, Message, ShowHand, ShowTable  # noqa: E402
from bot.inputs import Command, Press, TimerDue, User  # noqa: E402
from bot.runtime.ai_pool import AiPool  # noqa: E402
from bot.runtime.config import default_ai_workers  # noqa: E402
from bot.runtime.gc_tuning import tune_garbage_collector  # noqa: E402
from bot.service import GameService, unavailable  # noqa: E402
from bot.timers import run_timers  # noqa: E402
from storage import ChatRef
from storage.connect import open_store  # noqa: E402
from storage.embedded import RedisServer  # noqa: E402

PLATFORM = "tg"
TARGETS = {"inputs_per_second": 1500, "p99_ms": 20.0, "round_trips": 2.0, "state_bytes_6": 4096}
LOBBY_CODES = {"J", "L", "S", "C", "R"}


@dataclass
class Tally:
    """What one worker measured inside the timed window."""

    on: bool = False  # set when the warm-up ends: inputs before it are not counted
    cpu_seconds: float = 0.0  # this worker's CPU time in the window (other load on the machine aside)
    applied: int = 0
    moves: int = 0
    refused: int = 0
    unavailable: int = 0  # "service unavailable" answers (each retried after 50 ms)
    games_finished: int = 0
    round_trips: int = 0
    latencies: list[float] = field(default_factory=list)


def move_payloads(message: Message | None) -> list[str]:
    """The game-move buttons of a hand message (not "My hand", not the lobby's)."""
    if message is None:
        return []
    found = []
    for row in message.buttons:
        for button in row:
            parsed = payloads.parse(button.payload) if button.payload else None
            if parsed and parsed.code not in LOBBY_CODES and parsed.code != "H":
                found.append(button.payload)
    return found


def table_payload(message: Message | None, code: str) -> str:
    found = table_payload_or_none(message, code)
    if found is None:
        raise LookupError(f"no {code!r} button on the table")
    return found


def table_payload_or_none(message: Message | None, code: str) -> str | None:
    assert message is not None
    for row in message.buttons:
        for button in row:
            parsed = payloads.parse(button.payload) if button.payload else None
            if parsed and parsed.code == code:
                return button.payload
    return None


class SimulatedChat:
    """One group chat whose people play game after game, pressing what their screens show."""

    def __init__(
        self,
        service: GameService,
        chat_id: str,
        players: int,
        rng: random.Random,
        think: float = 0.0,
        *,
        ai: int = 0,
        policy: str = "random",
        double_tap: float = 0.0,
        ai_level: str = "easy",
    ) -> None:
        self.service = service
        self.think = think  # mean seconds a person waits before each press (0: press at once)
        self.chat_id = chat_id
        self.users = [User(f"{chat_id}u{i}", f"P{i}") for i in range(players - ai)]
        self.ai = ai  # seats added with the lobby's AI button of ``ai_level``
        self.ai_level = ai_level
        self.over = False  # the result of the game being played has been shown
        self.changed = asyncio.Event()  # set when the timer loop delivers an AI move
        self.policy = policy  # "random" button, or "first" (lowest card first: games end sooner)
        self.double_tap = double_tap  # share of moves pressed twice at once, as an impatient person does
        self.rng = rng
        self.table: Message | None = None
        self.hands: dict[str, Message] = {}
        self.game_id = ""  # of the game being played (from its buttons)
        self.moves_applied = 0  # in this game: presses that moved it on (a refused double tap does not)

    async def send(self, event: Command | Press, tally: Tally | None, move: bool = False) -> list[Effect]:
        if self.think:
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        begin = time.perf_counter()
        effects = await self.service.handle(event)
        for _ in range(100):  # Redis did not answer: the person taps again a moment later
            if effects != unavailable(event):
                break
            if tally is not None and tally.on:
                tally.unavailable += 1
            await asyncio.sleep(0.05)
            effects = await self.service.handle(event)
        elapsed = time.perf_counter() - begin
        # a refused press (a double tap's loser, an old button) may still bring the table back up to date, and
        # an applied one may be answered in words ("You played 7♠."): the answer says whether it was saved
        shown = self.take(effects)
        answers = [e for e in effects if isinstance(e, Alert)]
        applied = any(e.applied for e in answers) if isinstance(event, Press) else shown
        self.moves_applied += applied and move
        if tally is not None and tally.on:
            tally.latencies.append(elapsed)
            if applied:
                tally.applied += 1
                tally.moves += move
            else:
                tally.refused += 1
        return effects

    def take(self, effects: list[Effect]) -> bool:
        """Show the effects (of a press, or of an AI move the timer loop delivered); whether a table came."""
        applied = False
        for effect in effects:
            if isinstance(effect, ShowTable):
                self.table, applied = effect.message, True
            elif isinstance(effect, ShowHand):
                self.hands[effect.user_id] = effect.message
            message = getattr(effect, "message", None)
            if self.ai and message is not None:  # people alone see the game end: no buttons left anywhere
                self.over |= table_payload_or_none(message, "R") is not None
        self.changed.set()
        return applied

    async def play_one_game(
        self,
        tally: Tally | None,
        deadline: float,
        after_move: Callable[[], Awaitable[None]] | None = None,
    ) -> bool:
        """Lobby, deal, moves until the game is over; False if the deadline came first."""
        self.hands.clear()
        self.moves_applied = 0
        self.over = False
        creator = self.users[0]
        await self.send(Command(PLATFORM, self.chat_id, creator, "newgame", "", chat_title="Bench"), tally)
        for user in self.users[1:]:
            await self.send(Press(PLATFORM, user, table_payload(self.table, "J")), tally)
        for _ in range(self.ai):
            await self.send(
                Press(PLATFORM, creator, table_payload(self.table, f"A:{self.ai_level}")),
                tally,
            )
        await self.send(Press(PLATFORM, creator, table_payload(self.table, "S")), tally)
        while time.perf_counter() < deadline:
            turn = [(user, move_payloads(self.hands.get(user.id))) for user in self.users]
            turn = [(user, moves) for user, moves in turn if moves]
            if not turn and self.ai and not self.over:  # an AI seat is to move: the timer loop brings it
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), max(0.0, deadline - time.perf_counter()))
                continue
            if not turn:
                return True  # no buttons anywhere: the game is over
            user, moves = turn[0] if len(turn) == 1 else self.rng.choice(turn)
            chosen = moves[0] if self.policy == "first" else self.rng.choice(moves)
            parsed = payloads.parse(chosen)
            self.game_id = parsed.game_id if parsed else self.game_id
            press = Press(PLATFORM, user, chosen)
            if self.double_tap and self.rng.random() < self.double_tap:
                await asyncio.gather(self.send(press, tally, move=True), self.send(press, tally, move=True))
            else:
                await self.send(press, tally, move=True)
            if after_move is not None:
                await after_move()
        return False


async def run_worker(
    url: str, worker: int, games: int, players: list[int], seconds: float, warmup: float, think: float
) -> Tally:
    store, close = await open_store(url)  # as the bot does (a cluster client loads its slot map first)
    service = GameService(store, ServiceConfig(ai_delay=1.2))
    rng = random.Random(worker)
    chats = [
        SimulatedChat(service, f"-{worker + 1}{index:05d}", players[index % len(players)], rng, think)
        for index in range(games)
    ]
    tally = Tally()
    stop_at = time.perf_counter() + warmup + seconds
    rt_start = 0

    async def keep_playing(chat: SimulatedChat) -> None:
        while time.perf_counter() < stop_at:
            finished = await chat.play_one_game(tally, stop_at)
            if finished and tally.on:
                tally.games_finished += 1

    async def switch_on() -> None:
        nonlocal rt_start, cpu_start
        await asyncio.sleep(warmup)
        tally.on, rt_start, cpu_start = True, store.round_trips, time.process_time()

    cpu_start = 0.0
    await asyncio.gather(switch_on(), *(keep_playing(chat) for chat in chats))
    tally.round_trips = store.round_trips - rt_start
    tally.cpu_seconds = time.process_time() - cpu_start
    await close()
    return tally


def worker_main(
    url: str,
    worker: int,
    games: int,
    players: list[int],
    seconds: float,
    warmup: float,
    think: float,
    out: mp.Queue,
) -> None:
    logging.basicConfig(level=logging.ERROR)  # the unavailable answers are counted, not logged one by one
    tune_garbage_collector()  # as `durak-bot run` does
    tally = asyncio.run(run_worker(url, worker, games, players, seconds, warmup, think))
    out.put(tally)


def run_processes(
    url: str, processes: int, games: int, players: list[int], seconds: float, think: float = 0.0
) -> dict:
    """Split ``games`` over ``processes`` workers; merge what they measured."""
    ctx = mp.get_context("spawn")
    out: mp.Queue = ctx.Queue()
    share = [games // processes + (i < games % processes) for i in range(processes)]
    workers = [
        ctx.Process(target=worker_main, args=(url, i, share[i], players, seconds, 2.0, think, out))
        for i in range(processes)
    ]
    for process in workers:
        process.start()
    tallies = [out.get(timeout=seconds + 120) for _ in workers]
    for process in workers:
        process.join(timeout=30)
    latencies = sorted(x for t in tallies for x in t.latencies)
    applied = sum(t.applied for t in tallies)
    return {
        "processes": processes,
        "games": games,
        "inputs_per_second": applied / seconds,
        "moves_per_second": sum(t.moves for t in tallies) / seconds,
        "refused": sum(t.refused for t in tallies),
        "unavailable": sum(t.unavailable for t in tallies),
        "games_finished": sum(t.games_finished for t in tallies),
        "p50_ms": 1000 * percentile(latencies, 0.50),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "round_trips": sum(t.round_trips for t in tallies) / max(1, applied),
        "per_cpu_second": applied / max(1e-9, sum(t.cpu_seconds for t in tallies)),
    }


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


@dataclass
class MixedTally:
    """One mixed-load run: the loop's lag, the people's inputs, and the AI's moves."""

    lags: list[float] = field(default_factory=list)
    inputs: Tally = field(default_factory=Tally)
    ai_moves: int = 0
    sources: dict[str, int] = field(default_factory=dict)


async def sample_lag(lags: list[float], stop_at: float, every: float = 0.005) -> None:
    """Ask to wake every ``every`` seconds; how much later than asked each wake-up came is the loop's lag."""
    while time.perf_counter() < stop_at:
        asked = time.perf_counter()
        await asyncio.sleep(every)
        lags.append(max(0.0, time.perf_counter() - asked - every))


async def run_mixed(
    url: str, humans: int, ai_games: int, seconds: float, think: float, workers: int, warmup: float = 2.0
) -> MixedTally:
    """``humans`` games of two people and ``ai_games`` of a person against a hard AI in this one process,
    with the timer loop; ``workers`` 0: the AI decides on the event loop, as before the pool."""
    store, close = await open_store(url)
    pool = AiPool(workers) if workers else None
    if pool is not None:
        await pool.warm_up()
    service = GameService(store, ServiceConfig(ai_delay=1.2), ai=pool)
    rng = random.Random(7)
    chats = {
        chat.chat_id: chat
        for chat in [SimulatedChat(service, f"-7{i:05d}", 2, rng, think) for i in range(humans)]
        + [
            SimulatedChat(service, f"-8{i:05d}", 2, rng, think, ai=1, ai_level="hard")
            for i in range(ai_games)
        ]
    }
    tally = MixedTally()
    stop_at = time.perf_counter() + warmup + seconds
    stop = asyncio.Event()

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        tally.ai_moves += tally.inputs.on and any(isinstance(e, ShowTable) for e in effects)
        chats[due.chat_id].take(effects)

    async def keep_playing(chat: SimulatedChat) -> None:
        while time.perf_counter() < stop_at:
            await chat.play_one_game(tally.inputs, stop_at)

    async def measure() -> None:
        await asyncio.sleep(warmup)
        tally.inputs.on = True
        sources = dict(pool.sources) if pool is not None else {}
        await sample_lag(tally.lags, stop_at)
        if pool is not None:
            tally.sources = {
                k: v - sources.get(k, 0) for k, v in pool.sources.items() if v > sources.get(k, 0)
            }
        stop.set()

    timers = asyncio.create_task(run_timers(service, store, stop, deliver, poll=0.05, platforms=[PLATFORM]))
    await asyncio.gather(measure(), *(keep_playing(chat) for chat in chats.values()))
    await timers
    if pool is not None:
        await pool.aclose()
    await close()
    return tally


def mixed_main(url: str, flush: Callable[[], object], args: argparse.Namespace) -> None:
    workers = args.ai_workers or default_ai_workers()
    print(
        f"mixed load in one process: {args.human_games} games of two people + {args.ai_games} games of a "
        f"person against a hard AI (AI_DELAY 1.2 s); people think ~{args.think:g} s; {args.seconds:g} s per run"
    )
    print(
        f"{'AI decided':<22} {'lag p50':>8} {'lag p99':>8} {'lag max':>8} {'in p50':>7} {'in p99':>7} "
        f"{'inputs':>6} {'AI moves':>8}  AI sources"
    )
    for label, pool_workers in (("on the event loop", 0), (f"in {workers} worker process(es)", workers)):
        flush()
        begin_load = os.getloadavg()[0]
        tally = asyncio.run(
            run_mixed(url, args.human_games, args.ai_games, args.seconds, args.think, pool_workers)
        )
        lags, inputs = sorted(tally.lags), sorted(tally.inputs.latencies)
        sources = ", ".join(f"{k} {v}" for k, v in sorted(tally.sources.items())) or "-"
        print(
            f"{label:<22} {1000 * percentile(lags, 0.5):>8.2f} {1000 * percentile(lags, 0.99):>8.2f} "
            f"{1000 * (lags[-1] if lags else float('nan')):>8.1f} {1000 * percentile(inputs, 0.5):>7.2f} "
            f"{1000 * percentile(inputs, 0.99):>7.2f} {len(inputs):>6} {tally.ai_moves:>8}  {sources}"
            f"  (load {begin_load:.1f})",
            flush=True,
        )
    print("lag, in(puts): milliseconds; an input is a person's command or press, `handle()` to its effects")


async def state_sizes(url: str, players: int, games: int) -> tuple[float, str]:
    """Mean size and the largest stored state over every move of ``games`` whole games of ``players``."""
    store, close = await open_store(url)  # as the bot does (a cluster client loads its slot map first)
    service = GameService(store, ServiceConfig(ai_delay=1.2))
    sizes: list[int] = []
    largest = ""
    rng = random.Random(players)
    for index in range(games):
        chat = SimulatedChat(service, f"-9{players}{index:04d}", players, rng)
        ref = ChatRef(PLATFORM, chat.chat_id)

        async def measure(ref: ChatRef = ref) -> None:
            nonlocal largest
            state = (await store.load(ref)).state or ""
            if "\n" in state:  # a running game: header and engine state
                sizes.append(len(state.encode()))
                largest = max(largest, state, key=len)

        await chat.play_one_game(None, time.perf_counter() + 60, after_move=measure)
    await close()
    return statistics.fmean(sizes), largest


def size_breakdown(state: str) -> str:
    """Bytes of the header line and of the engine state's biggest fields."""
    import json

    head, _, game = state.partition("\n")
    fields = {name: len(json.dumps(value, separators=(",", ":"))) for name, value in json.loads(game).items()}
    big = sorted(fields.items(), key=lambda item: -item[1])[:4]
    return f"header {len(head)}, engine {len(game)} (" + ", ".join(f"{n} {b}" for n, b in big) + ")"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100, help="simultaneous games in all (default 100)")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="timed window per run (after 2 s warm-up)"
    )
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6], help="cycled over the games")
    parser.add_argument(
        "--paced", type=float, default=0.5, help="then offer this share of the 1-process rate (0: skip)"
    )
    parser.add_argument(
        "--offered", type=float, default=0.0, help="paced runs offer this many inputs/s instead (in all)"
    )
    parser.add_argument("--size-games", type=int, default=20, help="games per player count for state sizes")
    parser.add_argument("--cluster", action="store_true", help="a local 3-node Redis Cluster instead")
    parser.add_argument(
        "--fsync",
        nargs="+",
        default=["always"],
        choices=["always", "everysec"],
        help="the redis-server's appendfsync, each in turn (the bot's default: always; docs/reliability.md)",
    )
    parser.add_argument(
        "--mixed", action="store_true", help="people and hard-AI games in one process instead"
    )
    parser.add_argument("--human-games", type=int, default=20, help="--mixed: games of two people")
    parser.add_argument("--ai-games", type=int, default=20, help="--mixed: games of a person and a hard AI")
    parser.add_argument("--think", type=float, default=1.0, help="--mixed: mean seconds a person thinks")
    parser.add_argument("--ai-workers", type=int, default=0, help="--mixed: pool size (default: cores - 1)")
    args = parser.parse_args()
    import redis.utils

    print(
        f"{args.games} games of {args.players} players, {args.seconds:g} s per run; "
        f"hiredis {'on' if redis.utils.HIREDIS_AVAILABLE else 'off'}; "
        f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    for fsync in [None] if args.cluster else args.fsync:
        if fsync is not None:
            print(f"== appendfsync {fsync} ==")
        with tempfile.TemporaryDirectory(prefix="durak-bench-") as folder:
            run_on_redis(args, Path(folder), fsync)
    return 0


def run_on_redis(args: argparse.Namespace, folder: Path, fsync: str | None) -> None:
    """The runs `args` asks for on a fresh local Redis (a cluster, or one server with ``fsync``)."""
    if args.cluster:
        from tests.storage.cluster_nodes import LocalCluster

        cluster = LocalCluster(folder)
        cluster.start()
        url, flush, stop = f"redis://127.0.0.1:{cluster.ports[0]}?cluster=yes", cluster.flush, cluster.stop
    else:
        server = RedisServer(folder, fsync=fsync or "always")
        server.start()
        url, flush, stop = server.url, lambda: server.client().flushall(), server.stop
    print(f"Redis: {url}")
    try:
        if args.mixed:
            mixed_main(url, flush, args)
            return
        print_header("flat out: every game presses as soon as its last press returned")
        rows = []
        for processes in args.processes:
            flush()
            rows.append(run_processes(url, processes, args.games, args.players, args.seconds))
            print_row(rows[-1])
        if (args.paced > 0 and rows) or args.offered > 0:
            offered = args.offered or args.paced * rows[0]["inputs_per_second"]
            think = args.games / offered
            print_header(f"paced: {offered:.0f} inputs/s offered (each person thinks ~{think:.2f} s)")
            for processes in args.processes:
                flush()
                print_row(run_processes(url, processes, args.games, args.players, args.seconds, think))
        print(f"stored state of a running game (bytes, every move of {args.size_games} games):")
        for players in (2, 4, 6):
            mean, largest = asyncio.run(state_sizes(url, players, args.size_games))
            print(f"  {players} players: mean {mean:.0f}, max {len(largest)}: {size_breakdown(largest)}")
    finally:
        stop()


def print_header(title: str) -> None:
    print(title)
    print(
        f"{'procs':>5} {'inputs/s':>9} {'per CPU-s':>9} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'RT/input':>8} {'games done':>10} {'refused':>7} {'unavail':>7}"
    )


def print_row(row: dict) -> None:
    print(
        f"{row['processes']:>5} {row['inputs_per_second']:>9.0f} {row['per_cpu_second']:>9.0f} "
        f"{row['moves_per_second']:>8.0f} {row['p50_ms']:>7.2f} {row['p99_ms']:>7.2f} "
        f"{row['round_trips']:>8.2f} {row['games_finished']:>10} {row['refused']:>7} {row['unavailable']:>7}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())

"""A replay flood: one account asking for its archived replays, against the server's other answers.

    python bench/webapp_replays.py [--replays 40] [--replay-concurrency 4] [--replay-seconds 10] [--seed 1]

(also ``python bench/webapp.py --replay-flood`` with the same options). One server process (the pages'
routes, `adapters/web/server.py`, over a local redis-server) holds ``--replays`` archived 4-player games of
one account (~182 actions each, random legal moves); this process asks for them ``--replay-concurrency`` at
a time for ``--replay-seconds`` as that account, while asking ``/healthz`` every 10 ms. Printed: the answers
by status, /healthz's latency and the server's event-loop lag (how late a 5 ms sleep wakes), idle and under
the flood; first as served (the per-person limit and the replay cache), then cold (neither: every ask
builds its replay, the worst case for the loop).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp  # noqa: E402
from web_common import (  # noqa: E402
    LAG_SLEEP,
    bench_store,
    client,
    listen,
    ms,
    parent_says,
    probe_lag,
    server_process,
    signed_in,
    tell_parent,
)

FLOOD_CHAT = "-100800000"
FLOOD_USERS = ("9001", "9002", "9003", "9004")  # the flooding account is the first; every game seats all four


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
    from bot.runtime.ratelimit import PressLimiter
    from storage.keys import archive_key

    store, close = await bench_store("durak-bench-replays-")
    lags: list[float] = []
    try:
        records = flood_games(count, seed)
        for record_ in records:
            await store.redis.set(archive_key(json.loads(record_)["game_id"]), record_, ex=3600)
        options: dict[str, Any] = {}
        if cold:
            options = {"replay_cache_bytes": 0, "replay_limiter": PressLimiter(1e9, 1e9)}
        runner, port = await listen(store, **options)
        actions = statistics.mean(len(json.loads(r)["log"]) for r in records)
        tell_parent({"port": port, "actions": actions})
        prober = asyncio.create_task(probe_lag(lags))
        async for said in parent_says():
            if said == ["mark"]:
                lags.clear()
            elif said == ["report"]:
                tell_parent({"lags": lags})
        prober.cancel()
        await runner.cleanup()
    finally:
        await close()


async def replay_flood_run(count: int, concurrency: int, seconds: float, seed: int, cold: bool) -> None:
    """One account asks for its ``count`` replays, ``concurrency`` at a time for ``seconds``, while
    ``/healthz`` is asked every 10 ms; printed: the answers, /healthz's latency and the server's loop lag,
    idle and under the flood."""
    statuses: Counter[int] = Counter()
    sizes: list[int] = []
    answers: list[float] = []
    async with server_process(
        __file__, "--serve-replays", str(count), str(seed), "1" if cold else "0"
    ) as server:
        info, base = server.info, server.base
        auth = signed_in(FLOOD_USERS[0], "Flo")
        refs = [f"{FLOOD_CHAT}_f{n}-replay" for n in range(count)]

        async def lag_report() -> list[float]:
            lags: list[float] = (await server.ask("report"))["lags"]
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

        async with client() as http:
            await server.tell("mark")
            idle_health = await healthz(http, time.perf_counter() + 2.0)
            idle_lags = await lag_report()
            await server.tell("mark")
            until = time.perf_counter() + seconds
            probing = asyncio.create_task(healthz(http, until))
            await asyncio.gather(*(flood(http, until, n) for n in range(concurrency)))
            flood_health = await probing
            flood_lags = await lag_report()

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


def add_options(parser: argparse.ArgumentParser) -> None:
    """This run's options (bench/webapp.py offers them too, beside ``--replay-flood``)."""
    parser.add_argument("--replays", type=int, default=40, help="archived games of the flooding account")
    parser.add_argument("--replay-concurrency", type=int, default=4)
    parser.add_argument("--replay-seconds", type=float, default=10.0)


async def run(args: argparse.Namespace) -> None:
    """The flood as served, then cold."""
    for cold in (False, True):
        await replay_flood_run(args.replays, args.replay_concurrency, args.replay_seconds, args.seed, cold)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser)
    parser.add_argument("--seed", type=int, default=1)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve-replays":
        asyncio.run(serve_replays(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"))
    else:
        main()

"""What sharing Telegram's limits through Redis costs, and what two processes on one token reach together.

    python bench/telegram_pacing.py [--sends 2000] [--speed 20]

1. Cost per send: ``--sends`` sends, each to a chat with budget left, through the in-process pacer and
   through the shared one (a local redis-server when one is installed, else fakeredis): Redis round trips
   per send and the latency the pacer adds (p50/p99, real milliseconds).
2. Two processes, one token: two deliveries (each its own pacer, both on one Redis) get one group's table
   changes once a second, presses landing on both in turn, and replies to 80 private chats; a stand-in Bot
   API notes when each message arrives. Printed: the most messages in any second and the most in any
   minute in the group, with both pacers kept per process and with the shared one. Time runs ``--speed``
   times faster than real time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.telegram.delivery import Delivery  # noqa: E402
from adapters.telegram.memory import ChatMemory  # noqa: E402
from adapters.telegram.pacing import Ask, Limits, LocalPacer, Pacer  # noqa: E402
from adapters.telegram.shared_pacing import SharedPacer  # noqa: E402
from bench.memory import NoOpBot, Sent  # noqa: E402
from bot.effects import Reply, ShowTable  # noqa: E402
from bot.render.text import line, message  # noqa: E402
from storage.embedded import RedisServer, find_redis_server  # noqa: E402
from storage.store import RedisGameStore  # noqa: E402

GROUP = -100500


class ScaledClock:
    def __init__(self, speed: float) -> None:
        self.speed, self.start = speed, time.monotonic()

    def now(self) -> float:
        return (time.monotonic() - self.start) * self.speed

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.speed)


class ArrivalBot(NoOpBot):
    """Notes when each message arrives (one list for every process: Telegram's side)."""

    def __init__(self, clock: ScaledClock, arrivals: list[tuple[float, int]]) -> None:
        super().__init__()
        self.clock, self.arrivals = clock, arrivals

    async def send_message(self, chat_id: int, text: str, **options: Any) -> Sent:
        self.arrivals.append((self.clock.now(), chat_id))
        return await super().send_message(chat_id, text, **options)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **options: Any) -> bool:
        self.arrivals.append((self.clock.now(), chat_id))
        return await super().edit_message_text(text, chat_id, message_id, **options)


def most_in(times: list[float], window: float) -> int:
    times = sorted(times)
    best, first = 0, 0
    for last, moment in enumerate(times):
        while times[first] <= moment - window:
            first += 1
        best = max(best, last - first + 1)
    return best


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def cost(pacer: Pacer, sends: int) -> tuple[float, float, float]:
    """Round trips per send, p50 and p99 milliseconds per admission."""
    latencies = []
    for n in range(sends):
        started = time.perf_counter()
        await pacer.admit(Ask(10_000 + n, screen=(str(-n - 1), "table", 1)), float(n))  # a second apart
        latencies.append((time.perf_counter() - started) * 1000)
    return pacer.round_trips / sends, statistics.median(latencies), percentile(latencies, 0.99)


async def two_processes(redis: Any, shared: bool, speed: float) -> tuple[int, int, int]:
    clock, arrivals = ScaledClock(speed), []
    deliveries = []
    for _ in range(2):
        store = RedisGameStore(redis)
        pacer = SharedPacer(store, clock=clock) if shared else None
        bot = ArrivalBot(clock, arrivals)
        deliveries.append(Delivery(bot, ChatMemory(store), clock, pacer=pacer))  # type: ignore[arg-type]
    a, b = deliveries
    text = message([line("table")])
    for n in range(80):
        (a if n % 2 else b).submit([Reply(str(20_000 + n), text)])
        (b if n % 2 else a).submit([Reply(str(20_000 + n), text)])
    for version in range(1, 91):
        words = message([line(f"table v{version}")])
        (a if version % 2 else b).submit([ShowTable(str(GROUP), words, "g1", version=version)])
        await clock.sleep(1.0)
    await asyncio.gather(a.wait_idle(60), b.wait_idle(60))
    every = [at for at, _ in arrivals]
    group = [at for at, chat in arrivals if chat == GROUP]
    return most_in(every, 1.0), most_in(group, 60.0), len(arrivals)


async def main(sends: int, speed: float) -> None:
    server = None
    if find_redis_server() is not None:
        server = RedisServer(Path(tempfile.mkdtemp(prefix="durak-bench-")))
        server.start()
        from storage.connect import client_for_url

        redis: Any = client_for_url(server.url)
        where = "redis-server"
    else:
        import fakeredis

        redis = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
        where = "fakeredis"
    try:
        await redis.flushall()
        for name, pacer in (
            ("in-process", LocalPacer(Limits(), 0.0)),
            (f"shared ({where})", SharedPacer(RedisGameStore(redis), clock=ScaledClock(1.0))),
        ):
            trips, p50, p99 = await cost(pacer, sends)
            print(f"{name:24} {trips:.2f} round trips a send, adds p50 {p50:.3f} ms, p99 {p99:.3f} ms")
        for shared in (False, True):
            await redis.flushall()
            per_second, group_minute, total = await two_processes(redis, shared, speed)
            name = "two processes, " + ("shared" if shared else "each its own")
            print(
                f"{name:32} most {per_second} messages in a second, {group_minute} in a group's minute ({total} sent)"
            )
    finally:
        await redis.aclose()
        if server is not None:
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sends", type=int, default=2000)
    parser.add_argument("--speed", type=float, default=20.0)
    options = parser.parse_args()
    asyncio.run(main(options.sends, options.speed))

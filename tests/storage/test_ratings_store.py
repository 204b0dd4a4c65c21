"""Ratings, trends, head-to-head counts and seasons in the store, on fakeredis and a real redis-server.

The new ratings ride in the save that counts a finished game, behind the same once-per-game marker; the
ratings a game starts with come back with the load of its lobby, so a finished game's save reads nothing
first."""

from __future__ import annotations

import json

from bot.session import ChatSession, Lobby, Playing, Seat
from storage import ChatRef
from storage import keys as k
from storage.models import GameOutcome, PlayerOutcome, Rival, SaveRequest
from storage.replies import text
from storage.store import RedisGameStore

CHAT = ChatRef("tg", "-100123")
TTL = 86400
ANN_AFTER, BOB_AFTER = (27.5, 7.0), (22.5, 7.25)


def finished(game_id: str, *players: PlayerOutcome, season: int = 1) -> GameOutcome:
    return GameOutcome(game_id, json.dumps({"game": game_id}), list(players), season=season)


def ann_beats_bob(game_id: str = "g1", season: int = 1) -> GameOutcome:
    return finished(
        game_id,
        PlayerOutcome("1", "Ann", first_out=True, points=3, rating=ANN_AFTER),
        PlayerOutcome("2", "Bob", durak=True, rating=BOB_AFTER),
        season=season,
    )


def lobby_of(*users: str, ai: str = "") -> str:
    seats = [Seat(user_id=user, name=f"N{user}") for user in users]
    seats += [Seat(user_id="ai:1", name="Bot", ai=ai)] if ai else []
    header = Lobby(lobby_id="l1", creator=users[0], words="", seats=seats, created_at=0.0, chat_title="Club")
    return ChatSession(header).encode()


async def test_a_lobby_loads_with_its_seated_peoples_ratings(store: RedisGameStore) -> None:
    version = await store.save(CHAT, 0, "over", ttl=TTL, outcome=ann_beats_bob()) or 0
    await store.save(CHAT, version, lobby_of("1", "2", "3", ai="easy"), ttl=TTL)
    record = await store.load(CHAT)
    assert record.ratings == {"1": ANN_AFTER, "2": BOB_AFTER}, "Cat (3) has none yet, the AI never"


async def test_only_a_lobby_loads_ratings_never_a_running_game(store: RedisGameStore) -> None:
    version = await store.save(CHAT, 0, "over", ttl=TTL, outcome=ann_beats_bob()) or 0
    seats = [Seat(user_id="1", name="Ann"), Seat(user_id="2", name="Bob")]
    game = Playing(game_id="g2", creator="1", seats=seats, started_at=0.0, chat_title='"kind":"lobby"')
    await store.save(CHAT, version, ChatSession(game).encode(), ttl=TTL)
    assert (await store.load(CHAT)).ratings == {}


async def test_a_conflicting_save_hands_back_the_lobby_with_its_ratings(store: RedisGameStore) -> None:
    version = await store.save(CHAT, 0, "over", ttl=TTL, outcome=ann_beats_bob()) or 0
    version = await store.save(CHAT, version, lobby_of("1", "2"), ttl=TTL) or 0
    current = await store.save_or_current(CHAT, SaveRequest(version - 1, "late", ttl=TTL))
    assert not isinstance(current, int)
    assert current.ratings == {"1": ANN_AFTER, "2": BOB_AFTER}


async def test_a_finished_game_writes_each_persons_new_rating(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "over", ttl=TTL, outcome=ann_beats_bob())
    ann, bob = sorted(await store.stats(CHAT), key=lambda row: row.user_id)
    assert (ann.rating, ann.rated, bob.rating, bob.rated) == (ANN_AFTER, 1, BOB_AFTER, 1)
    ordinals = await store.redis.zrange(k.leaderboard_key(CHAT, "rating"), 0, -1, withscores=True)
    assert [(text(user), score) for user, score in ordinals] == [("2", 0.75), ("1", 6.5)]  # mu - 3 sigma


async def test_a_retried_save_never_rates_twice(store: RedisGameStore) -> None:
    game = ann_beats_bob()
    assert await store.save(CHAT, 0, "over", ttl=TTL, outcome=game, request_id="r1") == 1
    assert await store.save(CHAT, 0, "over", ttl=TTL, outcome=game, request_id="r1") == 1  # reply lost
    assert await store.save(CHAT, 1, "over", ttl=TTL, outcome=game) == 2  # the same game sent again
    mine = await store.personal(CHAT, "1")
    assert (mine.stats.games, mine.stats.rated, mine.trend) == (1, 1, [6.5])
    assert mine.rivals == [Rival("2", "Bob", won=1, lost=0)]


async def test_the_streak_counts_games_in_a_row_on_the_same_side_of_the_durak(store: RedisGameStore) -> None:
    version = 0
    for number in range(3):
        version = await store.save(CHAT, version, "over", ttl=TTL, outcome=ann_beats_bob(f"g{number}")) or 0
    bob_wins = finished("g9", PlayerOutcome("1", "Ann", durak=True), PlayerOutcome("2", "Bob"))
    version = await store.save(CHAT, version, "over", ttl=TTL, outcome=bob_wins) or 0
    assert [(await store.personal(CHAT, user)).stats.streak for user in ("1", "2")] == [-1, 1]
    draw = finished("g10", PlayerOutcome("1", "Ann", draw=True), PlayerOutcome("2", "Bob", draw=True))
    await store.save(CHAT, version, "over", ttl=TTL, outcome=draw)
    assert [(await store.personal(CHAT, user)).stats.streak for user in ("1", "2")] == [1, 2]


async def test_head_to_head_counts_who_was_the_durak_with_whom(store: RedisGameStore) -> None:
    three = finished("g1", PlayerOutcome("1", "Ann"), PlayerOutcome("2", "Bob", durak=True),
                     PlayerOutcome("3", "Cat"))  # fmt: skip
    version = await store.save(CHAT, 0, "over", ttl=TTL, outcome=three) or 0
    cat_loses = finished("g2", PlayerOutcome("1", "Ann"), PlayerOutcome("3", "Cat", durak=True))
    await store.save(CHAT, version, "over", ttl=TTL, outcome=cat_loses)
    ann = sorted((await store.personal(CHAT, "1")).rivals, key=lambda rival: rival.user_id)
    assert ann == [Rival("2", "Bob", won=1, lost=0), Rival("3", "Cat", won=1, lost=0)]
    bob = sorted((await store.personal(CHAT, "2")).rivals, key=lambda rival: rival.user_id)
    assert bob == [Rival("1", "Ann", won=0, lost=1), Rival("3", "Cat", won=0, lost=1)]


async def test_the_trend_keeps_only_the_last_twenty_games(store: RedisGameStore) -> None:
    version = 0
    for number in range(25):
        rating = (20.0 + number, 5.0)
        game = finished(f"g{number}", PlayerOutcome("1", "Ann", rating=rating), PlayerOutcome("2", "Bob"))
        version = await store.save(CHAT, version, "over", ttl=TTL, outcome=game) or 0
    trend = (await store.personal(CHAT, "1")).trend
    assert trend == [float(20 + number - 15) for number in range(5, 25)]


async def test_a_new_season_restarts_ratings_and_standings_and_keeps_the_old_season(
    store: RedisGameStore,
) -> None:
    version = await store.save(CHAT, 0, "over", ttl=TTL, outcome=ann_beats_bob()) or 0
    assert await store.new_season(CHAT) == 2
    version = await store.save(CHAT, version, lobby_of("1", "2"), ttl=TTL) or 0
    record = await store.load(CHAT)
    assert (record.season, record.ratings) == (2, {}), "everyone starts the season new"
    assert await store.stats(CHAT, season=2) == []
    assert [row.user_id for row in await store.stats(CHAT, season=1)] == ["1", "2"]
    await store.save(CHAT, version, "over", ttl=TTL, outcome=ann_beats_bob("g2", season=2))
    assert [(row.user_id, row.games) for row in await store.stats(CHAT, season=2)] == [("1", 1), ("2", 1)]
    assert [row.games for row in await store.stats(CHAT, season=1)] == [1, 1]


async def test_a_game_started_before_a_new_season_counts_in_its_own_season(store: RedisGameStore) -> None:
    await store.new_season(CHAT)
    await store.save(CHAT, 0, "over", ttl=TTL, outcome=ann_beats_bob(season=1))
    assert [row.games for row in await store.stats(CHAT, season=1)] == [1, 1]
    assert await store.stats(CHAT, season=2) == []
    await store.save(CHAT, 1, lobby_of("1", "2"), ttl=TTL)
    assert (await store.load(CHAT)).ratings == {}, "season 2's ratings are not season 1's"


async def test_a_migrated_chat_keeps_every_seasons_ratings_trends_and_rivals(store: RedisGameStore) -> None:
    new = ChatRef("tg", "-100999")
    version = await store.save(CHAT, 0, "over", ttl=TTL, outcome=ann_beats_bob()) or 0
    await store.new_season(CHAT)
    version = await store.save(CHAT, version, "over", ttl=TTL, outcome=ann_beats_bob("g2", season=2)) or 0
    await store.save(CHAT, version, lobby_of("1", "2"), ttl=TTL)
    before = [await store.personal(CHAT, "1", season) for season in (1, 2)]
    await store.migrate_chat(CHAT, new)
    assert [await store.personal(new, "1", season) for season in (1, 2)] == before
    assert before[0].trend == [6.5] and before[0].rivals == [Rival("2", "Bob", won=1, lost=0)]
    record = await store.load(new)
    assert (record.season, record.ratings) == (2, {"1": ANN_AFTER, "2": BOB_AFTER})
    assert [row.user_id for row in await store.stats(new, season=1)] == ["1", "2"]
    assert (await store.personal(CHAT, "1", 2)).stats.games == 0, "the old chat is gone"

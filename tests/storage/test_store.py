"""The store's behaviour, run on fakeredis and on a real redis-server (the `store` fixture)."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.platforms import PLATFORMS
from storage import ChatRef
from storage import keys as k
from storage.models import GameOutcome, LastDurak, PlayerOutcome, PlayerStats, SaveRequest
from storage.store import ARCHIVE_TTL, RedisGameStore

CHAT = ChatRef("tg", "-100123")
OTHER = ChatRef("dc", "555")
LOBBY_TTL, GAME_TTL = 15 * 60, 6 * 3600


def outcome(game_id: str, *players: PlayerOutcome) -> GameOutcome:
    return GameOutcome(game_id, json.dumps({"game": game_id, "log": ["c:0:9S"]}), list(players))


async def test_a_chat_never_saved_loads_as_version_zero_and_empty(store: RedisGameStore) -> None:
    record = await store.load(CHAT)
    assert (record.version, record.state, record.messages) == (0, None, {})
    assert (record.settings, record.lang, record.last_durak) == (None, None, None)


async def test_a_save_at_the_loaded_version_stores_the_state_and_bumps_the_version(
    store: RedisGameStore,
) -> None:
    assert await store.save(CHAT, 0, '{"lobby": 1}', ttl=LOBBY_TTL) == 1
    assert await store.save(CHAT, 1, '{"game": 2}', ttl=GAME_TTL) == 2
    record = await store.load(CHAT)
    assert (record.version, record.state) == (2, '{"game": 2}')
    assert (await store.load(OTHER)).version == 0


async def test_a_save_at_a_stale_version_is_refused_and_changes_nothing(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "first", ttl=LOBBY_TTL)
    await store.save(CHAT, 1, "second", ttl=LOBBY_TTL)
    assert await store.save(CHAT, 1, "stale", ttl=LOBBY_TTL, deadline=10.0) is None
    assert await store.save(CHAT, 7, "future", ttl=LOBBY_TTL) is None
    record = await store.load(CHAT)
    assert (record.version, record.state) == (2, "second")
    assert await store.claim_due_timers(1e12, platforms=PLATFORMS) == []


async def test_a_retried_request_gets_its_own_version_back_not_a_conflict(store: RedisGameStore) -> None:
    assert await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL, request_id="u1:100") == 1
    assert await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL, request_id="u1:100") == 1  # reply was lost
    assert await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL, request_id="u2:101") is None  # someone else
    assert await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL) is None
    assert await store.save(CHAT, 1, "game", ttl=GAME_TTL) == 2
    assert await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL, request_id="u1:100") == 1  # still its own
    assert (await store.load(CHAT)).state == "game", "applied once, though others moved on since"


async def test_a_conflicting_save_returns_the_current_record_in_the_same_round_trip(
    store: RedisGameStore,
) -> None:
    await store.save(CHAT, 0, "first", ttl=LOBBY_TTL)
    await store.set_messages(CHAT, {"table": "17"})
    await store.set_chat_settings(CHAT, words="transfer", lang="ru")
    before = store.round_trips
    current = await store.save_or_current(CHAT, SaveRequest(0, "stale", ttl=LOBBY_TTL))
    assert store.round_trips == before + 1
    assert current == await store.load(CHAT)
    assert (current.version, current.state, current.messages) == (1, "first", {"table": "17"})
    assert (current.settings, current.lang) == ("transfer", "ru")
    assert await store.save_or_current(CHAT, SaveRequest(1, "second", ttl=LOBBY_TTL)) == 2


async def test_a_save_that_needs_the_state_is_refused_once_the_state_expired(store: RedisGameStore) -> None:
    """A process that decided on its own copy of a game must not bring back a game whose state expired."""
    await store.save(CHAT, 0, "game", ttl=GAME_TTL)
    await store.redis.delete(k.state_key(CHAT))  # what expiry does: the version stays
    moved = SaveRequest(1, "game moved", ttl=GAME_TTL, state_must_exist=True)
    current = await store.save_or_current(CHAT, moved)
    assert not isinstance(current, int) and (current.version, current.state) == (1, None)
    assert await store.save_or_current(CHAT, SaveRequest(1, "new lobby", ttl=LOBBY_TTL)) == 2


async def test_each_save_sets_the_ttl_the_caller_chose(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL)
    assert LOBBY_TTL - 5 <= await store.redis.ttl(k.state_key(CHAT)) <= LOBBY_TTL
    await store.save(CHAT, 1, "game", ttl=GAME_TTL)
    assert GAME_TTL - 5 <= await store.redis.ttl(k.state_key(CHAT)) <= GAME_TTL
    assert await store.redis.ttl(k.version_key(CHAT)) == -1  # the version outlives the state


async def test_saving_none_deletes_the_state_but_keeps_counting_versions(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL)
    assert await store.save(CHAT, 1, None, ttl=LOBBY_TTL) == 2
    record = await store.load(CHAT)
    assert (record.version, record.state) == (2, None)


async def test_an_expired_lobby_never_brings_back_an_old_version(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL)
    await store.redis.delete(k.state_key(CHAT))  # what the TTL does after 15 minutes
    record = await store.load(CHAT)
    assert (record.version, record.state) == (1, None)
    assert await store.save(CHAT, 0, "replayed old button", ttl=LOBBY_TTL) is None
    assert await store.save(CHAT, 1, "new lobby", ttl=LOBBY_TTL) == 2


async def test_message_ids_are_set_deleted_and_expire_with_the_state(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "game", ttl=GAME_TTL)
    await store.set_messages(CHAT, {"table": "11", "hand:u1": "12", "hand:u2": "13"})
    await store.set_messages(CHAT, {"hand:u2": None, "table": "14"})
    assert (await store.load(CHAT)).messages == {"table": "14", "hand:u1": "12"}
    assert GAME_TTL - 5 <= await store.redis.ttl(k.messages_key(CHAT)) <= GAME_TTL
    await store.save(CHAT, 1, "finished", ttl=86400)
    assert 86400 - 5 <= await store.redis.ttl(k.messages_key(CHAT)) <= 86400


async def test_chat_settings_change_only_what_is_given_and_empty_clears(store: RedisGameStore) -> None:
    await store.set_chat_settings(CHAT, words="transfer deck=24", lang="ru")
    await store.set_chat_settings(CHAT, lang="en")
    record = await store.load(CHAT)
    assert (record.settings, record.lang) == ("transfer deck=24", "en")
    await store.set_chat_settings(CHAT, words="")
    record = await store.load(CHAT)
    assert (record.settings, record.lang) == (None, "en")


async def test_last_durak_is_set_kept_and_cleared_by_saves(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "over", ttl=86400, last_durak="u7")
    await store.save(CHAT, 1, "lobby", ttl=LOBBY_TTL)
    assert (await store.load(CHAT)).last_durak == "u7"
    await store.save(CHAT, 2, "lobby", ttl=LOBBY_TTL, last_durak=LastDurak.CLEAR)
    assert (await store.load(CHAT)).last_durak is None


async def test_an_outcome_adds_each_players_stats_and_archives_the_game(store: RedisGameStore) -> None:
    game = outcome("g1", PlayerOutcome("u1", "Ann", first_out=True, points=3),
                   PlayerOutcome("u2", "Bob", points=2), PlayerOutcome("u3", "Cy", durak=True))  # fmt: skip
    assert await store.save(CHAT, 0, "over", ttl=86400, outcome=game, last_durak="u3") == 1
    assert await store.stats(CHAT) == [
        PlayerStats("u1", "Ann", games=1, first_out=1, points=3, streak=1),
        PlayerStats("u2", "Bob", games=1, points=2, streak=1),
        PlayerStats("u3", "Cy", games=1, durak=1, streak=-1),
    ]
    assert await store.archived_game("g1") == game.archive_json
    assert ARCHIVE_TTL - 5 <= await store.redis.ttl(k.archive_key("g1")) <= ARCHIVE_TTL
    assert await store.archived_game("nope") is None
    assert await store.stats(OTHER) == []


async def test_a_game_repeated_with_the_same_id_is_counted_once(store: RedisGameStore) -> None:
    game = outcome("g1", PlayerOutcome("u1", "Ann", durak=True), PlayerOutcome("u2", "Bob", first_out=True))
    await store.save(CHAT, 0, "over", ttl=86400, outcome=game)
    assert await store.save(CHAT, 0, "over", ttl=86400, outcome=game) is None  # a retried request
    assert await store.save(CHAT, 1, "over again", ttl=86400, outcome=game) == 2  # a buggy caller
    assert [s.games for s in await store.stats(CHAT)] == [1, 1]


async def test_a_draw_counts_as_played_and_scores_nothing(store: RedisGameStore) -> None:
    game = outcome("g1", PlayerOutcome("u1", "Ann", draw=True), PlayerOutcome("u2", "Bob", draw=True))
    await store.save(CHAT, 0, "over", ttl=86400, outcome=game)
    assert {s.user_id: (s.games, s.draws, s.points) for s in await store.stats(CHAT)} == {
        "u1": (1, 1, 0), "u2": (1, 1, 0),
    }  # fmt: skip


async def play_six_games(store: RedisGameStore) -> None:
    results = [  # (user, durak, first_out, points) per game
        [("a", 1, 0, 0), ("b", 0, 1, 3), ("c", 0, 0, 2), ("d", 0, 0, 1)],
        [("a", 0, 1, 3), ("b", 1, 0, 0), ("c", 0, 0, 2)],
        [("c", 0, 1, 3), ("d", 1, 0, 0)],
        [("e", 0, 0, 2), ("f", 0, 0, 1)],
        [("e", 0, 0, 1), ("f", 0, 0, 2)],
        [("e", 0, 0, 0), ("f", 0, 0, 1)],
    ]
    version = 0
    for number, players in enumerate(results):
        game = outcome(
            f"g{number}", *(PlayerOutcome(u, u.upper(), bool(d), bool(f), False, p) for u, d, f, p in players)
        )
        version = await store.save(CHAT, version, "over", ttl=86400, outcome=game) or 0


async def test_stats_order_points_then_fewest_duraks_then_games_then_first_outs(
    store: RedisGameStore,
) -> None:
    await play_six_games(store)
    # c 7 points, f 4; a, b, e 3 each, e never the durak; d 1
    ranking = [(s.user_id, s.points, s.durak, s.games, s.first_out) for s in await store.stats(CHAT)]
    assert ranking == [
        ("c", 7, 0, 3, 1), ("f", 4, 0, 3, 0), ("e", 3, 0, 3, 0),
        ("b", 3, 1, 2, 1), ("a", 3, 1, 2, 1), ("d", 1, 1, 2, 0),
    ]  # fmt: skip
    assert [s.user_id for s in await store.stats(CHAT, limit=2)] == ["c", "f"]


async def test_most_often_the_durak_names_everyone_tied_with_the_most_losses(store: RedisGameStore) -> None:
    assert await store.most_often_durak(CHAT) == []
    await play_six_games(store)
    assert [(s.user_id, s.durak) for s in await store.most_often_durak(CHAT)] == [
        ("b", 1),
        ("a", 1),
        ("d", 1),
    ]
    lost_again = outcome("g9", PlayerOutcome("d", "D", durak=True), PlayerOutcome("c", "C", first_out=True))
    await store.save(CHAT, await store_version(store), "over", ttl=86400, outcome=lost_again)
    assert await store.most_often_durak(CHAT) == [
        PlayerStats("d", "D", games=3, durak=2, points=1, streak=-2)
    ]


async def test_nobody_is_most_often_the_durak_before_anyone_lost(store: RedisGameStore) -> None:
    game = outcome("g1", PlayerOutcome("u1", "Ann", draw=True), PlayerOutcome("u2", "Bob", draw=True))
    await store.save(CHAT, 0, "over", ttl=86400, outcome=game)
    assert await store.most_often_durak(CHAT) == []


async def store_version(store: RedisGameStore) -> int:
    return (await store.load(CHAT)).version


async def test_a_player_who_changed_name_shows_the_latest_name(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "x", ttl=60, outcome=outcome("g1", PlayerOutcome("u1", "Ann")))
    await store.save(CHAT, 1, "x", ttl=60, outcome=outcome("g2", PlayerOutcome("u1", "Anna")))
    assert await store.stats(CHAT) == [PlayerStats("u1", "Anna", games=2, streak=2)]


async def test_a_save_with_a_deadline_arms_one_timer_and_the_next_save_replaces_it(
    store: RedisGameStore,
) -> None:
    await store.save(CHAT, 0, "turn 1", ttl=GAME_TTL, deadline=100.0)
    await store.save(CHAT, 1, "turn 2", ttl=GAME_TTL, deadline=200.0)
    await store.save(OTHER, 0, "other", ttl=GAME_TTL, deadline=150.0)
    assert await store.claim_due_timers(120.0, platforms=PLATFORMS) == []  # the timer of version 1 is gone
    assert sorted(await store.claim_due_timers(250.0, platforms=PLATFORMS)) == sorted([(OTHER, 1), (CHAT, 2)])
    assert await store.claim_due_timers(1e12, platforms=PLATFORMS) == []


async def test_a_worker_claims_only_the_timers_of_the_platforms_it_serves(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "telegram game", ttl=GAME_TTL, deadline=100.0)
    await store.save(OTHER, 0, "discord game", ttl=GAME_TTL, deadline=100.0)
    assert await store.claim_due_timers(200.0, platforms=[CHAT.platform]) == [(CHAT, 1)]
    assert await store.claim_due_timers(200.0, platforms=[CHAT.platform]) == []
    assert await store.claim_due_timers(200.0, platforms=[OTHER.platform]) == [(OTHER, 1)]


async def test_a_save_without_a_deadline_disarms_the_timer(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "turn", ttl=GAME_TTL, deadline=100.0)
    await store.save(CHAT, 1, "over", ttl=86400)
    assert await store.claim_due_timers(1e12, platforms=PLATFORMS) == []


async def test_claiming_takes_at_most_the_limit_in_due_order(store: RedisGameStore) -> None:
    chats = [ChatRef("tg", str(n)) for n in range(5)]
    for n, chat in enumerate(chats):
        await store.save(chat, 0, "turn", ttl=GAME_TTL, deadline=100.0 - n)
    assert await store.claim_due_timers(200.0, limit=2, platforms=PLATFORMS) == [(chats[4], 1), (chats[3], 1)]
    assert len(await store.claim_due_timers(200.0, platforms=PLATFORMS)) == 3


async def test_a_timer_claimed_by_many_workers_at_once_fires_once(store: RedisGameStore) -> None:
    for n in range(20):
        await store.save(ChatRef("tg", str(n)), 0, "turn", ttl=GAME_TTL, deadline=float(n))
    claims = await asyncio.gather(
        *(store.claim_due_timers(100.0, limit=3, platforms=PLATFORMS) for _ in range(10))
    )
    fired = [timer for claim in claims for timer in claim]
    assert sorted(fired) == sorted((ChatRef("tg", str(n)), 1) for n in range(20))


async def test_a_requeued_timer_fires_again_once(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "turn", ttl=GAME_TTL, deadline=100.0)
    assert await store.claim_due_timers(150.0, platforms=PLATFORMS) == [(CHAT, 1)]
    await store.requeue_timer(CHAT, 1, 160.0)  # handling failed; try again a bit later
    await store.requeue_timer(CHAT, 1, 170.0)  # a second requeue keeps the first due time
    assert await store.claim_due_timers(155.0, platforms=PLATFORMS) == []
    assert await store.claim_due_timers(165.0, platforms=PLATFORMS) == [(CHAT, 1)]
    assert await store.claim_due_timers(1e12, platforms=PLATFORMS) == []


async def test_load_then_save_is_two_round_trips(store: RedisGameStore) -> None:
    """On a cluster the timer index and archive take one more (see RedisGameStore's docstring)."""
    extra = 1 if store.cluster else 0
    await store.load(CHAT)  # the first use of each script on a new server costs one more (NOSCRIPT, EVAL)
    await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL)
    before = store.round_trips
    record = await store.load(CHAT)
    await store.save(CHAT, record.version, "game", ttl=GAME_TTL, deadline=100.0)
    assert store.round_trips - before == 2 + extra
    before = store.round_trips
    record = await store.load(CHAT)
    game = outcome("g", PlayerOutcome("u1", "Ann", durak=True), PlayerOutcome("u2", "Bob"))
    await store.save(CHAT, record.version, "over", ttl=86400, outcome=game)
    assert store.round_trips - before == 2 + extra


async def test_a_migrated_chat_keeps_its_game_messages_settings_stats_and_timer(
    store: RedisGameStore,
) -> None:
    old, new = ChatRef("tg", "-4001"), ChatRef("tg", "-1004001")
    await store.save(old, 0, "over", ttl=86400, outcome=outcome("g1", PlayerOutcome("u1", "Ann", durak=True)))
    await store.save(old, 1, "running", ttl=GAME_TTL, deadline=50.0, last_durak="u1")
    await store.set_messages(old, {"table": "7"})
    await store.set_chat_settings(old, words="transfer", lang="ru")
    before = await store.load(old)
    await store.migrate_chat(old, new)
    moved = await store.load(new)
    assert (moved.version, moved.state, moved.messages) == (2, "running", {"table": "7"})
    assert (moved.settings, moved.lang, moved.last_durak) == ("transfer", "ru", "u1")
    assert moved == before
    assert await store.stats(new) == [PlayerStats("u1", "Ann", games=1, durak=1, streak=-1)]
    assert GAME_TTL - 5 <= await store.redis.ttl(k.state_key(new)) <= GAME_TTL
    assert (await store.load(old)).version == 0 and await store.stats(old) == []
    await store.migrate_chat(old, new)  # a repeated migration changes nothing
    assert await store.load(new) == moved
    assert await store.claim_due_timers(100.0, platforms=PLATFORMS) == [(new, 2)]
    assert await store.save(new, 2, "next move", ttl=GAME_TTL) == 3


async def test_ping_answers(store: RedisGameStore) -> None:
    await store.ping()


@pytest.mark.parametrize("bad", ["", "a:b", "{x}", "x|y"])
def test_a_chat_ref_refuses_names_that_would_break_keys(bad: str) -> None:
    with pytest.raises(ValueError):
        ChatRef(bad, "1") if ":" in bad or not bad else ChatRef("tg", bad)


def test_a_chat_ref_prints_and_parses_as_platform_colon_id() -> None:
    ref = ChatRef("tg", "-100123")
    assert str(ref) == "tg:-100123" and ChatRef.parse(str(ref)) == ref
    assert k.state_key(ref) == "durak:{tg:-100123}:state"
    assert k.parse_timer_member(k.timer_member(ref, 12)) == (ref, 12)


async def test_a_delivery_mark_of_a_version_the_chat_does_not_have_is_not_written(
    store: RedisGameStore,
) -> None:
    """A screen drawn from data Redis lost since (a rollback, a wipe) must not be marked as delivered: the
    catch-up would take it for current (bot/outbox.py)."""
    await store.save(CHAT, 0, "lobby", ttl=LOBBY_TTL)
    await store.set_messages(CHAT, {"shown:table": "1", "shown:hand:u1": "1:abc", "table": "g1:5"})
    await store.set_messages(CHAT, {"shown:table": "9", "shown:hand:u2": "7:def", "hand:u2": "g1:6"})
    messages = (await store.load(CHAT)).messages
    assert messages == {"shown:table": "1", "shown:hand:u1": "1:abc", "table": "g1:5", "hand:u2": "g1:6"}
    await store.redis.flushall()  # Redis restarted empty
    await store.set_messages(CHAT, {"shown:table": "1"})
    assert (await store.load(CHAT)).messages == {}

"""Replays cost bounded work: who may watch is checked on the archive's own fields before anything is built, a
replay is built once, off the event loop, and kept as the bytes sent, within a budget of bytes; one person
asking too often is told to wait, and that refusal costs no Redis call (docs/reliability.md, section 11)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from aiohttp import web

from adapters.web.links import parse_replay_ref, replay_ref
from bot.game.archive import first_position
from bot.runtime.ratelimit import PressLimiter
from storage.keys import archive_key
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.web.pages import ANN, BOB, EVE, front_end, served
from tests.web.test_replay import play_to_the_end, replay_of


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis))


class Builds:
    """Every time a replay is worked out from its archive (the engine's deal, `first_position`), and on which
    thread. A build on another thread than the loop's waits for ``release`` (at most 10 s)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.threads: list[threading.Thread] = []
        self.release = threading.Event()
        self.release.set()

        def counted(record: str) -> Any:
            self.threads.append(threading.current_thread())
            if threading.current_thread() is not threading.main_thread():
                self.release.wait(10)
            return first_position(record)

        monkeypatch.setattr("bot.render.replay.first_position", counted)

    @property
    def count(self) -> int:
        return len(self.threads)


class RedisCalls:
    """The commands a client sends, counted (the store's scripts and the pages' own calls alike)."""

    def __init__(self, client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        command, pipeline = client.execute_command, client.pipeline

        async def counted(*args: Any, **options: Any) -> Any:
            self.count += 1
            return await command(*args, **options)

        def counted_pipeline(*args: Any, **options: Any) -> Any:
            self.count += 1
            return pipeline(*args, **options)

        monkeypatch.setattr(client, "execute_command", counted)
        monkeypatch.setattr(client, "pipeline", counted_pipeline)


async def archived_copies(harness: Harness, fake_redis: Any, ref: str, count: int) -> list[str]:
    """The played game's archive again under ``count`` more game ids (as if the chat had played it that
    often): their replay refs."""
    game = parse_replay_ref(ref)
    assert game is not None
    record = json.loads(await harness.store.archived_game(game.game_id) or "{}")
    refs = []
    for number in range(count):
        game_id = f"c{number:03}"
        await fake_redis.set(archive_key(game_id), json.dumps(record | {"game_id": game_id}))
        refs.append(replay_ref(harness.chat, game_id))
    return refs


async def test_someone_who_did_not_play_is_refused_before_the_replay_is_built(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    builds = Builds(monkeypatch)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answers = [await replay_of(client, EVE, ref) for _ in range(3)]
    assert [answer.status for answer in answers] == [403] * 3
    assert builds.count == 0


async def test_a_game_asked_from_another_chat_is_not_found_before_the_replay_is_built(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    game = parse_replay_ref(ref)
    assert game is not None
    builds = Builds(monkeypatch)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answer = await replay_of(client, ANN, replay_ref("-200", game.game_id))
    assert answer.status == 404 and builds.count == 0


async def test_a_replay_is_built_off_the_event_loop(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    builds = Builds(monkeypatch)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answer = await replay_of(client, ANN, ref)
    assert answer.status == 200
    assert builds.count == 1 and builds.threads[0] is not threading.main_thread()


async def test_two_players_asking_for_one_replay_at_once_get_one_build(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    builds = Builds(monkeypatch)
    front, _ = front_end(harness, fake_redis)
    loaded = 0
    archived_game = harness.store.archived_game

    async def counted(game_id: str) -> str | None:
        nonlocal loaded
        found = await archived_game(game_id)
        loaded += 1
        return found

    monkeypatch.setattr(harness.store, "archived_game", counted)
    async with served(front) as client:
        builds.release.clear()  # a build on a worker thread waits until both asks have read the archive
        asked = asyncio.gather(replay_of(client, ANN, ref), replay_of(client, BOB, ref))
        while loaded < 2 and not asked.done():
            await asyncio.sleep(0)
        builds.release.set()
        answers = await asked
        bodies = [await answer.read() for answer in answers]
    assert [answer.status for answer in answers] == [200, 200]
    assert bodies[0] == bodies[1] and builds.count == 1


async def test_a_cached_replay_is_sent_as_the_bytes_built_without_serialising_it_again(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    builds = Builds(monkeypatch)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        first = await replay_of(client, ANN, ref)
        body = await first.read()
        serialised: list[Any] = []
        json_response = web.json_response

        def counted(data: Any, **options: Any) -> web.Response:
            serialised.append(data)
            return json_response(data, **options)

        monkeypatch.setattr(web, "json_response", counted)
        again = [await replay_of(client, who, ref) for who in (ANN, BOB)]
        bodies = [await answer.read() for answer in again]
    assert first.status == 200 and first.content_type == "application/json"
    assert bodies == [body, body] and json.loads(body)["ref"] == ref
    assert builds.count == 1 and serialised == []


async def test_replays_are_cached_by_their_size_not_by_their_number(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    refs = await archived_copies(harness, fake_redis, ref, 40)  # small replays: all fit in the budget
    builds = Builds(monkeypatch)
    front, _ = front_end(harness, fake_redis)
    front.replay_limiter = PressLimiter(rate=1000, burst=1000)
    async with served(front) as client:
        statuses = [(await replay_of(client, ANN, each)).status for each in refs]
        again = await replay_of(client, ANN, refs[0])
    assert statuses == [200] * 40 and again.status == 200
    assert builds.count == 40, "the first replay was still cached after 39 more"


async def test_the_replay_cache_keeps_within_its_budget_of_bytes(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    first, second, third = await archived_copies(harness, fake_redis, ref, 3)
    measure, _ = front_end(harness, fake_redis)
    async with served(measure) as client:
        size = len(await (await replay_of(client, ANN, first)).read())
    builds = Builds(monkeypatch)
    front, _ = front_end(harness, fake_redis, replay_cache_bytes=size * 5 // 2)  # two replays fit, not three
    async with served(front) as client:
        for each in (first, second, third):
            assert (await replay_of(client, ANN, each)).status == 200
        assert builds.count == 3
        assert (await replay_of(client, BOB, third)).status == 200  # still cached
        assert builds.count == 3
        assert (await replay_of(client, BOB, first)).status == 200  # the oldest made room
        assert builds.count == 4


async def test_one_person_asking_for_replays_too_often_gets_429_and_costs_no_redis_call(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _ = await play_to_the_end(harness)
    refs = await archived_copies(harness, fake_redis, ref, 6)
    front, _ = front_end(harness, fake_redis)
    front.replay_limiter = PressLimiter(rate=0.5, burst=2, clock=lambda: 0.0)
    async with served(front) as client:
        assert [(await replay_of(client, ANN, each)).status for each in refs[:2]] == [200, 200]
        calls, trips = RedisCalls(fake_redis, monkeypatch), harness.store.round_trips
        refused = [await replay_of(client, ANN, each) for each in refs[2:]]
        texts = [await answer.json() for answer in refused]
    assert [answer.status for answer in refused] == [429] * 4
    assert texts == [{"error": "Too many requests: wait a moment."}] * 4
    assert all(int(answer.headers["Retry-After"]) >= 1 for answer in refused)
    assert calls.count == 0 and harness.store.round_trips == trips, "a refused replay never reaches Redis"


async def test_the_replay_limit_is_per_person_and_comes_back_with_time(
    harness: Harness, fake_redis: Any
) -> None:
    ref, _ = await play_to_the_end(harness)
    now = [0.0]
    front, _ = front_end(harness, fake_redis)
    front.replay_limiter = PressLimiter(rate=0.5, burst=2, clock=lambda: now[0])
    async with served(front) as client:
        ann = [(await replay_of(client, ANN, ref)).status for _ in range(3)]
        bob = (await replay_of(client, BOB, ref)).status
        now[0] += 2.0  # one more every two seconds
        later = (await replay_of(client, ANN, ref)).status
    assert ann == [200, 200, 429] and bob == 200 and later == 200

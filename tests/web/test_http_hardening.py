"""The page's HTTP answers under hostile use: refused presses and reads cost no Redis call, a press body is at
most 4 KiB on whatever app the routes are mounted on (the Telegram webhook's allows 1 MiB), and every answer
carries the headers of a web app framed by Telegram's web clients (docs/reliability.md, section 11;
docs/webapp.md, "Endpoints")."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.runtime.ratelimit import PressLimiter
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import game_now, stacked_game
from tests.web.pages import ANN, BOB, Client, auth, current_ref, front_end, press, served, state_of
from tests.web.test_replay import play_to_the_end, replay_of
from tests.web.test_replay_limits import RedisCalls

HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
PREFIX = "/app"  # WEBAPP_URL's path on the webhook's server


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis))


@asynccontextmanager
async def on_a_webhook_app(harness: Harness, fake_redis: Any) -> AsyncIterator[Client]:
    """The page's routes mounted as `adapters.web.telegram_pages` mounts them on the Telegram webhook's
    server: an app of aiohttp's defaults, whose body limit is 1 MiB."""
    front, _ = front_end(harness, fake_redis)
    app = web.Application()
    assert app._client_max_size == 1024**2

    async def webhook(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app.router.add_post("/webhook", webhook)  # the webhook's own route
    front.routes(app, PREFIX)
    async with TestClient(TestServer(app)) as client:
        yield client


async def post_press(client: Client, body: Any, path: str = "/api/press", **options: Any) -> Any:
    return await client.post(path, data=body, headers={"Authorization": auth(ANN)}, **options)


# ---- refused calls cost no Redis call -----------------------------------------------------------------


async def test_a_rate_limited_press_is_a_429_that_costs_no_redis_call(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    harness.service.limiter = PressLimiter(rate=5, burst=1, clock=lambda: 0.0)
    front, delivered = front_end(harness, fake_redis)
    async with served(front) as client:
        actions = (await state_of(client, ANN, await current_ref(harness)))["actions"]
        assert (await press(client, ANN, actions[0]["payload"]))["ok"]
        step, shown = (await game_now(harness)).step, len(delivered.calls)
        calls, trips = RedisCalls(fake_redis, monkeypatch), harness.store.round_trips
        refused = [
            await client.post(
                "/api/press", json={"payload": action["payload"]}, headers={"Authorization": auth(ANN)}
            )
            for action in actions[1:4]
        ]
        texts = [await answer.json() for answer in refused]
    assert [answer.status for answer in refused] == [429] * 3
    assert texts == [{"error": "Too many presses: wait a moment."}] * 3
    assert all(int(answer.headers["Retry-After"]) >= 1 for answer in refused)
    assert calls.count == 0 and harness.store.round_trips == trips, "a refused press never reaches Redis"
    assert len(delivered.calls) == shown and (await game_now(harness)).step == step


async def test_state_reads_over_the_limit_are_a_429_that_costs_no_redis_call(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    front.read_limiter = PressLimiter(rate=1, burst=2, clock=lambda: 0.0)
    ref = await current_ref(harness)
    async with served(front) as client:
        for _ in range(2):
            await state_of(client, ANN, ref)
        calls, trips = RedisCalls(fake_redis, monkeypatch), harness.store.round_trips
        refused = [
            await client.get("/api/state", params={"ref": ref}, headers={"Authorization": auth(ANN)})
            for _ in range(5)
        ]
        texts = [await answer.json() for answer in refused]
        spent = calls.count, harness.store.round_trips - trips
        bob = await state_of(client, BOB, ref)  # another person's budget is their own
    assert [answer.status for answer in refused] == [429] * 5
    assert texts == [{"error": "Too many requests: wait a moment."}] * 5
    assert spent == (0, 0), "a refused read never reaches Redis"
    assert bob["you"] == 1


async def test_refused_credentials_cost_no_redis_call(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay, _ = await play_to_the_end(harness)
    ref = await current_ref(harness)
    forged = {"Authorization": auth(ANN).replace("Ann", "Bob")}
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        calls, trips = RedisCalls(fake_redis, monkeypatch), harness.store.round_trips
        answers = [
            await client.get("/api/state", params={"ref": ref}, headers=forged),
            await client.get("/api/replay", params={"ref": replay}, headers=forged),
            await client.post("/api/press", json={"payload": "x"}, headers=forged),
        ]
    assert [answer.status for answer in answers] == [401] * 3
    assert calls.count == 0 and harness.store.round_trips == trips


# ---- a press body is at most 4 KiB, on every mount ---------------------------------------------------


async def test_a_900_kb_press_on_the_webhooks_app_is_refused_with_413_and_not_handled(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    async with on_a_webhook_app(harness, fake_redis) as client:
        state = await (
            await client.get(
                PREFIX + "/api/state",
                params={"ref": await current_ref(harness)},
                headers={"Authorization": auth(ANN)},
            )
        ).json()
        body = json.dumps({"payload": state["actions"][0]["payload"], "padding": "x" * 900_000})
        answer = await post_press(client, body, PREFIX + "/api/press")
        refusal = await answer.json()
    assert answer.status == 413
    assert refusal == {"error": "That request is too large."}
    assert (await game_now(harness)).step == 0, "the press was not handled"


async def test_a_press_sent_in_chunks_without_a_length_is_cut_off_after_4_kib(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    async with on_a_webhook_app(harness, fake_redis) as client:
        state = await (
            await client.get(
                PREFIX + "/api/state",
                params={"ref": await current_ref(harness)},
                headers={"Authorization": auth(ANN)},
            )
        ).json()
        payload = state["actions"][0]["payload"]

        async def chunks() -> AsyncIterator[bytes]:
            yield b'{"payload": "' + payload.encode() + b'", "padding": "'
            for _ in range(900):
                yield b"x" * 1024
            yield b'"}'

        answer = await post_press(client, chunks(), PREFIX + "/api/press")
    assert answer.status == 413
    assert (await game_now(harness)).step == 0


async def test_a_press_body_over_4_kib_on_the_pages_own_server_is_a_413_too(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        payload = (await state_of(client, ANN, await current_ref(harness)))["actions"][0]["payload"]
        answer = await post_press(client, json.dumps({"payload": payload, "padding": "x" * 5000}))
        refusal = await answer.json()
    assert answer.status == 413 and refusal == {"error": "That request is too large."}
    assert (await game_now(harness)).step == 0


async def test_a_press_of_ordinary_size_on_the_webhooks_app_is_handled(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    async with on_a_webhook_app(harness, fake_redis) as client:
        state = await (
            await client.get(
                PREFIX + "/api/state",
                params={"ref": await current_ref(harness)},
                headers={"Authorization": auth(ANN)},
            )
        ).json()
        answer = await post_press(client, json.dumps({"payload": state["actions"][0]["payload"]}),
                                  PREFIX + "/api/press")  # fmt: skip
        pressed = await answer.json()
    assert answer.status == 200 and pressed["ok"]
    assert (await game_now(harness)).step == 1


# ---- the headers of a web app framed by Telegram -----------------------------------------------------


async def test_hands_presses_and_replays_are_never_kept_by_a_cache(harness: Harness, fake_redis: Any) -> None:
    replay, _ = await play_to_the_end(harness)
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        ref = await current_ref(harness)
        state = await client.get("/api/state", params={"ref": ref}, headers={"Authorization": auth(ANN)})
        payload = (await state.json())["actions"][0]["payload"]
        pressed = await client.post(
            "/api/press", json={"payload": payload}, headers={"Authorization": auth(ANN)}
        )
        replayed = await replay_of(client, ANN, replay)
        refused = await client.get("/api/state", params={"ref": ref})
    assert [answer.status for answer in (state, pressed, replayed, refused)] == [200, 200, 200, 401]
    for answer in (state, pressed, replayed, refused):
        assert answer.headers["Cache-Control"] == "no-store", answer.url


async def test_every_answer_of_the_pages_says_nosniff(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        ref = await current_ref(harness)
        answers = [
            await client.get("/"),
            await client.get("/static/app.js"),
            await client.get("/static/nothing-here.js"),
            await client.get("/healthz"),
            await client.get("/api/strings"),
            await client.get("/api/state", params={"ref": ref}, headers={"Authorization": auth(ANN)}),
            await client.get("/api/state", params={"ref": ref}),
            await client.get("/api/replay", params={"ref": "nothing"}, headers={"Authorization": auth(ANN)}),
            await client.post("/api/press", data=b"{", headers={"Authorization": auth(ANN)}),
            await client.get("/no/such/page"),
        ]
    assert [answer.status for answer in answers] == [200, 200, 404, 200, 200, 200, 401, 404, 400, 404]
    for answer in answers:
        assert answer.headers.get("X-Content-Type-Options") == "nosniff", answer.url


def frame_ancestors(answer: Any) -> list[str]:
    policy = answer.headers["Content-Security-Policy"]
    directives = dict(part.strip().partition(" ")[::2] for part in policy.split(";") if part.strip())
    assert "X-Frame-Options" not in answer.headers
    return directives["frame-ancestors"].split()


async def test_only_telegrams_web_clients_may_frame_the_mini_apps_page(
    harness: Harness, fake_redis: Any
) -> None:
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answers = [await client.get("/"), await client.get("/", params={"ref": "-100_g1-replay"})]
    for answer in answers:
        assert frame_ancestors(answer) == [
            "https://web.telegram.org",
            "https://webk.telegram.org",
            "https://webz.telegram.org",
        ]


async def test_only_discords_clients_and_our_own_proxy_host_may_frame_the_activity(fake_redis: Any) -> None:
    """Seen on main: every application's ``https://*.discordsays.com`` could frame the Activity's page."""
    from tests.web.activity import CLIENT_ID, activity_pages, channel_harness, discord_side

    async with discord_side() as fake:
        pages, _ = activity_pages(channel_harness(fake_redis), fake_redis, fake)
        async with TestClient(TestServer(pages.app())) as client:
            ancestors = frame_ancestors(await client.get("/"))
    assert f"https://{CLIENT_ID}.discordsays.com" in ancestors and "https://discord.com" in ancestors
    assert not [origin for origin in ancestors if "*" in origin or "telegram" in origin]


async def test_the_headers_hold_where_the_routes_are_mounted_on_the_webhooks_app(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    async with on_a_webhook_app(harness, fake_redis) as client:
        page = await client.get(PREFIX + "/")
        state = await client.get(
            PREFIX + "/api/state",
            params={"ref": await current_ref(harness)},
            headers={"Authorization": auth(ANN)},
        )
    assert page.status == state.status == 200
    assert page.headers["X-Content-Type-Options"] == state.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors https://web.telegram.org" in page.headers["Content-Security-Policy"]
    assert state.headers["Cache-Control"] == "no-store" and "X-Frame-Options" not in page.headers

"""Replays: a finished game step by step in the web page, every hand shown, for the people who played it.

A stacked game is played to its end through the chat's buttons; the replay the server builds from the
archive must show exactly the positions the chat's game went through, and end on the result it stored.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any, NamedTuple
from urllib.parse import urlencode

import pytest
from playwright.async_api import Browser, Page

from adapters.telegram.miniapp import MiniApp
from adapters.telegram.render import URL, render
from adapters.web.links import game_ref, parse_ref, parse_replay_ref, replay_ref
from adapters.web.local import WebPlayOptions, nothing_to_deliver, open_game
from adapters.web.server import WebFrontEnd
from adapters.web.sessions import LocalSessions, Viewer
from bot.buttons import named
from bot.context import ServiceConfig
from bot.effects import Message, Notice
from bot.inputs import User
from bot.payloads import Payload
from bot.platforms import LOCAL
from bot.service import GameService
from core import Game
from core.commitment import CHECKS
from storage.keys import archive_key
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import game_now, press_move, stacked_game
from tests.web.browser import replay_page, serving
from tests.web.pages import ANN, BOB, EVE, TOKEN, auth, current_ref, front_end, served, state_of

HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
PEOPLE = (ANN, BOB)
APP = MiniApp("https://durak.example.org/app/", "table")


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis))


class Played(NamedTuple):
    replay: str  # the replay's ref
    positions: dict[int, Game]  # the engine's game after every step, as the chat stored it


async def play_to_the_end(harness: Harness) -> Played:
    """Play the stacked game through the chat's buttons (each time the first legal move of whoever acts);
    the last position is the one the last move left (the chat then keeps only the result)."""
    await stacked_game(harness, PEOPLE, HANDS, trump="AD")
    played = parse_ref(await current_ref(harness))
    assert played is not None
    positions: dict[int, Game] = {}
    while True:
        game = await game_now(harness)
        positions[game.step] = game
        seat = game.to_act
        assert seat is not None
        action = game.legal_actions(seat)[0]
        after = game.apply(seat, action)
        await press_move(harness, PEOPLE[seat], action.code)
        if after.is_over:
            positions[after.step] = after
            return Played(replay_ref(played.chat_id, played.game_id), positions)


async def replay_of(client: Any, user: User, ref: str) -> Any:
    return await client.get("/api/replay", params={"ref": ref}, headers={"Authorization": auth(user)})


def result_message(effects: list[Any]) -> Message:
    return next(effect.message for effect in effects if isinstance(effect, Notice) and effect.final)


async def test_a_replay_shows_every_position_the_game_went_through(harness: Harness, fake_redis: Any) -> None:
    ref, positions = await play_to_the_end(harness)
    final = positions[max(positions)]
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answer = await replay_of(client, ANN, ref)
        assert answer.status == 200, await answer.text()
        replay = await answer.json()
    assert [step["step"] for step in replay["steps"]] == sorted(positions) == list(range(final.step + 1))
    for step in replay["steps"]:
        game = positions[step["step"]]
        assert step["hands"] == [[str(card) for card in game.hand(seat)] for seat in range(game.n_players)]
        assert step["table"] == [[str(a), str(c) if c is not None else None] for a, c in game.table]
        assert (step["talon"], step["discard"]) == (game.talon_size, game.discard_size)
        assert (step["to_act"], step["out"], step["over"]) == (game.to_act, list(game.out), game.is_over)
    assert [player["name"] for player in replay["players"]] == ["Ann", "Bob"]


async def test_each_step_has_the_move_line_the_table_showed(harness: Harness, fake_redis: Any) -> None:
    ref, positions = await play_to_the_end(harness)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        replay = await (await replay_of(client, BOB, ref)).json()
    assert positions[1].log[0] == (0, "a:6S")  # Ann opens with her lowest card: the first legal move
    assert replay["steps"][0]["move"] == ["The cards are dealt."]
    assert replay["steps"][1]["move"] == ["Ann played 6♠"] and replay["steps"][1]["seat"] == 0
    assert all(step["move"] for step in replay["steps"])


async def test_the_last_step_is_the_stored_result(harness: Harness, fake_redis: Any) -> None:
    ref, _ = await play_to_the_end(harness)
    game = parse_replay_ref(ref)
    assert game is not None
    archived = json.loads(await harness.store.archived_game(game.game_id) or "{}")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        replay = await (await replay_of(client, ANN, ref)).json()
        shown_over = await state_of(client, ANN, await current_ref(harness))
    last = replay["steps"][-1]
    assert last["over"] and len(replay["steps"]) == len(archived["log"]) + 1
    durak = archived["result"]["durak"]
    assert last["out"] == archived["result"]["order_out"] and durak not in last["out"]
    assert [len(hand) > 0 for hand in last["hands"]] == [seat == durak for seat in range(2)]
    assert replay["result"] == shown_over["result"]["lines"]  # the result the chat showed
    assert shown_over["replay"] == replay["ref"] == ref


async def test_someone_who_did_not_play_the_game_is_refused(harness: Harness, fake_redis: Any) -> None:
    ref, _ = await play_to_the_end(harness)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answer = await replay_of(client, EVE, ref)
        refused = await answer.json()
    assert answer.status == 403
    assert refused == {"error": "Only the players of this game can watch its replay."}


async def test_the_game_asked_from_another_chat_is_not_found(harness: Harness, fake_redis: Any) -> None:
    ref, _ = await play_to_the_end(harness)
    game = parse_replay_ref(ref)
    assert game is not None
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answer = await replay_of(client, ANN, replay_ref("-200", game.game_id))  # Ann's game, another chat
    assert answer.status == 404


async def test_an_unknown_or_expired_game_is_a_404_that_says_why(harness: Harness, fake_redis: Any) -> None:
    ref, _ = await play_to_the_end(harness)
    game = parse_replay_ref(ref)
    assert game is not None
    await fake_redis.delete(archive_key(game.game_id))  # 30 days later: the archive's key has expired
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        expired = await replay_of(client, ANN, ref)
        unknown = await replay_of(client, ANN, replay_ref(harness.chat, "nosuch"))
        malformed = await replay_of(client, ANN, "not a ref")
        texts = [await answer.json() for answer in (expired, unknown, malformed)]
    assert [answer.status for answer in (expired, unknown, malformed)] == [404, 404, 404]
    reason = "This game is not in the archive: games are kept for 30 days after they end."
    assert texts == [{"error": reason}] * 3


async def test_a_replay_needs_signing_in(harness: Harness, fake_redis: Any) -> None:
    ref, _ = await play_to_the_end(harness)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answer = await client.get("/api/replay", params={"ref": ref})
    assert answer.status == 401


async def test_a_replay_speaks_the_viewers_language(harness: Harness, fake_redis: Any) -> None:
    ref, _ = await play_to_the_end(harness)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        replay = await (await replay_of(client, replace(ANN, lang="ru"), ref)).json()
    assert replay["lang"] == "ru" and replay["steps"][1]["move"] == ["Ann ходит 6♠"]
    assert replay["labels"]["moves"] != "Moves"


async def test_the_result_has_a_replay_button_only_with_the_web_app(fake_redis: Any) -> None:
    without = Harness(RedisGameStore(fake_redis), chat="-100")
    with_app = Harness(RedisGameStore(fake_redis), chat="-300")
    with_app.service.config = replace(with_app.service.config, app_platforms=frozenset({"tg"}))
    await play_to_the_end(without)
    ref, _ = await play_to_the_end(with_app)
    plain, offered = result_message(without.last), result_message(with_app.last)
    assert [button.label for row in plain.buttons for button in row] == ["Rematch", "The deal"]
    assert [button.label for row in offered.buttons for button in row] == ["Rematch", "The deal", "Replay"]
    keys = [key for row in render(offered, "durak_bot", app=APP).keyboard for key in row]
    assert keys[2] == ("Replay", URL, f"https://t.me/durak_bot/table?startapp={ref}")
    assert ref.startswith("-300_") and ref.endswith("-replay")
    unconfigured = [key for row in render(offered, "durak_bot").keyboard for key in row]
    assert [key[0] for key in unconfigured] == ["Rematch", "The deal"]  # a Telegram bot without the Mini App


def test_a_replay_ref_names_the_game_and_is_never_a_game_ref() -> None:
    ref = replay_ref("-100123", "k3x9")
    assert ref == "-100123_k3x9-replay" and len(ref) <= 64
    assert parse_replay_ref(ref) == parse_ref(game_ref("-100123", "k3x9"))
    assert parse_ref(ref) is None and parse_replay_ref(game_ref("-100123", "k3x9")) is None
    assert Payload("-100123", "k3x9", 0, named("V")).encode()  # the Replay button's payload fits


async def test_the_page_address_with_a_replay_ref_serves_the_replay_page(
    harness: Harness, fake_redis: Any
) -> None:
    front, _ = front_end(harness, fake_redis)
    replay = replay_ref(harness.chat, "g1")
    async with served(front) as client:
        from_telegram = await (await client.get("/", params={"tgWebAppStartParam": replay})).text()
        from_link = await (await client.get("/", params={"ref": replay})).text()
        the_game = await (await client.get("/", params={"ref": game_ref(harness.chat, "g1")})).text()
    assert "static/replay.js" in from_telegram and "static/replay.js" in from_link
    assert "static/app.js" in the_game and "replay.js" not in the_game


# ---- the page, in a browser ----------------------------------------------------------------------------


async def shown_hands(page: Page) -> list[list[str]]:
    hands: list[list[str]] = await page.evaluate(
        "() => [...document.querySelectorAll('.replay-hand')]"
        ".map(hand => [...hand.querySelectorAll('[data-card]')].map(card => card.dataset.card))"
    )
    return hands


async def test_the_slider_and_the_move_list_walk_through_the_game(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    harness.clock = time.time()
    ref, _ = await play_to_the_end(harness)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        replay = await (await replay_of(client, ANN, ref)).json()
    last = len(replay["steps"]) - 1
    page = await replay_page(browser, ANN, ref, TOKEN)
    async with serving(front) as base:
        await page.goto(
            f"{base}?{urlencode({'tgWebAppStartParam': ref})}"
        )  # as Telegram opens a startapp link
        await page.wait_for_selector("#app[data-step='0'] .replay-slider")
        assert await shown_hands(page) == replay["steps"][0]["hands"]
        await page.focus(".replay-slider")
        await page.keyboard.press("End")
        await page.wait_for_selector(f"#app[data-step='{last}'] .replay-result")
        assert await shown_hands(page) == replay["steps"][last]["hands"]
        assert await page.locator(".replay-result p").all_inner_texts() == replay["result"]
        seal = page.locator(".replay-seal")  # the browser's own check of the deal, by the command's checks
        assert await seal.get_attribute("data-checks") == " ".join(CHECKS)
        assert await seal.get_attribute("data-seal") == "hash"  # the stacked deck is not the one sealed
        await page.keyboard.press("ArrowLeft")
        await page.wait_for_selector(f"#app[data-step='{last - 1}']")
        await page.click(".replay-moves li[data-step='1']")
        await page.wait_for_selector("#app[data-step='1']")
        line = await page.locator(".replay-line").inner_text()
        table = await page.evaluate(
            "() => [...document.querySelectorAll('.pair [data-card]')].map(c => c.dataset.card)"
        )
    assert line == "Ann played 6♠" and table == ["6S"]


async def test_the_browser_games_player_watches_its_replay_with_their_session(fake_redis: Any) -> None:
    service = GameService(RedisGameStore(fake_redis), ServiceConfig(ai_delay=0), seed_source=lambda: 7)
    tess = User("you", "Tess")
    ref = await open_game(service, tess, WebPlayOptions(words="deck=24 timer=0", ai="easy"))
    sessions = LocalSessions(Viewer(LOCAL, tess), ref)
    front = WebFrontEnd(service, fake_redis, nothing_to_deliver, local=sessions)
    headers = {"Authorization": f"session {sessions.redeem(sessions.new_key())}"}
    async with served(front) as client:
        state = await (await client.get("/api/state", params={"ref": ref}, headers=headers)).json()
        for _move in range(200):  # the AI seat answers at once: every state is Tess's turn, or the end
            if state["phase"] == "over":
                break
            pressed = {"payload": state["actions"][0]["payload"]}
            state = (await (await client.post("/api/press", json=pressed, headers=headers)).json())["state"]
        answer = await client.get("/api/replay", params={"ref": state["replay"]}, headers=headers)
        replay = await answer.json()
    assert answer.status == 200 and state["phase"] == "over"
    assert [player["name"] for player in replay["players"]] == ["Tess", "🤖 AI 1 (easy)"]
    assert replay["result"] == state["result"]["lines"]

"""The page's API: a viewer's own state, presses through the service like buttons, refusals with reasons."""

from __future__ import annotations

from typing import Any

import pytest

from bot import payloads
from bot.buttons import named
from bot.effects import Effect, ShowHand, ShowTable
from bot.game.membership import MembershipCheck
from bot.inputs import Input
from bot.payloads import Payload
from bot.platforms import TELEGRAM
from core import Card
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import game_now, stacked_game
from tests.web.pages import ANN, BOB, EVE, auth, current_ref, front_end, press, served, state_of

HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis, counting_versions=True))


async def test_a_player_gets_their_own_hand_and_moves(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        state = await state_of(client, ANN, await current_ref(harness))
    assert state["phase"] == "play" and state["you"] == 0
    assert sorted(state["hand"]) == sorted(HANDS[0].split())
    assert {action["card"] for action in state["actions"]} == set(HANDS[0].split())
    assert all(action["kind"] == "attack" for action in state["actions"])
    assert state["seats"][0]["acting"] and state["seats"][0]["role"] == "attacker"
    assert state["seats"][1] | {"cards": 6, "role": "defender", "acting": False} == state["seats"][1]
    assert state["trump"] == "D" and state["talon"] == 24
    assert state["status"] == "Your move: attack with any card."


async def test_a_press_goes_through_the_service_and_reaches_the_chat(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, delivered = front_end(harness, fake_redis)
    version = await harness.version()
    async with served(front) as client:
        ref = await current_ref(harness)
        attack = next(a for a in (await state_of(client, ANN, ref))["actions"] if a["card"] == "6S")
        answer = await press(client, ANN, attack["payload"])
    assert answer["ok"] and "reason" not in answer
    assert answer["state"]["version"] == version + 1 == await harness.version()
    assert answer["state"]["table"] == [["6S", None]]
    assert (await game_now(harness)).table == [(Card.parse("6S"), None)]
    [(platform, chat_id, effects)] = delivered.calls
    assert (platform, chat_id) == (TELEGRAM, harness.chat)
    assert any(isinstance(e, ShowTable) for e in effects) and any(isinstance(e, ShowHand) for e in effects)


async def test_a_stale_press_is_refused_with_its_reason(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        ref = await current_ref(harness)
        actions = (await state_of(client, ANN, ref))["actions"]
        assert (await press(client, ANN, actions[0]["payload"]))["ok"]
        version = await harness.version()
        again = await press(client, ANN, actions[1]["payload"])  # drawn before the first move
    assert not again["ok"]
    assert again["reason"] == "That button is out of date: use the newest message."
    assert again["state"]["version"] == version == await harness.version()


async def test_a_refused_press_is_not_ok_when_another_input_saved_at_the_same_instant(
    harness: Harness, fake_redis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    handle = harness.service.handle

    async def bob_takes_first(event: Input, membership: MembershipCheck | None = None) -> list[Effect]:
        monkeypatch.setattr(harness.service, "handle", handle)
        # Bob's take is saved after the page's press arrived and before the service handles it
        await harness.press(BOB, take["payload"])
        return await handle(event, membership)

    async with served(front) as client:
        ref = await current_ref(harness)
        actions = (await state_of(client, ANN, ref))["actions"]
        await press(client, ANN, actions[0]["payload"])
        [take] = (await state_of(client, BOB, ref))["actions"]
        version = await harness.version()
        monkeypatch.setattr(harness.service, "handle", bob_takes_first)
        stale = await press(client, ANN, actions[1]["payload"])
    assert not stale["ok"] and "note" not in stale
    assert stale["reason"] == "That button is out of date: use the newest message."
    assert stale["state"]["version"] == version + 1 == await harness.version()  # Bob's take only


async def test_an_illegal_press_is_refused_with_the_rules_reason(harness: Harness, fake_redis: Any) -> None:
    game = await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        ref = await current_ref(harness)
        attack = next(a for a in (await state_of(client, ANN, ref))["actions"] if a["card"] == "6S")
        await press(client, ANN, attack["payload"])
        bob = await state_of(client, BOB, ref)
        assert [a["kind"] for a in bob["actions"]] == ["take"]  # hearts cannot beat a spade, trumps are ♦
        game_id = ref.rpartition("_")[2]
        forged = Payload(harness.chat, game_id, bob["step"], named("c:0:7H")).encode()
        refused = await press(client, BOB, forged)
    assert not refused["ok"] and refused["reason"]
    assert "7♥" in refused["reason"] or "6♠" in refused["reason"]
    assert refused["state"]["version"] == bob["version"]
    assert game.step < bob["step"]


async def test_a_spectator_gets_the_public_table_only(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        state = await state_of(client, EVE, await current_ref(harness))
    assert state["you"] is None and state["hand"] == [] and state["actions"] == []
    assert [seat["cards"] for seat in state["seats"]] == [6, 6]
    assert state["status"] == "Ann attacks"


async def test_a_ref_to_an_older_game_shows_the_current_one_to_its_players_only(
    harness: Harness, fake_redis: Any
) -> None:
    await harness.command(ANN, "newgame")
    old_ref = await current_ref(harness)
    await harness.tap(ANN, "Cancel")
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        ann = await state_of(client, ANN, old_ref)
        eve = await client.get("/api/state", params={"ref": old_ref}, headers={"Authorization": auth(EVE)})
        assert eve.status == 404 and (await eve.json())["error"]
    assert ann["ref"] == await current_ref(harness) != old_ref and ann["you"] == 0


async def test_a_lobby_shows_its_players_and_buttons(harness: Harness, fake_redis: Any) -> None:
    await harness.command(ANN, "newgame", "transfer")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        state = await state_of(client, BOB, await current_ref(harness))
        join = next(b for b in state["buttons"] if b["label"] == "Join")
        joined = await press(client, BOB, join["payload"])
    assert state["phase"] == "lobby" and state["lobby"]["players"] == ["Ann"]
    assert "Transfer (perevodnoy)" in state["lobby"]["rules"][0]
    assert joined["ok"] and joined["state"]["lobby"]["players"] == ["Ann", "Bob"]
    assert joined["state"]["you"] == 1


async def test_a_lobbys_page_counts_its_players_against_the_seats_its_deck_has_room_for(
    harness: Harness, fake_redis: Any
) -> None:
    await harness.command(ANN, "newgame", "deck=24")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        state = await state_of(client, ANN, await current_ref(harness))
    assert state["lobby"]["capacity"] == 4
    assert "1 player / 4" in state["lobby"]["lines"]


async def test_a_game_over_shows_the_result_and_rematch(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    ref = await current_ref(harness)
    await harness.surrender(BOB)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        state = await state_of(client, BOB, ref)
    assert state["phase"] == "over" and state["actions"] == []
    assert state["result"]["lines"][0] == "Game over: Bob surrendered and is the durak."
    assert state["result"]["you"] == "You are the durak."
    assert [b["label"] for b in state["buttons"]] == ["Rematch"]
    assert sorted(state["hand"]) == sorted(HANDS[1].split())  # their own cards as the game ended


async def test_the_rematch_on_a_finished_games_page_opens_a_lobby_in_its_chat(
    harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    ref = await current_ref(harness)
    await harness.surrender(BOB)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        (rematch,) = (await state_of(client, BOB, ref))["buttons"]
        parsed = payloads.parse(rematch["payload"])
        assert parsed is not None and parsed.chat_id == harness.chat, "the button names the game's chat"
        answer = await press(client, BOB, rematch["payload"])
    assert answer["ok"] and answer["state"]["phase"] == "lobby"


async def test_a_viewer_without_valid_credentials_is_refused(harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, _ = front_end(harness, fake_redis)
    ref = await current_ref(harness)
    forged = auth(ANN).replace("Ann", "Bob")
    async with served(front) as client:
        for header in ("", "tma ", forged, "session made-up", "key nothing"):
            answer = await client.get("/api/state", params={"ref": ref}, headers={"Authorization": header})
            assert answer.status == 401, header
            assert (await answer.json())["error"]
        payload = (await state_of(client, ANN, ref))["actions"][0]["payload"]
        pressed = await client.post(
            "/api/press", json={"payload": payload}, headers={"Authorization": forged}
        )
        assert pressed.status == 401
    assert (await game_now(harness)).step == 0


async def test_the_pages_labels_come_in_the_asked_language(harness: Harness, fake_redis: Any) -> None:
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        english = await (await client.get("/api/strings", params={"lang": "en"})).json()
        russian = await (await client.get("/api/strings", params={"lang": "ru"})).json()
    assert english and english.keys() == russian.keys()
    assert any(russian[label] != english[label] for label in english)


async def test_the_page_and_its_files_are_revalidated_after_a_deploy(
    harness: Harness, fake_redis: Any
) -> None:
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        page = await client.get("/")
        script = await client.get("/static/app.js")
        again = await client.get("/static/app.js", headers={"If-None-Match": script.headers["ETag"]})
    assert page.status == script.status == 200
    assert page.headers["Cache-Control"] == script.headers["Cache-Control"] == "no-cache"
    assert again.status == 304 and again.headers["Cache-Control"] == "no-cache"

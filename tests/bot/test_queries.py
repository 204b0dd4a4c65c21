"""The read side (bot/queries.py): what a chat's stored game shows between inputs, asked of
`service.queries` by the adapters instead of loading and decoding the store themselves."""

from __future__ import annotations

import pytest

from bot.game.archive import Archived
from bot.queries import NotForYou, Sight, Snapshot
from bot.session import Finished, Lobby, Playing
from core import Card
from storage import ChatRef
from storage import keys as k
from tests.bot.conftest import ANN, BOB, EVE
from tests.bot.harness import CHAT, Harness
from tests.bot.stacked import first_moves_to_the_end, stacked_game

CHAT_REF = ChatRef("tg", CHAT)
HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]


async def snapshot(harness: Harness, final: bool = False) -> Snapshot:
    return await harness.service.queries.snapshot(CHAT_REF, final=final)


async def play_to_the_end(harness: Harness) -> str:
    """The stacked game played through the chat's buttons, each time the first legal move; its id."""
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    await first_moves_to_the_end(harness, (ANN, BOB))
    header = (await snapshot(harness)).session
    assert header is not None and isinstance(header.header, Finished)
    return header.header.game_id


async def test_the_snapshot_of_a_chat_with_nothing_stored_has_no_session(harness: Harness) -> None:
    found = await snapshot(harness)
    assert found.session is None and not found.unreadable
    assert found.sight("g1", ANN.id) is Sight.HIDDEN


async def test_the_snapshot_of_an_unreadable_record_has_no_session_and_says_it_is_unreadable(
    harness: Harness,
) -> None:
    await harness.store.redis.set(k.version_key(CHAT_REF), 5)
    await harness.store.redis.set(k.state_key(CHAT_REF), '{"kind":"game","game_id":', ex=3600)
    found = await snapshot(harness)
    assert found.session is None and found.unreadable and found.version == 5
    assert found.sight("g1", ANN.id) is Sight.HIDDEN
    assert (await harness.store.load(CHAT_REF)).state is not None, "asking sets nothing aside"


async def test_a_lobby_is_shown_to_anyone_holding_its_ref(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    found = await snapshot(harness)
    assert found.session is not None and isinstance(found.session.header, Lobby)
    lobby_id = found.session.header.lobby_id
    assert found.sight(lobby_id, EVE.id) is Sight.SHOWN
    assert found.sight("older", EVE.id) is Sight.HIDDEN
    assert found.sight("older", ANN.id) is Sight.SHOWN, "a ref to an older game shows it to the seated"


async def test_the_lobbys_ref_offers_its_started_game_to_watch_only_to_those_not_seated(
    harness: Harness,
) -> None:
    await harness.command(ANN, "newgame")
    lobby = (await snapshot(harness)).session
    assert lobby is not None and isinstance(lobby.header, Lobby)
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    found = await snapshot(harness)
    assert found.session is not None and isinstance(found.session.header, Playing)
    game_id = found.session.header.game_id
    assert found.sight(lobby.header.lobby_id, EVE.id) is Sight.STARTED
    assert found.sight(lobby.header.lobby_id, BOB.id) is Sight.SHOWN
    assert found.sight(game_id, EVE.id) is Sight.SHOWN, "a spectator with the game's ref"
    assert found.sight("older", EVE.id) is Sight.HIDDEN
    assert found.seat(ANN.id) == 0 and found.seat(EVE.id) is None


async def test_a_persons_seat_is_asked_of_the_snapshot_and_an_ai_seat_is_no_ones(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(BOB, "Join")
    found = await snapshot(harness)
    assert found.session is not None and isinstance(found.session.header, Lobby)
    ai_seat = found.session.header.seats[1]
    assert ai_seat.is_ai
    assert (found.seat(ANN.id), found.seat(BOB.id), found.seat(EVE.id)) == (0, 2, None)
    assert found.seat(ai_seat.user_id) is None


@pytest.mark.parametrize(("words", "seats"), [("deck=24", 4), ("deck=36", 6), ("deck=52", 6)])
async def test_a_lobby_has_room_for_six_seats_or_as_many_as_its_deck_gives_six_cards_to(
    harness: Harness, words: str, seats: int
) -> None:
    await harness.command(ANN, "newgame", words)
    found = (await snapshot(harness)).session
    assert found is not None and isinstance(found.header, Lobby)
    assert found.header.capacity == seats


async def test_the_final_position_of_a_finished_game_is_replayed_from_its_archive(harness: Harness) -> None:
    game_id = await play_to_the_end(harness)
    found = await snapshot(harness, final=True)
    assert found.final is not None and found.final.game.is_over and found.final.game.result is not None
    assert found.final.events, "the last steps' events, as the table showed them"
    assert (await snapshot(harness)).final is None, "only when asked for"
    await harness.store.redis.delete(k.archive_key(game_id))
    assert await harness.service.queries.final_game(game_id) is found.final, "kept: an archive never changes"


async def test_an_archived_game_is_for_its_players_asking_from_its_chat_only(harness: Harness) -> None:
    game_id = await play_to_the_end(harness)
    queries = harness.service.queries
    found = await queries.archived_for(CHAT_REF, game_id, ANN.id)
    assert isinstance(found, Archived) and found.people == {ANN.id, BOB.id}
    assert await queries.archived_for(CHAT_REF, game_id, EVE.id) is NotForYou.NOT_A_PLAYER
    elsewhere = ChatRef("tg", "-200")
    assert await queries.archived_for(elsewhere, game_id, ANN.id) is NotForYou.NOT_ARCHIVED
    assert await queries.archived_for(CHAT_REF, "nosuch", ANN.id) is NotForYou.NOT_ARCHIVED


async def test_why_a_card_cannot_be_played_is_asked_of_the_stored_game(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    queries = harness.service.queries
    assert await queries.card_refusal(CHAT_REF, ANN.id, Card.parse("6H")) == "You do not hold 6♥."
    assert await queries.card_refusal(CHAT_REF, ANN.id, Card.parse("6S")) is None, "a move plays it"
    assert await queries.card_refusal(CHAT_REF, EVE.id, Card.parse("6H")) is None, "no seat, no reason"

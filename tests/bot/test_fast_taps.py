"""Fast taps: a card move drawn earlier in the same bout is made when it is still legal for the same player
(same card, same target); a tap from an earlier bout, on another player's turn, or no longer legal is refused
as out of date (and the presser's hand is shown again); a double tap is never applied twice."""

from __future__ import annotations

from bot.effects import ShowHand
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness
from tests.bot.stacked import game_now, press_move, stacked_game
from tests.core.helpers import hand

HANDS = ["6H 6C 7S 9D TD KC", "QD 7H 8C 9C 7D 8D", "JC JS QS KS TC 8S"]  # trumps: spades (A♠ turned up)
OUT_OF_DATE = "That button is out of date: use the newest message."


async def test_a_double_tap_never_applies_twice(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H", drawn_at=0)
    version = await harness.version()
    await press_move(harness, ANN, "a:6H", drawn_at=0)
    game = await game_now(harness)
    assert (game.step, await harness.version()) == (1, version)
    assert harness.screen.alerts[-1].text == OUT_OF_DATE


async def test_a_double_tap_of_a_cover_never_applies_twice(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "c:0:7H", drawn_at=1)
    await press_move(harness, ANN, "a:6C")
    await press_move(harness, BOB, "c:0:7H", drawn_at=1)
    game = await game_now(harness)
    assert game.step == 3 and game.covers == (game.covers[0], -1), "6♣ is still waiting for a cover"


async def test_a_throw_in_drawn_earlier_in_the_bout_is_made_while_still_legal(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "c:0:7H")  # step 2: Ann's hand offers 6♣ and 7♠
    await press_move(harness, ANN, "a:6C", drawn_at=2)
    await press_move(harness, BOB, "c:1:8C")
    await press_move(harness, ANN, "a:7S", drawn_at=2)  # tapped before her hand was drawn again
    game = await game_now(harness)
    assert [str(c) for c, _cover in game.table] == ["6H", "6C", "7S"]
    assert not any(alert.text == OUT_OF_DATE for alert in harness.screen.alerts)


async def test_an_earlier_tap_on_another_players_turn_is_refused_and_shows_the_hand(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "c:0:7H")
    await press_move(harness, ANN, "a:6C", drawn_at=2)
    await press_move(harness, ANN, "a:7S", drawn_at=2)  # Bob is defending against 6♣ now
    game = await game_now(harness)
    assert game.step == 3 and len(game.attacks) == 2
    assert harness.screen.alerts[-1].text == OUT_OF_DATE
    assert any(isinstance(e, ShowHand) and e.user_id == ANN.id for e in harness.last), (
        "her hand is shown again"
    )


async def test_a_pass_drawn_before_a_new_card_came_is_refused(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "c:0:7H")
    await press_move(harness, ANN, "a:6C", drawn_at=2)
    await press_move(harness, BOB, "c:1:8C")
    await press_move(harness, ANN, "p", drawn_at=2)  # her pass answered a table with one pair on it
    assert (await game_now(harness)).step == 4
    assert harness.screen.alerts[-1].text == OUT_OF_DATE


async def test_a_tap_from_an_earlier_bout_is_refused_even_when_legal_now(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS[:2], trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "t")  # step 2: Ann may throw in 6♣
    await press_move(harness, ANN, "p")  # Bob picks up; Ann opens the next bout
    game = await game_now(harness)
    assert game.to_act == 0 and game.bout_number == 2 and any(str(c) == "6C" for c in hand(game, 0))
    await press_move(harness, ANN, "a:6C", drawn_at=2)
    assert (await game_now(harness)).step == game.step
    assert harness.screen.alerts[-1].text == OUT_OF_DATE

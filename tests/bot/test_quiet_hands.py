"""Hand edits in chat play (docs/telegram.md §3): a hand is edited when what its player holds or may do
changes, not for the table's context. The mover's own hand shows their move at once: the card gone, and the
buttons they still have, or none (seen on main: left as it was for 12 s, read as a failed tap and tapped
again). Every old button stays safe."""

from __future__ import annotations

from bot.effects import Alert, Effect, ShowHand
from bot.inputs import User
from core import Game
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness
from tests.bot.stacked import game_now, press_move, stacked_game

DAN = User("4", "Dan")
PLAYERS = (ANN, BOB, CAT, DAN)
# trumps: spades (A♠ turned up); Ann attacks Bob; Cat and Dan hold no six
HANDS = ["6H 6C 7S 9D TD KC", "QD 7H 8C 9C 7D 8D", "JC JS QS KS TC 8S", "9H TH JH QH KH AD"]
OUT_OF_DATE = "That button is out of date: use the newest message."


def hands_of(effects: list[Effect]) -> set[str]:
    return {effect.user_id for effect in effects if isinstance(effect, ShowHand)}


def answer_to(effects: list[Effect], user: User) -> str:
    return next(e.text for e in effects if isinstance(e, Alert) and e.user_id == user.id)


def buttons_of(harness: Harness, user: User) -> list[str]:
    return [button.label for row in harness.screen.hands[user.id].buttons for button in row]


async def test_the_movers_hand_shows_their_move_at_once_and_the_answer_says_what_was_played(
    harness: Harness,
) -> None:
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    effects = await press_move(harness, ANN, "a:6H")
    assert hands_of(effects) == {ANN.id, BOB.id}, "Ann's own hand and the defender's; not Cat's or Dan's"
    assert "6♥" not in harness.screen.hands[ANN.id].plain_text and buttons_of(harness, ANN) == []
    assert answer_to(effects, ANN) == "You played 6♥."


async def test_a_waiting_hand_is_not_edited_when_the_defender_takes(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    effects = await press_move(harness, BOB, "t")
    assert CAT.id not in hands_of(effects) and DAN.id not in hands_of(effects)
    assert BOB.id in hands_of(effects) and buttons_of(harness, BOB) == [], "he waits for the throw-ins now"
    assert answer_to(effects, BOB) == "You take the cards."


async def test_the_movers_hand_is_edited_when_a_take_gives_them_cards(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "t")
    effects = await press_move(harness, ANN, "p")  # the bout ends: Bob picks up 6♥
    assert BOB.id in hands_of(effects)
    assert "6♥" in harness.screen.hands[BOB.id].plain_text


async def test_the_movers_hand_is_edited_when_the_draw_after_the_bout_refills_it(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "t")
    effects = await press_move(harness, ANN, "p")  # her own press, and she draws a card for the 6♥
    assert ANN.id in hands_of(effects)
    assert answer_to(effects, ANN) == "You passed."


async def test_the_movers_hand_shows_the_buttons_left_while_they_act_again(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, ["6H 6C 6D 9D TD KC", *HANDS[1:]], trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "t")
    drawn = (await game_now(harness)).step  # Ann may throw in 6♣ or 6♦, or pass
    effects = await press_move(harness, ANN, "a:6C")
    game = await game_now(harness)
    assert ANN.id in hands_of(effects) and game.to_act == 0
    assert "6♣" not in buttons_of(harness, ANN) and "6♦" in buttons_of(harness, ANN)
    assert answer_to(effects, ANN) == "You played 6♣."
    await press_move(
        harness, ANN, "p", drawn_at=drawn
    )  # a Pass tapped on the older hand, before the new came
    assert (await game_now(harness)).step == game.step + 1, "made: nobody else moved since it was drawn"


async def test_a_stale_press_on_an_older_hand_is_refused_and_draws_it_again(
    harness: Harness,
) -> None:
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    version = await harness.version()
    effects = await press_move(harness, ANN, "a:6C", drawn_at=0)  # Bob is defending now
    assert await harness.version() == version
    assert answer_to(effects, ANN) == OUT_OF_DATE
    assert hands_of(effects) == {ANN.id}
    assert "6♥" not in harness.screen.hands[ANN.id].plain_text, "her hand as it is now"


async def test_a_double_tap_on_an_older_hand_never_applies_twice(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "t")
    await press_move(harness, BOB, "t", drawn_at=1)  # his Take again, on the hand before his first tap
    game = await game_now(harness)
    assert game.step == 2 and harness.screen.alerts[-1].text == OUT_OF_DATE


async def test_a_timed_out_move_draws_the_hand_again(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    harness.clock += 600  # Bob never answers: the safe default (take) is played for him
    effects = await harness.fire_timers()
    assert (await game_now(harness)).step == 2
    assert BOB.id in hands_of(effects), "he did not press: his hand shows what was played for him"


async def test_a_discord_hand_is_drawn_again_after_its_own_press(fake_redis: object) -> None:
    harness = Harness(RedisGameStore(fake_redis), platform="dc")  # type: ignore[arg-type]
    await stacked_game(harness, PLAYERS, HANDS, trump="AS")
    effects = await press_move(harness, ANN, "a:6H")
    assert hands_of(effects) == {ANN.id, BOB.id}, "Discord answers a press by editing the hand itself"
    assert answer_to(effects, ANN) == ""


# a 24-card deck dealt out whole (no talon): players go out as their last card leaves
WHOLE_DECK = ["9H TH JH QH KH AH", "9S TS JS QS KS AS", "9C TC JC QC KC AC", "9D TD JD QD KD AD"]


async def play_out(harness: Harness) -> tuple[Game, dict[str, list[Effect]]]:
    """First legal moves to the end: the game over, and per person the effects given after they went out."""
    after_out: dict[str, list[Effect]] = {user.id: [] for user in PLAYERS}
    game = await game_now(harness)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        action = game.legal_actions(seat)[0]
        effects = await press_move(harness, PLAYERS[seat], action.code)
        for out in game.out:
            user = PLAYERS[out].id
            after_out[user] += [e for e in effects if isinstance(e, ShowHand) and e.user_id == user]
        game = game.apply(seat, action)
    return game, after_out


async def test_a_player_who_goes_out_is_told_their_place_and_the_end_leaves_their_hand_alone(
    harness: Harness,
) -> None:
    await stacked_game(harness, PLAYERS, WHOLE_DECK, trump=None, words="deck=24")
    game, after_out = await play_out(harness)
    assert game.result is not None and not game.result.draw and game.out
    first = PLAYERS[game.out[0]]
    assert "You are out. Well played!\nYou finished 1st." in harness.screen.hands[first.id].plain_text
    assert hands_of(after_out[first.id]) == set(), "the place said when out stands: no edit at the end"


async def test_in_a_team_game_an_out_players_hand_waits_for_the_teams_result(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, WHOLE_DECK, trump=None, words="deck=24 teams")
    game, after_out = await play_out(harness)
    first = PLAYERS[game.out[0]]
    assert first.id in hands_of(after_out[first.id]), "the end tells them whether their team won"
    assert "You finished" not in harness.screen.hands[first.id].plain_text

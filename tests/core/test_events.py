"""The events the engine records after the actions (`core.events`): one test per kind on stacked decks, who may
see a draw, the JSON round trip (also of a game saved before events existed), and invariants over random
games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import Card, Game
from core.events import (
    BoutEnded,
    BoutStarted,
    Drew,
    Event,
    GameOver,
    TrumpExchanged,
    TrumpsChanged,
    TurnedUpCardDrawn,
    WentOut,
)
from tests.core.helpers import cards, game_with, play, replayed
from tests.core.test_going_out import FIRST_BOUT, SECOND_BOUT, whole_deck_game
from tests.core.test_serialization import random_states, random_step

OLD_SAVE = Path(__file__).parent / "stored" / "game_before_events.json"


def mask(text: str) -> int:
    """``mask("6S QS")``: the cards as the engine's bitmask."""
    return sum(1 << card.id for card in cards(text))


def card(text: str) -> int:
    return Card.parse(text).id


def two_players(words: str = "") -> Game:
    """36 cards, hearts trumps; seat 0 leads, and draws AS first from the talon, then KS."""
    return game_with(
        ["6S 7S 8S 9S TS JS", "7C 8C 9C TC JC QS"], trump="9H", talon="AS KS", settings=words, opener=0
    )


def three_players() -> Game:
    """36 cards: seat 0 leads 6S against seat 1, seat 2 can throw in 6D; the talon starts AS KS QC JH."""
    return game_with(
        ["6S 7S 8S 9S TS JS", "7C 8C 9C QS QD KC", "6D 7D 8D 9D TD JD"],
        trump="9H",
        talon="AS KS QC JH",
        opener=0,
    )


def small_table(words: str = "") -> Game:
    """24 cards and 3 players: a talon of six (five face down, then 9H) that one refill uses up."""
    return game_with(
        ["9S 9C 9D TS TC TD", "JS JC JD QS QC QD", "KS KC KH AS AC AH"],
        trump="9H",
        talon="TH JH QH AD KD",
        settings=f"deck=24 {words}",
        opener=0,
    )


THREE_BEATEN_OFF = ("0 a:9S", "1 c:0:JS", "0 a:9C", "1 c:1:JC", "0 a:9D", "1 c:2:JD")


def test_a_bout_start_records_its_attacker_defender_and_cap() -> None:
    assert two_players().events() == [(0, BoutStarted(0, 1, 6))]
    first5 = two_players("first5")
    assert first5.events() == [(0, BoutStarted(0, 1, 5))]
    after = play(first5, "0 a:6S", "1 c:0:QS")
    assert after.events(since=2)[-1] == (2, BoutStarted(1, 0, 6))  # only the first bout holds five


def test_beating_off_records_the_cards_beaten_off() -> None:
    game = play(two_players(), "0 a:6S", "1 c:0:QS")  # seat 0 holds no 6 or queen: the bout is over
    assert game.events(since=2) == [
        (2, BoutEnded(1, False, mask("6S QS"))),
        (2, Drew(0, 1, mask("AS"))),
        (2, Drew(1, 1, mask("KS"))),
        (2, BoutStarted(1, 0, 6)),
    ]


def test_taking_records_the_cards_taken() -> None:
    game = play(two_players(), "0 a:6S", "1 t")
    assert game.events(since=2) == [
        (2, BoutEnded(1, True, mask("6S"))),
        (2, Drew(0, 1, mask("AS"))),  # seat 1 holds seven now and draws nothing
        (2, BoutStarted(0, 1, 6)),
    ]


def test_refill_records_who_drew_how_many_in_order() -> None:
    game = play(three_players(), "0 a:6S", "1 c:0:QS", "2 a:6D", "1 c:1:QD")
    assert game.events(since=4) == [
        (4, BoutEnded(1, False, mask("6S QS 6D QD"))),
        (4, Drew(0, 1, mask("AS"))),  # the opener first, then clockwise, the defender last
        (4, Drew(2, 1, mask("KS"))),
        (4, Drew(1, 2, mask("QC JH"))),
        (4, BoutStarted(1, 2, 6)),
    ]


def test_a_drawn_card_is_private_to_its_seat() -> None:
    game = play(three_players(), "0 a:6S", "1 c:0:QS", "2 a:6D", "1 c:1:QD")

    def draws(seat: int | None) -> list[Drew]:
        return [event for _, event in game.view(seat).events if isinstance(event, Drew)]

    assert draws(0) == [Drew(0, 1, mask("AS")), Drew(2, 1, None), Drew(1, 2, None)]
    assert draws(1) == [Drew(0, 1, None), Drew(2, 1, None), Drew(1, 2, mask("QC JH"))]
    assert draws(None) == [Drew(0, 1, None), Drew(2, 1, None), Drew(1, 2, None)]


def test_drawing_the_last_card_records_the_turned_up_card_drawn() -> None:
    game = play(small_table(), *THREE_BEATEN_OFF)
    assert game.events(since=6) == [
        (6, BoutEnded(1, False, mask("9S JS 9C JC 9D JD"))),
        (6, Drew(0, 3, mask("TH JH QH"))),
        (6, Drew(1, 3, mask("AD KD 9H"))),
        (6, TurnedUpCardDrawn(1, card("9H"))),
        (6, BoutStarted(1, 2, 6)),
    ]


def test_severny_records_the_new_trumps_and_who_drew_the_card() -> None:
    game = play(small_table("severny"), *THREE_BEATEN_OFF)
    assert game.events(since=6)[2:4] == [(6, Drew(1, 3, mask("AD KD 9H"))), (6, TrumpsChanged(1, card("KD")))]
    assert game.trump == "D"


def test_an_exchange_records_the_trump_taken_and_the_lowest_trump_put_under_the_talon() -> None:
    game = game_with(["6S 7S 8S 9S TS JS", "6H 7C 8C 9C TC JC"], trump="9H", settings="exchange", opener=0)
    assert play(game, "1 e").events(since=1) == [(1, TrumpExchanged(1, card("9H"), card("6H")))]


def test_going_out_records_the_seat_and_its_place() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT)  # the talon is empty: out the moment the last card leaves
    outs = [(step, event) for step, event in game.events() if isinstance(event, WentOut)]
    assert outs == [(11, WentOut(0, 1)), (12, WentOut(1, 2))]


def test_a_hand_emptied_while_the_talon_lasted_goes_out_after_the_refill_that_empties_the_talon() -> None:
    game = game_with(
        ["9S 9C 9D KS KC KD", "TS TC TD JH QH KH", "TH JS JC QS QC QD"],
        trump="AH",
        settings="deck=24",
        opener=0,
    )
    game = play(
        game,
        *("0 a:9S", "1 c:0:TS", "0 a:9C", "1 c:1:TC", "0 a:9D", "1 c:2:TD"),
        *("2 a:TH", "1 c:3:JH", "2 a:JS", "1 c:4:QH", "2 a:JC", "1 c:5:KH"),
    )
    kinds = [type(event) for _, event in game.events(since=12)]
    assert kinds == [BoutEnded, Drew, Drew, TurnedUpCardDrawn, WentOut, BoutStarted]
    assert game.events(since=12)[-2:] == [(12, WentOut(1, 1)), (12, BoutStarted(2, 0, 6))]


def test_the_end_of_the_game_records_the_result() -> None:
    game = play(whole_deck_game(), *FIRST_BOUT, *SECOND_BOUT)
    assert game.result is not None and game.result.reason == "everyone_out"
    assert game.events()[-1] == (24, GameOver(game.result))
    surrendered = two_players().apply(1, "s")
    assert surrendered.result is not None
    assert surrendered.events(since=1) == [(1, GameOver(surrendered.result))]


def test_two_kinds_of_event_with_equal_fields_are_different_events() -> None:
    events: list[Event] = [TurnedUpCardDrawn(1, 5), TrumpsChanged(1, 5), WentOut(1, 5)]
    assert len(set(events)) == 3 and events[0] != events[1]
    assert TurnedUpCardDrawn(1, 5) == TurnedUpCardDrawn(1, 5)


# ---- JSON ---------------------------------------------------------------------------------------------


def test_events_survive_the_json_round_trip() -> None:
    for game, _ in random_states(120, salt=11):
        loaded = Game.from_json(game.to_json())
        assert loaded.events() == game.events() and loaded.log == game.log
        assert loaded.view(0).events == game.view(0).events


def test_saving_after_every_move_writes_what_one_save_at_the_end_writes() -> None:
    """Each save spells out only what was added since the last one (the memo a move's copy inherits)."""
    for game, rng in random_states(40, salt=15):
        game = Game.from_json(game.to_json())
        for _ in range(40):
            if game.is_over:
                break
            game = random_step(game, rng)
            game.to_json()
            game.view(0)
        fresh = replayed(game)
        assert game.to_json() == fresh.to_json()
        assert [game.view(s).events for s in range(len(game.players))] == [
            fresh.view(s).events for s in range(len(game.players))
        ]


def test_a_game_saved_before_events_loads_with_the_events_its_actions_caused() -> None:
    text = OLD_SAVE.read_text()
    assert '"events"' not in text
    loaded = Game.from_json(text)
    again = replayed(loaded)
    assert loaded.events() == again.events() and any(isinstance(e, TrumpExchanged) for _, e in again.events())
    assert loaded == again
    assert Game.from_json(loaded.to_json()) == loaded


def test_a_game_saved_before_events_whose_actions_lead_elsewhere_is_refused() -> None:
    data = json.loads(OLD_SAVE.read_text())
    data["discard"] = 0
    with pytest.raises(ValueError, match="do not replay"):
        Game.from_json(json.dumps(data))


# ---- invariants over random games -----------------------------------------------------------------------


def test_replaying_the_actions_reproduces_the_same_events() -> None:
    for game, _ in random_states(200, salt=12):
        again = replayed(game)
        assert again.events() == game.events()


def test_the_events_agree_with_the_state_they_lead_to() -> None:
    for game, _ in random_states(200, salt=13):
        events = [event for _, event in game.events()]
        beaten_off = [e.cards for e in events if isinstance(e, BoutEnded) and not e.taken]
        assert sum(beaten_off) == game.discard  # each card is beaten off once: the masks never overlap
        drawn = sum(e.number for e in events if isinstance(e, Drew))
        dealt = 6 * len(game.players)
        assert drawn == max(0, game.settings.deck - dealt) - len(game.talon)
        assert [(e.seat, e.place) for e in events if isinstance(e, WentOut)] == [
            (seat, place) for place, seat in enumerate(game.out, start=1)
        ]
        starts = sum(isinstance(e, BoutStarted) for e in events)
        repeated = game.result is not None and game.result.reason == "repetition"
        assert starts == game.bout_number - repeated
        assert (
            (events[-1] == GameOver(game.result))
            if game.result
            else not any(isinstance(e, GameOver) for e in events)
        )


def test_no_view_shows_the_cards_another_seat_drew() -> None:
    for game, _ in random_states(120, salt=14):
        for seat in [None, *range(len(game.players))]:
            events = game.view(seat).events
            assert [(step, type(event)) for step, event in events] == [(s, type(e)) for s, e in game.events()]
            for _, event in events:
                if isinstance(event, Drew):
                    assert (event.cards is not None) == (event.seat == seat)

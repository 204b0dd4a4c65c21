"""Public knowledge rebuilt from a view and the log: stacked scenarios and random-game invariants."""

from __future__ import annotations

import random

import pytest

from core import Card, Settings, new_game
from core.ai.knowledge import read_knowledge
from core.cards import SUIT_MASK, SUITS, mask_of
from tests.ai.helpers import by_codes, stacked
from tests.core.helpers import game_with


def _mask(cards: str) -> int:
    return mask_of(Card.parse(c).id for c in cards.split())


def test_a_failed_cover_means_no_higher_card_of_that_suit_while_the_talon_lasts() -> None:
    game = stacked(Settings(), ["7H 8C 9D TC JD QC", "6C 6D 7C 7D 8D 9C"], "9S")
    game = by_codes(game, "0:a:7H 1:t")
    k = read_knowledge(game.view(0), game.log)
    assert k.doubts[1] & _mask("8H 9H TH JH QH KH AH") == _mask("8H 9H TH JH QH KH AH")
    assert not k.doubts[1] & SUIT_MASK[SUITS.index("S")]  # saving a trump early is no sign of lacking one


def test_a_failed_cover_with_an_empty_talon_means_no_trump_either() -> None:
    game = stacked(Settings.from_words("deck=24"), ["9H TC JD QC KD AD", "9C 9D TD JC QD KC"], "AS")
    k = None
    # play the talon out with simple throw-free bouts, then check a take over a plain card
    rng = random.Random(4)
    while game.talon_size or game.phase.value != "attack":
        seat = game.to_act
        legal = game.legal_actions(seat)
        game = game.apply(seat, rng.choice([a for a in legal if a.code != "t"] or legal))
        if game.is_over:
            pytest.skip("the seeded game ended before its talon")
    attacker, defender = game.to_act, game.defender
    card = next(c for c in game.hand(attacker) if c.suit != "S")
    game = game.apply(attacker, f"a:{card}")
    game = game.apply(defender, "t")
    k = read_knowledge(game.view(attacker), game.log)
    trumps = SUIT_MASK[SUITS.index("S")] & k.deck
    assert k.doubts[defender] & trumps == trumps


def test_taken_cards_are_known_to_be_in_the_takers_hand() -> None:
    game = stacked(Settings(), ["7H 8C 9D TC JD QC", "6C 6D 7C 7D 8D 9C"], "9S")
    game = by_codes(game, "0:a:7H 1:t")  # seat 0 holds no other 7: the bout ends with the pick-up
    k = read_knowledge(game.view(0), game.log)
    assert k.known[1] & _mask("7H")
    assert k.hand_sizes == [6, 7]
    game = by_codes(game, "0:a:8C 1:c:0:9C")
    k = read_knowledge(game.view(0), game.log)
    assert k.known[1] & _mask("7H") and not k.known[1] & _mask("9C")  # the nine was played


def test_a_skipped_thrower_holds_no_card_of_the_ranks_on_the_table() -> None:
    game = stacked(
        Settings(), ["7H 9C 9D TC JD QC", "6C 6D 8H 7D 8D AC", "7C 8C KD KC AD AH"], "9S"
    )  # seat 0 attacks seat 1; seat 0 holds no 7 or 8, seat 2 does
    game = by_codes(game, "0:a:7H 1:c:0:8H 2:a:7C")
    k = read_knowledge(game.view(1), game.log)
    sevens_eights = _mask("7S 7H 7D 7C 8S 8H 8D 8C")
    assert k.lacks[0] & sevens_eights == sevens_eights
    assert not k.lacks[2]


def test_the_exchanged_trump_is_known_in_the_exchangers_hand() -> None:
    game = stacked(Settings.from_words("exchange"), ["6S 8C 9D TC JD QC", "6C 6D 7C 7D 8D 9C"], "AS")
    game = game.apply(0, "e")
    k = read_knowledge(game.view(1), game.log)
    assert k.known[0] & _mask("AS")
    assert k.bottom == Card.parse("6S").id


def test_a_lowest_trump_picked_up_then_exchanged_is_known_under_the_talon_not_in_the_hand() -> None:
    """The pick-up comes before the exchange that follows it (reading the actions alone once ended that bout
    only at the next card, after the exchange, and put the six back into the exchanger's hand)."""
    game = stacked(Settings.from_words("exchange"), ["6S 8C 9D TC JD QC", "6C 6D 7C 7D 8D 9C"], "AS")
    game = by_codes(game, "0:a:6S 1:t 1:e")
    k = read_knowledge(game.view(0), game.log)
    assert k.known[1] == _mask("AS") and k.bottom == Card.parse("6S").id


def _invariants(words: str, n: int, seed: int) -> None:
    game = new_game(Settings.from_words(words), [f"p{i}" for i in range(n)], seed=seed)
    rng = random.Random(seed)
    while not game.is_over and game.attacker != game.defender:
        for viewer in range(n):
            k = read_knowledge(game.view(viewer), game.log)
            assert k.hand_sizes == [game.hand_size(s) for s in range(n)]
            assert k.talon_size == game.talon_size and k.discard == game.discard
            assert k.out == list(game.out)
            for s in range(n):
                assert not k.known[s] & ~game.hand_masks[s], "a card is placed in a hand that lacks it"
                assert not k.lacks[s] & game.hand_masks[s], "a seat is said to lack a card it holds"
            if game.talon_size:
                assert k.bottom == game.talon[-1]
            hidden = sum(k.hidden_count(s) for s in range(n) if s != viewer) + max(0, k.talon_size - 1)
            assert hidden == k.unseen.bit_count()
        seat = game.to_act
        assert seat is not None
        game = game.apply(seat, rng.choice(game.legal_actions(seat)))


@pytest.mark.parametrize(
    ("words", "n"),
    [("", 2), ("", 4), ("transfer", 3), ("deck=24 exchange", 3), ("transfer neighbours first5", 5),
     ("deck=52 auto exchange=ace", 6), ("teams", 4), ("teams severny neighbours", 6), ("severny exchange", 3),
     ("deck=24", 4), ("", 6)],
)  # fmt: skip
def test_knowledge_agrees_with_the_real_game_at_every_step_of_random_games(words: str, n: int) -> None:
    for seed in range(12 // n):
        _invariants(words, n, seed)


def test_whoever_draws_the_turned_up_trump_is_known_to_hold_it() -> None:
    for seed in range(20):
        game = new_game(Settings(), ["a", "b", "c"], seed=seed)
        rng = random.Random(seed)
        turned_up = game.talon[-1]
        while game.talon_size and not game.is_over:
            seat = game.to_act
            assert seat is not None
            game = game.apply(seat, rng.choice(game.legal_actions(seat)))
        if game.is_over:
            continue
        holder = next(s for s in range(3) if game.hand_masks[s] >> turned_up & 1)
        for viewer in range(3):
            k = read_knowledge(game.view(viewer), game.log)
            assert k.bottom_holder == holder and k.known[holder] >> turned_up & 1


def test_the_dealers_shown_trump_is_known_in_the_dealers_hand_when_the_whole_deck_is_dealt() -> None:
    game = game_with(
        ["9S 9C JD KS KC AC", "TC JS JC QD AD QH", "9D TS TD QC 9H JH", "QS KD AS TH AH KH"],
        settings="deck=24",
        dealer=3,
    )
    shown = Card.parse("KH").id
    assert game.view(0).deal_trump_card.id == shown and game.talon_size == 0
    for viewer in range(3):
        k = read_knowledge(game.view(viewer), game.log)
        assert k.known[3] == 1 << shown and k.bottom_holder == 3
    game = by_codes(game, "2:a:9D 3:c:0:KH")  # once played, it is no longer in the dealer's hand
    assert read_knowledge(game.view(0), game.log).known[3] == 0

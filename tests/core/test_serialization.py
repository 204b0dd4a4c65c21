"""JSON round trip and replay on random mid-game states, and the secrecy of `view()`."""

from __future__ import annotations

import random

from core import Card, Game, new_game, replay
from tests.core.helpers import replayed, stack
from tests.core.invariants import random_settings

STATES = 300


def random_states(count: int, salt: int) -> list[tuple[Game, random.Random]]:
    """Games stopped at a random step (some finished), each with the generator that continues it."""
    states = []
    for index in range(count):
        rng = random.Random(salt * 100_000 + index)
        game_settings, players = random_settings(rng)
        game = new_game(
            game_settings,
            [f"P{s}" for s in range(players)],
            seed=rng.randrange(2**40),
            dealer=rng.randrange(players),
            last_durak=rng.choice([None, rng.randrange(players)]),
        )
        for _ in range(rng.randrange(0, 400)):
            if game.is_over:
                break
            game = random_step(game, rng)
        states.append((game, rng))
    return states


def random_step(game: Game, rng: random.Random) -> Game:
    """One random legal action; sometimes an out-of-turn exchange instead."""
    for seat in range(len(game.players)):
        if seat != game.to_act and game.legal_actions(seat) and rng.random() < 0.3:
            return game.apply(seat, "e")
    assert game.to_act is not None
    return game.apply(game.to_act, rng.choice(game.legal_actions(game.to_act)))


def test_json_round_trip_is_exact_and_the_loaded_game_continues_identically() -> None:
    for game, rng in random_states(STATES, salt=1):
        text = game.to_json()
        loaded = Game.from_json(text)
        assert loaded.to_json() == text
        assert loaded == game
        assert loaded.log == game.log and loaded.step == game.step
        assert [loaded.hand(s) for s in range(len(game.players))] == [
            game.hand(s) for s in range(len(game.players))
        ]
        assert (loaded.table, loaded.to_act, loaded.result) == (game.table, game.to_act, game.result)
        for _ in range(60):
            if game.is_over:
                break
            seed = rng.randrange(2**30)
            game = random_step(game, random.Random(seed))
            loaded = random_step(loaded, random.Random(seed))
            assert loaded.to_json() == game.to_json()


def test_replaying_the_log_from_the_seed_rebuilds_the_same_game() -> None:
    for game, _ in random_states(STATES, salt=2):
        again = replayed(game)
        assert again.to_json() == game.to_json()


def test_replaying_the_log_from_an_explicit_deck_rebuilds_the_same_game() -> None:
    deck = stack([["6S", "7S"], ["6H"], []], trump="9D")
    rng = random.Random(5)
    game = new_game(
        random_settings(random.Random(3))[0].model_copy(update={"deck": 36}), ["A", "B", "C"], deck=deck
    )
    while not game.is_over:
        game = random_step(game, rng)
    again = replay(game.settings, game.players, deck=deck, log=game.log)
    assert again == game and again.is_over


def test_a_players_view_never_holds_a_card_of_another_seat() -> None:
    for game, _ in random_states(STATES, salt=3):
        seats = range(len(game.players))
        hands = [set(game.hand(s)) for s in seats]
        public = game.deal_trump_card  # shown to everyone at the deal, by design
        for seat in seats:
            view = game.view(seat)
            assert set(view.hand) == hands[seat]
            others = set().union(*(hands[s] for s in seats if s != seat)) - {public}
            assert not view.visible_cards() & others
            text = repr(view)
            assert not [card for card in others if repr(card) in text]
            assert view.hand_sizes == tuple(len(h) for h in hands)


def test_the_spectator_view_holds_no_hand_card_at_all() -> None:
    for game, _ in random_states(STATES, salt=4):
        every_hand = set().union(*(set(game.hand(s)) for s in range(len(game.players)))) - {
            game.deal_trump_card
        }
        view = game.view(None)
        assert view.hand == () and view.legal_actions == ()
        assert not view.visible_cards() & every_hand
        assert not [card for card in every_hand if repr(card) in repr(view)]


def test_the_view_shows_the_table_and_the_turned_up_trump_while_it_lies_under_the_talon() -> None:
    for game, _ in random_states(60, salt=5):
        view = game.view(game.to_act)
        assert list(view.table) == game.table
        if game.talon_size:
            assert view.trump_card == Card.parse(str(game.trump_card))
        else:
            assert view.trump_card is None


def test_apply_returns_a_new_game_and_leaves_the_old_one_unchanged() -> None:
    for game, rng in random_states(100, salt=6):
        if game.is_over:
            continue
        text = game.to_json()
        after = random_step(game, rng)
        assert after is not game and after.step == game.step + 1
        assert game.to_json() == text


def test_a_players_view_lists_exactly_that_players_legal_actions() -> None:
    for game, _ in random_states(100, salt=7):
        for seat in range(len(game.players)):
            assert list(game.view(seat).legal_actions) == game.legal_actions(seat)

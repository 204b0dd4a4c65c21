"""Random playouts (OpenSpiel's random_sim_test): complete seeded games over every option, checked after
every action. Cheap invariants run on every action of every game; the exhaustive legality checks on every
action of a share of the games. The default suite plays the first 4,000 games (about 20 s); `-m soak` plays
the other 16,000 of the 20,000."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core import Action, Game, Phase, Settings, new_game
from core.actions import EXCHANGE, SURRENDER
from tests.core.invariants import (
    MAX_ACTIONS,
    assert_cards_accounted,
    assert_illegal_actions_are_refused,
    assert_legal_agrees_with_why_illegal,
    assert_others_wait,
    assert_turn_is_sound,
    hand_candidates,
    random_settings,
    universe,
)
from tests.core.referee import RepetitionWatch, check_state, check_transition

GAMES = 20_000
CHUNK = 1_000  # games a test case plays
DEFAULT_CHUNKS = 4  # the first 4,000 games in the default suite; the rest under the soak mark
LEGALITY_EVERY = 20  # every 20th game: legal_actions == why_illegal over the actor's cards, illegal refused
EXHAUSTIVE_EVERY = 400  # every 400th game: the same over every action of the deck, for every seat


def play_out(game: Game, rng: random.Random, level: int) -> Game:
    """Play random legal actions (and random out-of-turn exchanges) to the end, checking as it goes.
    ``level`` 0: cheap invariants; 1: plus legality on own cards; 2: plus legality over every action."""
    exchange_on = game.settings.exchange != "off"
    everything = universe(game.settings.deck)
    seats = range(len(game.players))
    assert_cards_accounted(game)
    opener = game.to_act
    repetitions = RepetitionWatch(game) if level else None
    for _ in range(MAX_ACTIONS):
        seat = game.to_act
        if game.phase is Phase.ATTACK:
            opener = seat
        legal = game.legal_actions(seat) if seat is not None else []
        assert_turn_is_sound(game, legal)
        if game.is_over:
            return game
        if level:
            assert_others_wait(game)
            for other in seats:
                candidates = everything if level == 2 else hand_candidates(game, other)
                if level == 2 or other == seat:
                    assert_legal_agrees_with_why_illegal(game, other, candidates)
            assert_illegal_actions_are_refused(game, rng, tries=3)
            check_state(game)
        if exchange_on and rng.random() < 0.5:
            holder = game.exchange_holder()
            if holder is not None and holder != seat:
                before, game = game, game.apply(holder, EXCHANGE)  # out of turn
                assert_cards_accounted(game)
                if repetitions:
                    repetitions.observe(before, game)
                continue
        action = rng.choice(legal)
        before, game = game, game.apply(seat, action)
        assert_cards_accounted(game)
        if repetitions:
            check_transition(before, seat, action, game, opener)
            repetitions.observe(before, game)
    raise AssertionError(f"the game did not end within {MAX_ACTIONS} actions: {game!r}")


def random_game(index: int) -> tuple[Game, random.Random]:
    rng = random.Random(index)
    game_settings, players = random_settings(rng)
    last_durak = rng.choice([None, rng.randrange(players)])
    dealer = rng.randrange(players)
    game = new_game(
        game_settings, [f"P{s}" for s in range(players)], seed=index, dealer=dealer, last_durak=last_durak
    )
    return game, rng


@pytest.mark.parametrize(
    "chunk",
    [
        chunk if chunk < DEFAULT_CHUNKS else pytest.param(chunk, marks=pytest.mark.soak)
        for chunk in range(GAMES // CHUNK)
    ],
)
def test_random_games_keep_every_invariant_after_every_action(chunk: int) -> None:
    for index in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        game, rng = random_game(index)
        level = 2 if index % EXHAUSTIVE_EVERY == 0 else 1 if index % LEGALITY_EVERY == 0 else 0
        final = play_out(game, rng, level)
        result = final.result
        assert result is not None
        if result.draw:
            assert result.durak is None
        else:
            assert result.durak not in result.order_out
            assert len(result.order_out) == len(final.players) - 1 or result.reason == "surrender"


def test_random_games_cover_every_ending_and_a_surrender_ends_any_game() -> None:
    reasons = set()
    for index in range(400):
        game, rng = random_game(GAMES + index)
        for _ in range(rng.randrange(1, 120)):
            if game.is_over:
                break
            game = game.apply(game.to_act, rng.choice(game.legal_actions(game.to_act)))
        if game.is_over:
            reasons.add(game.result.reason if game.result else None)
            continue
        leaver = rng.choice([s for s in range(len(game.players)) if s not in game.out])
        ended = game.apply(leaver, SURRENDER)
        assert ended.is_over and ended.result is not None
        assert (ended.result.durak, ended.result.reason) == (leaver, "surrender")
        places = ended.result.order_out  # rules.md §7.7: those out keep their places, the rest by cards held
        assert places[: len(game.out)] == game.out
        assert sorted(places) == [s for s in range(len(game.players)) if s not in ended.result.losers]
        held = [game.hand_masks[s].bit_count() for s in places[len(game.out) :]]
        assert held == sorted(held)
        reasons.add("surrender")
    assert {"last_holder", "surrender"} <= reasons


OPTION_OF = {w: w.split("=")[0] for w in ["transfer", "first5", "exchange", "exchange=ace"]}
OPTION_OF.update(neighbours="throw_in", auto="throw_in")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    deck=st.sampled_from([24, 36, 52]),
    words=st.lists(st.sampled_from(["transfer", "neighbours", "auto", "first5", "exchange", "exchange=ace"])),
    seed=st.integers(0, 2**32),
)
def test_any_settings_and_seed_play_a_sound_game_to_the_end(
    players: int, deck: int, words: list[str], seed: int
) -> None:
    assume(players * 6 <= deck)  # a deck too small for six cards each is refused (rules.md §1.1)
    unique = {OPTION_OF[w]: w for w in words}  # one word per option
    game_settings = Settings.from_words([*unique.values(), f"deck={deck}"])
    game = new_game(game_settings, [f"P{s}" for s in range(players)], seed=seed)
    final = play_out(game, random.Random(seed), level=2)
    assert final.is_over


def test_an_action_code_names_exactly_one_action() -> None:
    for action in universe(52):
        assert Action.parse(action.code) is action
        assert len(action.code) <= 12

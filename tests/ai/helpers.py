"""Shared helpers for the AI tests: stacked decks and a seeded game loop that only hands out views."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from core import Card, Game, Settings, new_game
from core.actions import Action
from core.cards import CARDS, deck_ids
from core.view import View

Chooser = Callable[[View, list[tuple[int, str]]], Action]


def stacked(settings: Settings, hands: Sequence[str], turned_up: str, talon: str = "") -> Game:
    """A game whose seats hold ``hands`` ("7H 8C ...", seat 0 first), with ``turned_up`` under the talon;
    ``talon`` gives the first cards to be drawn, the rest follow in deck order. Seat 0 is dealt first."""
    n = len(hands)
    held = [[Card.parse(c) for c in hand.split()] for hand in hands]
    trump = Card.parse(turned_up)
    front = [Card.parse(c) for c in talon.split()]
    used = {c.id for hand in held for c in hand} | {trump.id} | {c.id for c in front}
    rest = [CARDS[c] for c in deck_ids(settings.deck) if c not in used]
    order = [held[i % n][i // n] for i in range(6 * n)] + [trump, *front, *rest]
    return new_game(settings, [f"p{i}" for i in range(n)], deck=order)


def play_out(game: Game, choosers: Sequence[Chooser], max_steps: int = 2000) -> tuple[Game, list[Action]]:
    """Play to the end, giving each seat's chooser only its view and the public log."""
    chosen: list[Action] = []
    while not game.is_over and game.step < max_steps:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        action = choosers[seat](view, game.log)
        assert action in view.legal_actions, (action, view.legal_actions)
        chosen.append(action)
        game = game.apply(seat, action)
    return game, chosen


def by_codes(game: Game, codes: str) -> Game:
    """Apply "seat:code" steps such as ``"0:a:7H 1:t"`` (whoever's turn it says)."""
    for step in codes.split():
        seat, _, code = step.partition(":")
        game = game.apply(int(seat), code)
    return game


def open_endgames(seeds: range, accept: Callable[[Game, int], bool] = lambda game, seat: True) -> list[Game]:
    """From each seeded two-player 24-card game played at random, the first position with the talon empty,
    at most four cards in each hand, a choice to make, and ``accept(game, seat)`` true (if any)."""
    found = []
    for seed in seeds:
        game = new_game(Settings.from_words("deck=24"), ["a", "b"], seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            small = max(game.hand_size(0), game.hand_size(1)) <= 4
            if not game.talon_size and small and len(game.legal_actions(seat)) > 1 and accept(game, seat):
                found.append(game)
                break
            game = game.apply(seat, rng.choice(game.legal_actions(seat)))
    return found


def brute_force_safe(game: Game, seat: int) -> bool:
    """Plain minimax over the public API: can ``seat`` avoid being the durak?"""
    if game.is_over:
        return game.result is None or game.result.durak != seat
    actor = game.to_act
    assert actor is not None
    outcomes = (brute_force_safe(game.apply(actor, a), seat) for a in game.legal_actions(actor))
    return any(outcomes) if actor == seat else all(outcomes)

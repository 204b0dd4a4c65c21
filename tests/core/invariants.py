"""Checks that hold after every action of every game, shared by the random-playout and serialization tests.

The card accounting reads the engine's internal masks (``hand_masks``, ``talon``, ``attacks``, ``covers``,
``discard``): the public API rightly hides the talon and the discard pile, and this is the one place that
looks behind it.
"""

from __future__ import annotations

import random
from functools import cache

from core import Action, Game, IllegalAction, Phase, Settings
from core.actions import ATTACKS, COVERS, EXCHANGE, PASS, SURRENDER, TAKE, TRANSFERS, Kind
from core.cards import deck_ids

BIT = tuple(1 << c for c in range(52))
MAX_ACTIONS = 3000  # a bound on any game's length; the longest seen in 20,000 random games is far below


@cache
def universe(deck_size: int) -> tuple[Action, ...]:
    """Every action that can name a card of this deck (surrender aside): what legality is checked against."""
    ids = deck_ids(deck_size)
    return (
        *(ATTACKS[c] for c in ids),
        *(TRANSFERS[c] for c in ids),
        *(COVERS[slot][c] for slot in range(6) for c in ids),
        TAKE,
        PASS,
        EXCHANGE,
    )


@cache
def full_mask(deck_size: int) -> int:
    return sum(1 << c for c in deck_ids(deck_size))


def assert_cards_accounted(game: Game) -> None:
    """Every card of the deck is in exactly one place: a hand, the talon, the table or the discard pile."""
    union = game.discard
    count = union.bit_count()
    for mask in game.hand_masks:
        union |= mask
        count += mask.bit_count()
    loose = [*game.talon, *game.attacks, *(c for c in game.covers if c >= 0)]
    for card in loose:
        union |= BIT[card]
    count += len(loose)
    size = game.settings.deck
    assert count == size, f"{count} cards in play instead of {size} at step {game.step}"
    assert union == full_mask(size), f"a card is missing, doubled or foreign at step {game.step}"


def assert_turn_is_sound(game: Game, legal: list[Action]) -> None:
    """The player to act has a real choice (rules.md §4.1); a finished game asks nobody."""
    if game.is_over:
        assert game.to_act is None and game.result is not None
        assert not legal
        return
    seat = game.to_act
    assert seat is not None and seat not in game.out, f"to_act={seat} out={game.out}"
    assert legal, f"seat {seat} is to act with no legal action at step {game.step}"
    phase = game.phase
    kinds = {action.kind for action in legal}
    if phase is Phase.ATTACK:
        assert Kind.ATTACK in kinds and Kind.PASS not in kinds
    elif phase is Phase.DEFEND:
        assert seat == game.defender and Kind.TAKE in kinds and -1 in game.covers
    else:
        assert Kind.ATTACK in kinds, f"seat {seat} asked to throw in without a card (rules.md §4.6)"
        assert not game.passed >> seat & 1 and seat != game.defender


def assert_others_wait(game: Game) -> None:
    """Exactly one player is to act: every other seat may at most exchange (rules.md §8.1)."""
    for seat in range(len(game.players)):
        if seat != game.to_act:
            assert set(game.legal_actions(seat)) <= {EXCHANGE}


def assert_legal_agrees_with_why_illegal(game: Game, seat: int, candidates: tuple[Action, ...]) -> None:
    """``legal_actions(seat)`` is exactly the candidates that ``why_illegal`` lets through (candidates must
    include every action that could be legal: the whole universe, or `hand_candidates`)."""
    legal = set(game.legal_actions(seat))
    assert SURRENDER not in legal
    accepted = {action for action in candidates if game.why_illegal(seat, action) is None}
    assert accepted == legal, (
        f"seat {seat} step {game.step}: legal-only {sorted(a.code for a in legal - accepted)}, "
        f"accepted-only {sorted(a.code for a in accepted - legal)}"
    )
    surrender_ok = game.why_illegal(seat, SURRENDER) is None
    assert surrender_ok == (not game.is_over and seat not in game.out)


def hand_candidates(game: Game, seat: int) -> tuple[Action, ...]:
    """The actions worth checking for one seat: each of its cards in every role, plus the cardless ones."""
    slots = min(len(game.attacks) + 1, 6)
    actions: list[Action] = [TAKE, PASS, EXCHANGE]
    mask = game.hand_masks[seat]
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        actions.append(ATTACKS[card])
        actions.append(TRANSFERS[card])
        actions.extend(COVERS[slot][card] for slot in range(slots))
    return tuple(actions)


def assert_illegal_actions_are_refused(game: Game, rng: random.Random, tries: int) -> None:
    """A few random actions: whatever ``why_illegal`` refuses, ``apply`` must refuse with `IllegalAction`."""
    everything = universe(game.settings.deck)
    seats = len(game.players)
    for _ in range(tries):
        seat = rng.randrange(seats)
        action = rng.choice(everything)
        if game.why_illegal(seat, action) is not None:
            try:
                game.apply(seat, action)
            except IllegalAction:
                continue
            raise AssertionError(f"seat {seat} was allowed {action.code} at step {game.step}")


def random_settings(rng: random.Random) -> tuple[Settings, int]:
    """Settings and a player count spread over every option the engine implements."""
    players = rng.randint(2, 6)
    decks = [36, 36, 52] + ([24] if players <= 4 else [])
    settings = Settings(
        mode=rng.choice(["classic", "transfer"]),
        deck=rng.choice(decks),
        throw_in=rng.choice(["all", "neighbours", "auto"]),
        first5=rng.random() < 0.3,
        exchange=rng.choice(["off", "lowest", "ace"]),
        opener=rng.choice(["durak_left", "durak_right", "lowest"]),
    )
    return settings, players

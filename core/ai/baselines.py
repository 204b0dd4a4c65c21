"""The fixed yardsticks (random, greedy) and the easy level, each a pure function of the view.

Greedy is exactly the issue's baseline: it plays its lowest legal card with trumps ranked above plain cards,
covers with the lowest card that beats, takes only when it cannot cover, throws in its lowest legal
non-trump card (or passes), never transfers and never exchanges (unless that is all it may do).

Easy picks uniformly among the legal actions that are not absurd. Absurd, for this level, means: taking while
a plain card could cover some waiting card; leading a trump while holding a plain card; throwing in a trump.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from core.actions import ATTACKS, COVERS, PASS, TAKE, Action, Kind
from core.cards import BEATERS, SUIT_MASK
from core.state import Game, Phase
from core.view import View

if TYPE_CHECKING:
    from core.ai.fastsim import Sim

_PLAIN = tuple(((1 << 52) - 1) & ~SUIT_MASK[trump] for trump in range(4))
_ATTACK, _DEFEND = Phase.ATTACK, Phase.DEFEND


def _trump_last(action: Action, trump: str) -> tuple[bool, int, int]:
    card = action.card
    assert card is not None
    return (card.suit == trump, card.rank_index, action.slot)


def random_choice(view: View, rng: random.Random) -> Action:
    return rng.choice(view.legal_actions)


def greedy_choice(view: View) -> Action:
    """Greedy's choice from a view (`greedy_move` makes the same choice from a `Game`'s card masks)."""
    legal = view.legal_actions
    trump = view.trump
    cards = [a for a in legal if a.kind is Kind.ATTACK or a.kind is Kind.COVER]
    if view.phase is Phase.THROW_IN or view.phase is Phase.TAKING:
        plain = [a for a in cards if a.card is not None and a.card.suit != trump]
        return min(plain, key=lambda a: _trump_last(a, trump)) if plain else PASS
    if cards:
        return min(cards, key=lambda a: _trump_last(a, trump))
    if TAKE in legal:
        return TAKE
    return legal[0]  # nothing but an out-of-turn exchange is allowed


def greedy_move(game: Game | Sim, seat: int) -> Action:
    """`greedy_choice` for the seat to act in a `Game` (or the rollout simulator), on card masks: the same
    choice, a few times faster (search plays greedy opponents with it). Its order (plain before trump, then
    rank, then slot, then suit) is the order of card ids within each kind, so the lowest bit decides."""
    hand = game.hand_masks[seat]
    trump = game.trump_index
    plain = _PLAIN[trump]
    phase = game.phase
    if phase is _ATTACK:
        mask = hand & plain or hand
        return ATTACKS[(mask & -mask).bit_length() - 1]
    if phase is _DEFEND:
        beaters = BEATERS[trump]
        covers = game.covers
        best_plain = best_trump = -1  # the lowest cover of each kind found so far, and its slot
        plain_slot = trump_slot = -1
        for slot, attack in enumerate(game.attacks):
            if covers[slot] < 0:
                options = hand & beaters[attack]
                low = options & plain
                if low:
                    card = (low & -low).bit_length() - 1
                    if best_plain < 0 or card >> 2 < best_plain >> 2:
                        best_plain, plain_slot = card, slot
                elif options and best_plain < 0:
                    card = (options & -options).bit_length() - 1
                    if best_trump < 0 or card >> 2 < best_trump >> 2:
                        best_trump, trump_slot = card, slot
        if best_plain >= 0:
            return COVERS[plain_slot][best_plain]
        return COVERS[trump_slot][best_trump] if best_trump >= 0 else TAKE
    if len(game.attacks) >= game.attack_limit:
        return PASS
    mask = hand & game.table_ranks & plain
    return ATTACKS[(mask & -mask).bit_length() - 1] if mask else PASS


def greedy_before(card: int, trump: int) -> int:
    """Every card greedy would play before ``card``: lower plain cards, and lower trumps for a trump."""
    below = (1 << 4 * (card >> 2)) - 1
    plain = ~SUIT_MASK[trump] & ((1 << 52) - 1)
    return plain | below & SUIT_MASK[trump] if card & 3 == trump else below & plain


def easy_choice(view: View, rng: random.Random) -> Action:
    legal = list(view.legal_actions)
    trump = view.trump

    def is_trump_card(action: Action) -> bool:
        return action.card is not None and action.card.suit == trump

    plain_cover = any(a.kind is Kind.COVER and not is_trump_card(a) for a in legal)
    sensible = [a for a in legal if not (a is TAKE and plain_cover)]
    if view.phase.value == "attack" and any(not is_trump_card(a) for a in sensible if a.kind is Kind.ATTACK):
        sensible = [a for a in sensible if not (a.kind is Kind.ATTACK and is_trump_card(a))]
    if view.phase.value in ("throw_in", "taking"):
        sensible = [a for a in sensible if not (a.kind is Kind.ATTACK and is_trump_card(a))]
    return rng.choice(sensible or legal)

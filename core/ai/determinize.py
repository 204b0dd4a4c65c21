"""A full `Game` from one seat's view plus a guess at the hidden cards: the worlds that search plays in.

`sample_hidden` deals the unseen cards to the opponents' unknown slots and to the hidden talon, honouring
what the seat knows: known cards stay where they are, certain absences always hold, beliefs hold when they
can. `build_game` then builds the `Game` with the engine's one constructor, from the view's public facts and
the knowledge's.
"""

from __future__ import annotations

import random
from functools import cache

from core.ai.knowledge import Knowledge
from core.cards import bits, deck_ids
from core.state import Game
from core.view import View

_TRIES = 8
SEARCH_NODES = 3000  # steps of the backtracking deal


def sample_hidden(k: Knowledge, rng: random.Random) -> tuple[list[int], list[int]]:
    """Hands (bitmasks, the viewer's own included) and the talon (front first, the shown trump last)."""
    pool = list(bits(k.unseen))
    opponents = [s for s in range(k.n) if s != k.seat and k.hidden_count(s) > 0]
    for attempt in range(2 * _TRIES):
        avoid = [k.lacks[s] | (k.doubts[s] if attempt < _TRIES else 0) for s in range(k.n)]
        dealt = _deal_with_constraints(k, pool, opponents, avoid, rng)
        if dealt is not None:
            return dealt
    # the certain absences always fit the real deal; quick random deals just missed it, so search for one
    dealt = _deal_by_search(k, pool, opponents, k.lacks, rng)
    if dealt is None:  # a contradiction (knowledge from a log that breaks the rules) or out of steps
        dealt = _deal_with_constraints(k, pool, opponents, [0] * k.n, rng)
    assert dealt is not None, "without constraints every deal fits"
    return dealt


def _deal_by_search(
    k: Knowledge, pool: list[int], opponents: list[int], avoid: list[int], rng: random.Random
) -> tuple[list[int], list[int]] | None:
    """A deal honouring ``avoid`` found by backtracking (the card with the fewest possible holders first),
    or None when there is none within `SEARCH_NODES` steps."""
    need = {s: k.hidden_count(s) for s in opponents}
    talon_room = len(pool) - sum(need.values())
    cards = pool[:]
    rng.shuffle(cards)
    cards.sort(key=lambda c: sum(1 for s in opponents if not avoid[s] >> c & 1))
    hands = list(k.known)
    talon: list[int] = []
    steps = 0

    def place(index: int) -> bool:
        nonlocal steps, talon_room
        if index == len(cards):
            return True
        steps += 1
        if steps > SEARCH_NODES:
            return False
        card = cards[index]
        holders = [s for s in opponents if need[s] and not avoid[s] >> card & 1]
        rng.shuffle(holders)
        if talon_room:
            holders.insert(int(rng.random() * (len(holders) + 1)), -1)
        for holder in holders:
            if holder < 0:
                talon.append(card)
                talon_room -= 1
            else:
                hands[holder] |= 1 << card
                need[holder] -= 1
            if place(index + 1):
                return True
            if holder < 0:
                talon.pop()
                talon_room += 1
            else:
                hands[holder] &= ~(1 << card)
                need[holder] += 1
        return False

    if talon_room < 0 or not place(0):
        return None
    rng.shuffle(talon)
    return hands, talon + ([k.bottom] if k.talon_size else [])


def _deal_with_constraints(
    k: Knowledge, pool: list[int], opponents: list[int], avoid: list[int], rng: random.Random
) -> tuple[list[int], list[int]] | None:
    remaining = pool[:]
    rng.shuffle(remaining)
    hands = list(k.known)
    # the most constrained seat chooses first, so a feasible deal is rarely missed
    order = sorted(
        opponents, key=lambda s: sum(1 for c in remaining if not avoid[s] >> c & 1) - k.hidden_count(s)
    )
    for seat in order:
        need = k.hidden_count(seat)
        chosen = [c for c in remaining if not avoid[seat] >> c & 1][:need]
        if len(chosen) < need:
            return None
        for card in chosen:
            hands[seat] |= 1 << card
        taken = set(chosen)
        remaining = [c for c in remaining if c not in taken]
    talon = remaining + ([k.bottom] if k.talon_size else [])
    if len(talon) != k.talon_size:
        raise ValueError("the view and the log disagree about the number of hidden cards")
    return hands, talon


def build_game(view: View, k: Knowledge, hands: list[int], talon: list[int]) -> Game:
    """A `Game` equal to the real one in everything the seat can see, with these hidden cards. It keeps no
    history: search plays forward from here and reads none, and repetition is too rare to model."""
    severny = view.severny_card
    return Game(
        settings=k.settings,
        players=view.players,
        seed=None,
        deck_order=_deck(k.settings.deck),
        dealer=view.dealer,
        last_durak=None,
        hand_masks=tuple(hands),
        talon=tuple(talon),
        trump_card_id=severny.id if severny is not None else k.bottom,
        deal_trump_card_id=view.deal_trump_card.id,
        severny_card=severny.id if severny is not None else -1,
        discard=k.discard,
        attacks=tuple(attack.id for attack, _ in view.table),
        covers=tuple(cover.id if cover is not None else -1 for _, cover in view.table),
        phase=view.phase,
        attacker=view.attacker,
        opener=k.opener,
        defender=view.defender,
        defender_limit=k.defender_limit,
        bout_cap=k.bout_cap,
        bout_number=view.bout_number,
        passed=sum(1 << s for s in view.passed),
        to_act=view.to_act,
        out=tuple(view.out),
        emptied=tuple(k.emptied),
        result=view.result,
        step=view.step,
        recording=False,
    )


@cache
def _deck(size: int) -> tuple[int, ...]:
    """The deck's cards lowest first: a world's deck order only tells the rules which trump is lowest."""
    return tuple(deck_ids(size))


def sample_game(view: View, k: Knowledge, rng: random.Random) -> Game:
    """One world consistent with the view and the knowledge."""
    hands, talon = sample_hidden(k, rng)
    return build_game(view, k, hands, talon)

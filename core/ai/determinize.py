"""A full `Game` from one seat's view plus a guess at the hidden cards: the worlds that search plays in.

`sample_hidden` deals the unseen cards to the opponents' unknown slots and to the hidden talon, honouring
what the seat knows: known cards stay where they are, certain absences always hold, beliefs hold when they
can. `build_game` then fills a `Game`'s slots the way `core.deal` does. Only core/ai builds games this way;
it reads the engine's slot names, so a rename in core/state.py shows up in tests/ai at once.
"""

from __future__ import annotations

import random

from core.ai.knowledge import Knowledge
from core.cards import bits, ranks_on_table
from core.deal import new_game
from core.state import MAX_ATTACKS, Game
from core.view import View

_TRIES = 8


def sample_hidden(k: Knowledge, rng: random.Random) -> tuple[list[int], list[int]]:
    """Hands (bitmasks, the viewer's own included) and the talon (front first, the shown trump last)."""
    pool = list(bits(k.unseen))
    opponents = [s for s in range(k.n) if s != k.seat and k.hidden_count(s) > 0]
    for attempt in range(3 * _TRIES):
        avoid = [k.lacks[s] | (k.doubts[s] if attempt < _TRIES else 0) for s in range(k.n)]
        if attempt >= 2 * _TRIES:
            avoid = [0] * k.n
        dealt = _deal_with_constraints(k, pool, opponents, avoid, rng)
        if dealt is not None:
            return dealt
    raise AssertionError("unreachable: without constraints every deal fits")


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
    """A `Game` equal to the real one in everything the seat can see, with these hidden cards."""
    game = _template(view, k).clone()  # any slot not set below keeps a fresh deal's value
    game.hand_masks = tuple(hands)
    game.talon = tuple(talon)
    game.trump_index = k.trump
    severny = view.severny_card
    game.severny_card = severny.id if severny is not None else -1
    game.trump_card_id = severny.id if severny is not None else k.bottom
    game.deal_trump_card_id = view.deal_trump_card.id
    game.discard = k.discard
    game.attacks = tuple(attack.id for attack, _ in view.table)
    game.covers = tuple(cover.id if cover is not None else -1 for _, cover in view.table)
    ranks = ranks_on_table(game.attacks, game.covers)
    game.table_ranks = ranks
    game.phase = view.phase
    game.attacker = view.attacker
    game.opener = k.opener
    game.defender = view.defender
    game.defender_limit = k.defender_limit
    game.bout_number = view.bout_number
    game.bout_cap = 5 if k.settings.first5 and view.bout_number == 1 else MAX_ATTACKS
    game.passed = sum(1 << s for s in view.passed)
    game.to_act = view.to_act
    game.out = tuple(view.out)
    game.emptied = tuple(k.emptied)
    game.positions = frozenset()  # repetition is too rare to model in a search
    game.result = view.result
    game._log = None
    game.step = view.step
    return game


def _template(view: View, k: Knowledge) -> Game:
    """A freshly dealt game with this table's settings and players, made once per knowledge."""
    if k.template is None:
        k.template = new_game(k.settings, view.players, seed=0)
    return k.template


def sample_game(view: View, k: Knowledge, rng: random.Random) -> Game:
    """One world consistent with the view and the knowledge."""
    hands, talon = sample_hidden(k, rng)
    return build_game(view, k, hands, talon)

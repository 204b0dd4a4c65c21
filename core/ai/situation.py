"""The handful of facts a rule-based decision needs, read either from a view (plus knowledge) or from a
determinized `Game` (inside search, where every hand of that imagined world is known).

Keeping one small record for both lets the normal player and the search's rollout policy be the very same
code, as the issue asks ("the normal player as rollout policy").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.cards import ranks_on_table
from core.state import Game, Phase
from core.view import View

if TYPE_CHECKING:  # knowledge imports the normal rules, which import this module
    from core.ai.fastsim import Sim
    from core.ai.knowledge import Knowledge

TRUMP_BONUS = 13  # a trump outranks every plain card


def card_value(card: int, trump: int) -> int:
    """How much a card is worth keeping: its rank, plus 13 for a trump."""
    return (card >> 2) + (TRUMP_BONUS if card & 3 == trump else 0)


class Situation:
    """One decision point: whose hand, what lies on the table, and what each seat may hold."""

    __slots__ = (
        "seat", "hand", "phase", "attacks", "covers", "table_ranks", "trump", "talon_size", "sizes",
        "attacker", "defender", "limit", "can_transfer", "possible", "out",
    )  # fmt: skip

    seat: int
    hand: int
    phase: Phase
    attacks: Sequence[int]
    covers: Sequence[int]
    table_ranks: int
    trump: int
    talon_size: int
    sizes: Sequence[int]  # hand sizes from a view, or hand masks from a game
    attacker: int
    defender: int
    limit: int
    can_transfer: bool
    possible: Sequence[int]  # per seat: every card it may hold (its exact hand when known)
    out: tuple[int, ...]

    @staticmethod
    def from_view(view: View, k: Knowledge) -> Situation:
        sit = object.__new__(Situation)
        sit.seat = k.seat
        sit.hand = k.hand
        sit.phase = view.phase
        sit.attacks = tuple(a.id for a, _ in view.table)
        sit.covers = tuple(c.id if c is not None else -1 for _, c in view.table)
        ranks = ranks_on_table(sit.attacks, sit.covers)
        sit.table_ranks = ranks
        sit.trump = k.trump
        sit.talon_size = view.talon_size
        sit.sizes = view.hand_sizes
        sit.attacker = view.attacker
        sit.defender = view.defender
        sit.limit = view.attack_limit
        sit.can_transfer = any(a.kind.value == "x" for a in view.legal_actions)
        unseen = k.unseen
        possible = [k.known[s] | ((unseen & ~k.lacks[s]) if k.hidden_count(s) else 0) for s in range(k.n)]
        possible[k.seat] = k.hand
        sit.possible = possible
        sit.out = view.out
        return sit

    @staticmethod
    def from_game(game: Game | Sim, seat: int) -> Situation:
        """From a world where every hand is known: the engine's `Game` or the rollout simulator's `Sim`."""
        sit = object.__new__(Situation)
        sit.seat = seat
        hands = game.hand_masks
        sit.hand = hands[seat]
        sit.phase = game.phase
        sit.attacks = game.attacks
        sit.covers = game.covers
        sit.table_ranks = game.table_ranks
        sit.trump = game.trump_index
        sit.talon_size = len(game.talon)
        sit.sizes = hands  # masks: `size` counts them only when asked
        sit.attacker = game.attacker
        sit.defender = game.defender
        sit.limit = game.attack_limit
        sit.can_transfer = game.settings.transfer and game.can_transfer_now()
        sit.possible = hands
        sit.out = game.out
        return sit

    def size(self, seat: int) -> int:
        """How many cards ``seat`` holds."""
        return self.sizes[seat] if self.possible is not self.sizes else self.sizes[seat].bit_count()

    def uncovered(self) -> list[tuple[int, int]]:
        """(slot, attack card) for every card still waiting for a cover."""
        return [(slot, a) for slot, (a, c) in enumerate(zip(self.attacks, self.covers, strict=True)) if c < 0]

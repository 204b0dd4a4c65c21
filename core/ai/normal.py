"""The normal player's rules: cheap cards first, trumps and aces kept for the end, card counting.

`decide(sit)` is a pure function of a `Situation`, so the hard player's rollouts call it too. The rules, by
phase (values: rank, plus 13 for a trump; see `card_value`):

- lead: the cheapest card, a trump only when nothing else is left while the talon lasts; a card the defender
  cannot beat (by card counting) or a rank we hold twice is worth a few points of value;
- defend: the cheapest set of covers (the most valuable attack card gets its cover first); take instead when
  the talon is still long and covering would spend a high trump on a few cards; in transfer mode pass the
  bout on with a plain card when that is cheaper than covering or covering is impossible;
- throw in: the cheapest plain card of a table rank while it is low, any plain card once the talon is empty
  or the defender is nearly out of cards, a trump only in the endgame to finish a defender;
- add to a take: plain low cards while the talon lasts (we redraw), any plain card when it is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.actions import ATTACKS, COVERS, PASS, TAKE, TRANSFERS, Action
from core.ai.situation import TRUMP_BONUS, Situation, card_value
from core.cards import BEATERS, SUIT_MASK, TABLE_RANKS, bits
from core.state import Game, Phase

if TYPE_CHECKING:
    from core.ai.fastsim import Sim

HIGH_TRUMP = TRUMP_BONUS + 7  # a trump nine or better is worth saving while the talon is long (measured)
LOW_PLAIN = 100  # plain cards of any rank are thrown in (measured: more throw-ins beat fewer)
LONG_TALON = 6
TWIN_BONUS = 3  # lead value saved per other card of the same rank in hand (it can be thrown in later)
SURE_TAKE_BONUS = 8  # lead value saved when card counting says the defender cannot beat the card
ENDGAME_SURE_BONUS = 8  # the same, once the talon is empty
DUMP_PLAIN = 100  # plain cards up to this value are added to a take while the talon lasts


def decide(sit: Situation) -> Action:
    phase = sit.phase
    if phase is Phase.ATTACK:
        return _lead(sit)
    if phase is Phase.DEFEND:
        return _defend(sit)
    if phase is Phase.TAKING:
        return _add_to_take(sit)
    return _throw_in(sit)


def _lead(sit: Situation) -> Action:
    trump = sit.trump
    hand = sit.hand
    can_beat = sit.possible[sit.defender]
    sure_bonus = SURE_TAKE_BONUS if sit.talon_size else ENDGAME_SURE_BONUS
    best, best_score = -1, 10**6
    for card in bits(hand):
        value = card_value(card, trump)
        score = value * 2
        twins = (hand & TABLE_RANKS[card] & ~(1 << card)).bit_count()
        score -= TWIN_BONUS * twins
        if not can_beat & BEATERS[trump][card]:
            score -= sure_bonus  # the defender cannot beat it: a sure take
        if card & 3 == trump and sit.talon_size:
            score += 20
        if score < best_score:
            best, best_score = card, score
    return ATTACKS[best]


def cheapest_covers(sit: Situation) -> list[tuple[int, int]] | None:
    """(slot, cover card) for every uncovered card at the lowest total value, or None when impossible."""
    trump = sit.trump
    free = sit.hand
    plan: list[tuple[int, int]] = []
    waiting = sorted(sit.uncovered(), key=lambda sa: -card_value(sa[1], trump))
    for slot, attack in waiting:
        options = free & BEATERS[trump][attack]
        if not options:
            return None
        cover = min(bits(options), key=lambda c: card_value(c, trump))
        free &= ~(1 << cover)
        plan.append((slot, cover))
    return plan


def _defend(sit: Situation) -> Action:
    trump = sit.trump
    plan = cheapest_covers(sit)
    transfer = _transfer_card(sit)
    if plan is None:
        return TRANSFERS[transfer] if transfer >= 0 else TAKE
    cover_values = [card_value(c, trump) for _, c in plan]
    cost = sum(cover_values)
    if transfer >= 0 and card_value(transfer, trump) < TRUMP_BONUS and card_value(transfer, trump) <= cost:
        return TRANSFERS[transfer]
    if _saves_high_trump(max(cover_values), sit.talon_size, sit.attacks, sit.covers, trump):
        return TAKE
    slot, cover = plan[0]
    return COVERS[slot][cover]


def _saves_high_trump(
    cover_value: int, talon_size: int, attacks: Sequence[int], covers: Sequence[int], trump: int
) -> bool:
    """Take rather than cover when that needs a high trump while the talon is long and the table is small."""
    if talon_size < LONG_TALON or cover_value < HIGH_TRUMP or len(attacks) > 2:
        return False
    taken_value = sum(card_value(c, trump) for c in (*attacks, *covers) if c >= 0)
    return taken_value < 2 * LOW_PLAIN


def never_covers_with(
    card: int, talon_size: int, attacks: Sequence[int], covers: Sequence[int], trump: int
) -> bool:
    """Whether these rules would never cover with ``card`` here, whatever the hand: a cheaper cover is used
    first, and when ``card`` is the cheapest they take rather than spend it (`_saves_high_trump`). A player
    who does is not playing these rules."""
    return _saves_high_trump(card_value(card, trump), talon_size, attacks, covers, trump)


def _transfer_card(sit: Situation) -> int:
    """The cheapest card to pass the bout on with, or -1."""
    if not sit.can_transfer:
        return -1
    options = sit.hand & TABLE_RANKS[sit.attacks[0]]
    if not options:
        return -1
    return min(bits(options), key=lambda c: card_value(c, sit.trump))


def _throwable(sit: Situation) -> list[int]:
    if len(sit.attacks) >= sit.limit:
        return []
    return sorted(bits(sit.hand & sit.table_ranks), key=lambda c: card_value(c, sit.trump))


def _throw_in(sit: Situation) -> Action:
    options = _throwable(sit)
    if not options:
        return PASS
    card = options[0]
    trump = sit.trump
    defender_cards = sit.size(sit.defender)
    value = card_value(card, trump)
    endgame = sit.talon_size == 0
    if card & 3 != trump:
        if value <= LOW_PLAIN or endgame or defender_cards <= 2:
            return ATTACKS[card]
        return PASS
    # a trump: only to finish a defender in the endgame, or to empty our own hand
    if endgame and (defender_cards <= 2 or sit.hand.bit_count() == 1):
        return ATTACKS[card]
    return PASS


def _add_to_take(sit: Situation) -> Action:
    options = _throwable(sit)
    if not options:
        return PASS
    card = options[0]
    if card & 3 == sit.trump:
        return ATTACKS[card] if sit.talon_size == 0 and sit.hand.bit_count() == 1 else PASS
    if sit.talon_size == 0 or card_value(card, sit.trump) <= DUMP_PLAIN:
        return ATTACKS[card]
    return PASS


# ---- the same rules on a world's card masks, for rollouts --------------------------------------------------

_PLAIN = tuple(((1 << 52) - 1) & ~SUIT_MASK[trump] for trump in range(4))
_VALUES = tuple(tuple(card_value(card, trump) for card in range(52)) for trump in range(4))
# `_lead`'s score of a card before counting its rank's other cards and the defender's hand, by trump and by
# whether the talon lasts; the TWIN_BONUS added back is the card's own share of its rank's count
_LEAD_BASE = tuple(
    tuple(
        tuple(
            2 * card_value(card, trump) + TWIN_BONUS + (20 if card & 3 == trump and talon else 0)
            for card in range(52)
        )
        for talon in (False, True)
    )
    for trump in range(4)
)
_ATTACK, _DEFEND, _TAKING = Phase.ATTACK, Phase.DEFEND, Phase.TAKING


def normal_move(game: Game | Sim, seat: int) -> Action:
    """``decide(Situation.from_game(game, seat))`` worked out on the card masks, without building the
    `Situation`: the same choice (tested at every step of random games), several times faster, for rollouts.
    Card values and lead scores come from tables (`_VALUES`, `_LEAD_BASE`)."""
    phase = game.phase
    hands = game.hand_masks
    hand = hands[seat]
    trump = game.trump_index
    talon = game.talon
    if phase is _ATTACK:
        base = _LEAD_BASE[trump][1 if talon else 0]
        beaters = BEATERS[trump]
        can_beat = hands[game.defender]
        sure = SURE_TAKE_BONUS if talon else ENDGAME_SURE_BONUS
        best, best_score = -1, 10**6
        mask = hand
        while mask:
            low = mask & -mask
            mask ^= low
            card = low.bit_length() - 1
            score = base[card] - TWIN_BONUS * (hand & TABLE_RANKS[card]).bit_count()
            if not can_beat & beaters[card]:
                score -= sure
            if score < best_score:
                best, best_score = card, score
        return ATTACKS[best]
    if phase is _DEFEND:
        return _defend_on_masks(game, hand, trump, len(talon))
    if len(game.attacks) >= game.attack_limit:
        return PASS
    options = hand & game.table_ranks
    if not options:
        return PASS
    mask = options & _PLAIN[trump] or options
    card = (mask & -mask).bit_length() - 1  # the cheapest: the lowest plain card, else the lowest trump
    if phase is _TAKING:
        if card & 3 == trump:
            return ATTACKS[card] if not talon and hand.bit_count() == 1 else PASS
        return ATTACKS[card] if not talon or card >> 2 <= DUMP_PLAIN else PASS
    if card & 3 != trump:
        if card >> 2 <= LOW_PLAIN or not talon or hands[game.defender].bit_count() <= 2:
            return ATTACKS[card]
        return PASS
    if not talon and (hands[game.defender].bit_count() <= 2 or hand.bit_count() == 1):
        return ATTACKS[card]
    return PASS


def _defend_on_masks(game: Game | Sim, hand: int, trump: int, talon: int) -> Action:
    """`_defend` on masks: the cheapest covers, the most valuable attack card first (ties in slot order).
    One card waiting is the common case and needs no ordering. The cheapest card of a mask is its lowest plain
    card, else its lowest trump (``mask & plain or mask``, lowest bit), as ``min(bits, key=card_value)``."""
    attacks, covers = game.attacks, game.covers
    values = _VALUES[trump]
    plain = _PLAIN[trump]
    beaters = BEATERS[trump]
    first: Action | None = None
    cost = highest = 0
    if covers.count(-1) == 1:
        slot = covers.index(-1)
        options = hand & beaters[attacks[slot]]
        if options:
            mask = options & plain or options
            cover = (mask & -mask).bit_length() - 1
            first = COVERS[slot][cover]
            cost = highest = values[cover]
    else:
        waiting = sorted(
            (-values[attack], slot, attack) for slot, attack in enumerate(attacks) if covers[slot] < 0
        )
        free = hand
        for _, slot, attack in waiting:
            options = free & beaters[attack]
            if not options:
                first = None
                break
            mask = options & plain or options
            cover = (mask & -mask).bit_length() - 1
            free ^= 1 << cover
            value = values[cover]
            cost += value
            if value > highest:
                highest = value
            if first is None:
                first = COVERS[slot][cover]
    transfer = -1
    if game.can_transfer_now():  # it asks the mode first
        options = hand & TABLE_RANKS[attacks[0]]
        if options:
            mask = options & plain or options
            transfer = (mask & -mask).bit_length() - 1
    if first is None:
        return TRANSFERS[transfer] if transfer >= 0 else TAKE
    if transfer >= 0 and values[transfer] < TRUMP_BONUS and values[transfer] <= cost:
        return TRANSFERS[transfer]
    if highest >= HIGH_TRUMP and _saves_high_trump(highest, talon, attacks, covers, trump):
        return TAKE
    return first

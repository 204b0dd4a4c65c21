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


def normal_move(game: Game | Sim, seat: int) -> Action:
    """``decide(Situation.from_game(game, seat))`` worked out on the card masks, without building the
    `Situation`: the same choice (tested at every step of random games), about twice as fast, for rollouts."""
    phase = game.phase
    hands = game.hand_masks
    hand = hands[seat]
    trump = game.trump_index
    talon = len(game.talon)
    if phase is Phase.ATTACK:
        can_beat = hands[game.defender]
        beaters = BEATERS[trump]
        best, best_score = -1, 10**6
        mask = hand
        while mask:
            low = mask & -mask
            mask ^= low
            card = low.bit_length() - 1
            is_trump = card & 3 == trump
            score = 2 * ((card >> 2) + (TRUMP_BONUS if is_trump else 0))
            score -= TWIN_BONUS * (hand & TABLE_RANKS[card] & ~low).bit_count()
            if not can_beat & beaters[card]:
                score -= SURE_TAKE_BONUS if talon else ENDGAME_SURE_BONUS
            if is_trump and talon:
                score += 20
            if score < best_score:
                best, best_score = card, score
        return ATTACKS[best]
    plain = _PLAIN[trump]
    if phase is Phase.DEFEND:
        return _defend_on_masks(game, hand, trump, plain, talon)
    if len(game.attacks) >= game.attack_limit:
        return PASS
    options = hand & game.table_ranks
    if not options:
        return PASS
    card = _cheapest(options, plain)
    if phase is Phase.TAKING:
        if card & 3 == trump:
            return ATTACKS[card] if talon == 0 and hand.bit_count() == 1 else PASS
        return ATTACKS[card] if talon == 0 or card >> 2 <= DUMP_PLAIN else PASS
    defender_cards = hands[game.defender].bit_count()
    if card & 3 != trump:
        return ATTACKS[card] if card >> 2 <= LOW_PLAIN or talon == 0 or defender_cards <= 2 else PASS
    if talon == 0 and (defender_cards <= 2 or hand.bit_count() == 1):
        return ATTACKS[card]
    return PASS


def _defend_on_masks(game: Game | Sim, hand: int, trump: int, plain: int, talon: int) -> Action:
    """`_defend` on masks: the cheapest covers, the most valuable attack card first (ties in slot order)."""
    attacks, covers = game.attacks, game.covers
    waiting = [
        (-card_value(attack, trump), slot, attack) for slot, attack in enumerate(attacks) if covers[slot] < 0
    ]
    waiting.sort()
    free = hand
    first: Action | None = None
    cost = highest = 0
    beaters = BEATERS[trump]
    for _, slot, attack in waiting:
        options = free & beaters[attack]
        if not options:
            first = None
            break
        cover = _cheapest(options, plain)
        free &= ~(1 << cover)
        value = card_value(cover, trump)
        cost += value
        highest = max(highest, value)
        if first is None:
            first = COVERS[slot][cover]
    transfer = -1
    if game.settings.transfer and game.can_transfer_now():
        options = hand & TABLE_RANKS[attacks[0]]
        if options:
            transfer = _cheapest(options, plain)
    if first is None:
        return TRANSFERS[transfer] if transfer >= 0 else TAKE
    if transfer >= 0 and card_value(transfer, trump) < TRUMP_BONUS and card_value(transfer, trump) <= cost:
        return TRANSFERS[transfer]
    if _saves_high_trump(highest, talon, attacks, covers, trump):
        return TAKE
    return first


def _cheapest(options: int, plain: int) -> int:
    """The card of least value in ``options`` (the lowest plain card, else the lowest trump), the first
    suit on a tie, as ``min(bits(options), key=card_value)`` picks it."""
    mask = options & plain or options
    return (mask & -mask).bit_length() - 1

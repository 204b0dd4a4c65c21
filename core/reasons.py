"""Why a move is refused: a reason code with the cards and seats it concerns, checked before anything is done.

The engine has no translations: `why_illegal` answers with a `Refusal` (a code and its data) that the bot
words in each player's language (`bot.render.refusal`); `english` words it for logs, errors and the engine's
own tests. A pure function of the game, so asking costs nothing and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from core.actions import ATTACKS, COVERS, EXCHANGE, SURRENDER, TRANSFERS, Action, Kind
from core.cards import BEATERS, CARDS, TABLE_RANKS

if TYPE_CHECKING:
    from core.state import Game


class Why(StrEnum):
    """One code per reason a rule gives (phases compared by their values: `core.state` imports this)."""

    GAME_OVER = "game_over"
    NO_SEAT = "no_seat"
    ALREADY_OUT = "already_out"
    NOT_YOUR_TURN = "not_your_turn"  # seat: who acts now; doing: the phase they act in
    NOT_HELD = "not_held"  # card
    OPEN_WITH_A_CARD = "open_with_a_card"  # the bout's opener must play a card
    NO_SUCH_PLACE = "no_such_place"  # number: the place (from 1) named by a cover
    ALREADY_COVERED = "already_covered"  # target: the attack card already covered
    DOES_NOT_BEAT = "does_not_beat"  # card does not beat target; trump: the trump suit's letter
    TRANSFER_OFF = "transfer_off"
    TRANSFER_AFTER_COVER = "transfer_after_cover"
    TRANSFER_WRONG_RANK = "transfer_wrong_rank"  # card; target: the attack card whose rank it must have
    TRANSFER_OVER_CAP = "transfer_over_cap"  # number: the bout's cap
    NOBODY_TO_TRANSFER_TO = "nobody_to_transfer_to"
    TARGET_HOLDS_TOO_FEW = "target_holds_too_few"  # seat: who would defend; number: cards they would face
    DEFENDING = "defending"  # the defender chose a move only attackers make
    DEFENDER_TAKES_NO_MORE = "defender_takes_no_more"  # number: cards the defender's hand allows
    BOUT_IS_FULL = "bout_is_full"  # number: the bout's cap (6, or 5 in a first5 first bout)
    RANK_NOT_ON_TABLE = "rank_not_on_table"  # card
    THROW_IN_OR_PASS = "throw_in_or_pass"
    EXCHANGE_OFF = "exchange_off"
    TRUMP_DRAWN = "trump_drawn"
    SEVERNY_TRUMPS = "severny_trumps"
    ALREADY_LOWEST = "already_lowest"
    ACE_ONLY = "ace_only"
    NOT_LOWEST_HOLDER = "not_lowest_holder"  # target: the lowest trump


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a move is not allowed now, with what a sentence about it needs (-1, 0 or "": not concerned)."""

    why: Why
    card: int = -1  # the card the move would play
    target: int = -1  # the card it concerns: the attack to beat, the lowest trump
    seat: int = -1  # the other player concerned: who acts now, who would take a transfer
    number: int = 0  # a place on the table, a limit of cards
    doing: str = (
        ""  # with NOT_YOUR_TURN: the phase the acting player is in (attack, defend, throw_in, taking)
    )
    trump: str = ""  # the trump suit's letter, for "play a higher card or a trump"


def why_illegal(game: Game, seat: int, action: Action) -> Refusal | None:
    """Why ``seat`` may not take ``action`` now, or None when it may."""
    if game.phase == "over":
        return Refusal(Why.GAME_OVER)
    if not 0 <= seat < len(game.players):
        return Refusal(Why.NO_SEAT, seat=seat)
    if action is SURRENDER:
        return Refusal(Why.ALREADY_OUT) if seat in game.out else None
    if action is EXCHANGE:
        return _why_no_exchange(game, seat)
    if seat != game.to_act:
        acting = game.to_act if game.to_act is not None else -1
        return Refusal(Why.NOT_YOUR_TURN, seat=acting, doing=game.phase.value)
    card = action.card_id
    if card >= 0 and not game.hand_masks[seat] >> card & 1:
        return Refusal(Why.NOT_HELD, card=card)
    return _BY_PHASE[game.phase](game, action)


def why_card_unplayable(game: Game, seat: int, card: int) -> Refusal | None:
    """Why ``seat`` cannot play ``card`` now in any way, or None when some move plays it: for a player who
    names only the card (the terminal), the reason of the move they most likely meant, which while defending
    is a cover of the oldest card not yet covered."""
    moves = [ATTACKS[card]]
    if game.phase == "defend" and seat == game.to_act:
        uncovered = [slot for slot, cover in enumerate(game.covers) if cover < 0]
        moves = [*(COVERS[slot][card] for slot in uncovered), TRANSFERS[card]]
    refusals = [why_illegal(game, seat, move) for move in moves]
    return None if None in refusals else refusals[0]


def _why_no_exchange(game: Game, seat: int) -> Refusal | None:
    mode = game.settings.exchange
    if mode == "off":
        return Refusal(Why.EXCHANGE_OFF)
    if game.exchange_holder() == seat:
        return None
    if not game.talon:
        return Refusal(Why.TRUMP_DRAWN)
    if game.severny_card >= 0:
        return Refusal(Why.SEVERNY_TRUMPS)
    if game.talon[-1] == game.lowest_trump():
        return Refusal(Why.ALREADY_LOWEST)
    if mode == "ace" and game.talon[-1] >> 2 != 12:
        return Refusal(Why.ACE_ONLY)
    return Refusal(Why.NOT_LOWEST_HOLDER, target=game.lowest_trump())


def _why_not_attack_phase(game: Game, action: Action) -> Refusal | None:
    return None if action.kind is Kind.ATTACK else Refusal(Why.OPEN_WITH_A_CARD)


def _why_not_defend_phase(game: Game, action: Action) -> Refusal | None:
    kind = action.kind
    if kind is Kind.TAKE:
        return None
    if kind is Kind.COVER:
        slot = action.slot
        if slot >= len(game.attacks):
            return Refusal(Why.NO_SUCH_PLACE, number=slot + 1)
        attack = game.attacks[slot]
        if game.covers[slot] >= 0:
            return Refusal(Why.ALREADY_COVERED, target=attack)
        if not BEATERS[game.trump_index][attack] >> action.card_id & 1:
            return Refusal(Why.DOES_NOT_BEAT, card=action.card_id, target=attack, trump=game.trump)
        return None
    if kind is Kind.TRANSFER:
        return _why_no_transfer(game, action)
    return Refusal(Why.DEFENDING)


def _why_no_transfer(game: Game, action: Action) -> Refusal | None:
    if not game.settings.transfer:
        return Refusal(Why.TRANSFER_OFF)
    if any(c >= 0 for c in game.covers):
        return Refusal(Why.TRANSFER_AFTER_COVER)
    if not TABLE_RANKS[game.attacks[0]] >> action.card_id & 1:
        return Refusal(Why.TRANSFER_WRONG_RANK, card=action.card_id, target=game.attacks[0])
    placed = len(game.attacks) + 1
    if placed > game.bout_cap:
        return Refusal(Why.TRANSFER_OVER_CAP, number=game.bout_cap)
    target = game.transfer_target()
    if target == game.defender:
        return Refusal(Why.NOBODY_TO_TRANSFER_TO)
    if game.hand_size(target) < placed:
        return Refusal(Why.TARGET_HOLDS_TOO_FEW, seat=target, number=placed)
    return None


def _why_not_throw_phase(game: Game, action: Action) -> Refusal | None:
    if action.kind is Kind.PASS:
        return None
    if action.kind is Kind.ATTACK:
        limit = game.attack_limit
        if len(game.attacks) >= limit:
            full = Why.BOUT_IS_FULL if limit == game.bout_cap else Why.DEFENDER_TAKES_NO_MORE
            return Refusal(full, number=limit)
        if not game.table_ranks >> action.card_id & 1:
            return Refusal(Why.RANK_NOT_ON_TABLE, card=action.card_id)
        return None
    return Refusal(Why.THROW_IN_OR_PASS)


_BY_PHASE: dict[str, Callable[[Game, Action], Refusal | None]] = {
    "attack": _why_not_attack_phase,
    "defend": _why_not_defend_phase,
    "throw_in": _why_not_throw_phase,
    "taking": _why_not_throw_phase,
}


_ENGLISH: dict[Why, str] = {  # the templates of `english`, filled in only for the reason at hand
    Why.GAME_OVER: "the game is over",
    Why.NO_SEAT: "there is no seat {seat}",
    Why.ALREADY_OUT: "you are already out of the game",
    Why.NOT_YOUR_TURN: "it is not your turn: waiting for {who}",
    Why.NOT_HELD: "you do not hold {card}",
    Why.OPEN_WITH_A_CARD: "open the bout by playing a card",
    Why.NO_SUCH_PLACE: "there is no card in place {number} on the table",
    Why.ALREADY_COVERED: "{target} is already covered",
    Why.DOES_NOT_BEAT: "{card} does not beat {target}",
    Why.TRANSFER_OFF: "transfers are not allowed in classic games (option: transfer)",
    Why.TRANSFER_AFTER_COVER: "no transfer once a card of the bout is covered",
    Why.TRANSFER_WRONG_RANK: "a transfer needs a card of the rank on the table, not {card}",
    Why.TRANSFER_OVER_CAP: "a bout holds at most {number} attack cards",
    Why.NOBODY_TO_TRANSFER_TO: "nobody else is left in the game to pass the attack to",
    Why.TARGET_HOLDS_TOO_FEW: "{who} holds too few cards to take a transfer of {number}",
    Why.DEFENDING: "you are defending: cover a card, take, or transfer",
    Why.DEFENDER_TAKES_NO_MORE: "the bout already holds its limit of {number} attack cards",
    Why.BOUT_IS_FULL: "the bout already holds its limit of {number} attack cards",
    Why.RANK_NOT_ON_TABLE: "{card}: only a rank already on the table may be thrown in",
    Why.THROW_IN_OR_PASS: "throw in a card of a rank on the table, or pass",
    Why.EXCHANGE_OFF: "exchanging the trump card is not allowed in this game (option: exchange)",
    Why.TRUMP_DRAWN: "the turned-up trump has already been drawn",
    Why.SEVERNY_TRUMPS: "the turned-up card is no longer trumps (Severny)",
    Why.ALREADY_LOWEST: "the turned-up trump is already the lowest trump",
    Why.ACE_ONLY: "the trump card can only be exchanged when the ace is turned up (exchange=ace)",
    Why.NOT_LOWEST_HOLDER: "only the holder of {target} may exchange it for the trump card",
}


def english(refusal: Refusal, players: Sequence[str]) -> str:
    """The reason in plain English, for `IllegalAction` and logs (players read `bot.render.refusal`)."""
    r = refusal
    return _ENGLISH[r.why].format(
        card=str(CARDS[r.card]) if r.card >= 0 else "",
        target=str(CARDS[r.target]) if r.target >= 0 else "",
        who=players[r.seat] if 0 <= r.seat < len(players) else "nobody",
        seat=r.seat,
        number=r.number,
    )

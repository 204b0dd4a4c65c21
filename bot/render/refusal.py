"""The engine's reason for a refused move (`core.reasons.Refusal`), in the player's language.

The engine gives a code and the cards and seats it concerns; the sentence, its card symbols and the names
are written here, so every platform (an alert on a tap, a line in the terminal) says the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.i18n import Translator
from core.cards import CARDS, SUIT_SYMBOLS
from core.reasons import Refusal, Why


def refusal_text(refusal: Refusal, names: Sequence[str], tr: Translator) -> str:
    """One sentence saying why the move was not made, naming the cards and the player concerned."""
    return _WORDS[refusal.why](refusal, names, tr)


def _card(card_id: int) -> str:
    return CARDS[card_id].symbol if card_id >= 0 else ""


def _name(refusal: Refusal, names: Sequence[str]) -> str:
    return names[refusal.seat] if 0 <= refusal.seat < len(names) else ""


def _not_your_turn(refusal: Refusal, names: Sequence[str], tr: Translator) -> str:
    _ = tr._
    name = _name(refusal, names)
    if not name:
        return _("It is not your turn.")
    if refusal.doing == "attack":
        return _("It is not your turn: {name} is attacking.").format(name=name)
    if refusal.doing == "defend":
        return _("It is not your turn: {name} is defending.").format(name=name)
    return _("It is not your turn: {name} may throw in.").format(name=name)


def _does_not_beat(refusal: Refusal, names: Sequence[str], tr: Translator) -> str:
    _ = tr._
    card, target = _card(refusal.card), _card(refusal.target)
    suit = CARDS[refusal.target].suit
    if suit == refusal.trump:
        return _("{card} does not beat {target}: play a higher trump.").format(card=card, target=target)
    return _("{card} does not beat {target}: play a higher {suit} or a trump.").format(
        card=card, target=target, suit=SUIT_SYMBOLS[suit]
    )


def _fixed(message: Callable[[Translator], str]) -> Callable[[Refusal, Sequence[str], Translator], str]:
    return lambda refusal, names, tr: message(tr)


_WORDS: dict[Why, Callable[[Refusal, Sequence[str], Translator], str]] = {
    Why.GAME_OVER: _fixed(lambda tr: tr._("The game is over.")),
    Why.NO_SEAT: _fixed(lambda tr: tr._("You are not playing in this game.")),
    Why.ALREADY_OUT: _fixed(lambda tr: tr._("You are already out of the game.")),
    Why.NOT_YOUR_TURN: _not_your_turn,
    Why.NOT_HELD: lambda r, names, tr: tr._("You do not hold {card}.").format(card=_card(r.card)),
    Why.OPEN_WITH_A_CARD: _fixed(lambda tr: tr._("Open the bout by playing a card.")),
    Why.NO_SUCH_PLACE: lambda r, names, tr: tr._("There is no card in place {n} on the table.").format(
        n=r.number
    ),
    Why.ALREADY_COVERED: lambda r, names, tr: tr._("{card} is already covered.").format(card=_card(r.target)),
    Why.DOES_NOT_BEAT: _does_not_beat,
    Why.TRANSFER_OFF: _fixed(lambda tr: tr._("Transfers are not played in this game (option: transfer).")),
    Why.TRANSFER_AFTER_COVER: _fixed(lambda tr: tr._("No transfer once a card of the bout is covered.")),
    Why.TRANSFER_WRONG_RANK: lambda r, names, tr: tr._(
        "{card} cannot transfer: a transfer needs a card of the same rank as {target}."
    ).format(card=_card(r.card), target=_card(r.target)),
    Why.TRANSFER_OVER_CAP: lambda r, names, tr: tr.n_(
        "No transfer: a bout holds at most {n} attack card.",
        "No transfer: a bout holds at most {n} attack cards.",
        r.number,
    ).format(n=r.number),
    Why.NOBODY_TO_TRANSFER_TO: _fixed(
        lambda tr: tr._("No transfer: nobody else is left to pass the attack to.")
    ),
    Why.TARGET_HOLDS_TOO_FEW: lambda r, names, tr: tr.n_(
        "No transfer: {name} holds too few cards to defend against {n} card.",
        "No transfer: {name} holds too few cards to defend against {n} cards.",
        r.number,
    ).format(name=_name(r, names), n=r.number),
    Why.DEFENDING: _fixed(lambda tr: tr._("You are defending: cover a card, take, or transfer.")),
    Why.DEFENDER_TAKES_NO_MORE: _fixed(
        lambda tr: tr._("The defender cannot take more cards: nothing more can be thrown in.")
    ),
    Why.BOUT_IS_FULL: lambda r, names, tr: tr.n_(
        "The bout is full: it holds at most {n} attack card.",
        "The bout is full: it holds at most {n} attack cards.",
        r.number,
    ).format(n=r.number),
    Why.RANK_NOT_ON_TABLE: lambda r, names, tr: tr._(
        "{card} cannot be thrown in: only cards of a rank already on the table can."
    ).format(card=_card(r.card)),
    Why.THROW_IN_OR_PASS: _fixed(lambda tr: tr._("Throw in a card of a rank on the table, or pass.")),
    Why.EXCHANGE_OFF: _fixed(
        lambda tr: tr._("Exchanging the trump card is not played in this game (option: exchange).")
    ),
    Why.TRUMP_DRAWN: _fixed(lambda tr: tr._("The turned-up trump has already been drawn.")),
    Why.SEVERNY_TRUMPS: _fixed(lambda tr: tr._("The turned-up card is no longer trumps (Severny).")),
    Why.ALREADY_LOWEST: _fixed(lambda tr: tr._("The turned-up trump is already the lowest trump.")),
    Why.ACE_ONLY: _fixed(lambda tr: tr._("The trump card can be exchanged only when an ace is turned up.")),
    Why.NOT_LOWEST_HOLDER: lambda r, names, tr: tr._(
        "Only the holder of {card} may exchange it for the trump card."
    ).format(card=_card(r.target)),
}

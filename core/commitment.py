"""A deal fixed before the first card is played, and the check that the game kept to it (docs/fairness.md).

When a game starts, the table shows `commitment(order, salt)`: the SHA-256 of the deck's order and a secret
random salt. Nothing can be learnt from it while the salt is secret (128 random bits, `new_salt`), and no
other order gives the same hash. At the end the salt and the order are revealed; `verify` then makes the
checks of `CHECKS`, in that order, the same ones the replay page makes in the browser
(adapters/web/static/seal.js): the salt and the order give the seal; the game the record was dealt from gave
each seat the cards the order deals it and turned up the order's card; at every step each seat drew the
cards the order's talon held next (a Severny turn-up included); every logged move is possible in the game
dealt from the order; and that game ends with the announced result.

It proves the order was not changed after the start. It does not prove the order was random, nor that the
bot did not know it: the bot deals, so it knows the deck (the AI seats decide from their own view only,
`core.view`, which is a separate guarantee).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from core.actions import Action, IllegalAction
from core.cards import CARDS, Card
from core.deal import SetupError, new_game
from core.events import Drew, Event, TrumpExchanged, TrumpsChanged, TurnedUpCardDrawn
from core.settings import Settings
from core.state import Game

PREFIX = "durak-deal-v1"  # names the format, so a hash of another thing is never taken for a deal's
SALT_HEX = 32  # 128 bits, as hex

# What `verify` checks, in the order it checks them; the replay page makes the same checks under the same names
# (adapters/web/static/seal.js is sent them with every replay, tests/web/test_browser_seal.py holds the two
# to one verdict on the same records), and `durak-bot verify` prints them.
CHECKS: tuple[str, ...] = ("hash", "deal", "draws", "moves", "result")
CHECKED: dict[str, str] = {
    "hash": "the revealed salt (128 bits) and order give the seal shown at the start",
    "deal": "each seat was dealt the cards the order deals it, and the order's card was turned up",
    "draws": "at every step each seat drew the cards the order's talon held next",
    "moves": "every recorded move is possible in the game dealt from the order",
    "result": "that game ends with the result announced",
}


def dealt_order(game: Game) -> list[Card]:
    """The deck of ``game`` as it was dealt, the first card dealt first: what its commitment covers."""
    return [CARDS[card_id] for card_id in game.deck_order]


def deck_text(order: Sequence[Card]) -> str:
    """The order as it is hashed and revealed: card codes, the first dealt first, the bottom card last."""
    return " ".join(str(card) for card in order)


def new_salt() -> str:
    """128 secret bits, as 32 hex digits, from the operating system's randomness and nothing else: a salt made
    from something a player knows or can guess (a chosen seed) could be found by trying, and the seal opened
    before the end."""
    return secrets.token_hex(SALT_HEX // 2)


def commitment(order: Sequence[Card], salt: str) -> str:
    """The SHA-256 (hex) of ``PREFIX|salt|order``: what the table shows from the start of the game."""
    return sealed_text(deck_text(order), salt)


def sealed_text(order_text: str, salt: str) -> str:
    """The seal of an order as it was revealed, taken as written: what anyone's SHA-256 tool gives for it."""
    return hashlib.sha256(f"{PREFIX}|{salt}|{order_text}".encode()).hexdigest()


def short(commitment_hex: str) -> str:
    """The first 64 bits, in groups of four: enough to compare by eye with the page's full hash."""
    return " ".join(commitment_hex[i : i + 4] for i in range(0, 16, 4))


def read_order(text: str) -> list[Card]:
    """A revealed order back into cards; ValueError when a word is not a card or a card repeats."""
    cards = [Card.parse(word) for word in text.split()]
    if len(set(cards)) != len(cards):
        raise ValueError("a card appears twice in the order")
    return cards


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a revealed deal checks out, and if not, the first of `CHECKS` that fails, why, and where."""

    ok: bool
    check: str = ""  # the check that failed, one of CHECKS
    reason: str = ""
    step: int | None = None  # where it failed: 0 the deal, n the n-th recorded move; None for hash and result

    def __str__(self) -> str:
        """One line: the check that failed, where, and why."""
        if self.ok:
            return "ok"
        where = f" at step {self.step}" if self.step is not None else ""
        return f"{self.check}{where}: {self.reason}"


def failed(check: str, reason: str, step: int | None = None) -> Verdict:
    """The verdict of a check that failed."""
    return Verdict(False, check, reason, step)


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """What a finished game's record says: enough to deal it again and replay it (`bot.game.archive`)."""

    settings: Settings
    players: tuple[str, ...]
    dealer: int | None
    last_durak: int | None
    log: tuple[tuple[int, str], ...]
    durak: int | None
    draw: bool
    order_out: tuple[int, ...]
    deck: tuple[Card, ...]  # the deck the record's game was dealt from (its seed's order, or its deck)

    def dealt_from(self, deck: Sequence[Card]) -> Game:
        """This game's players and seats dealt from ``deck``; SetupError when it cannot be."""
        return new_game(
            self.settings, self.players, deck=list(deck), dealer=self.dealer, last_durak=self.last_durak
        )


def verify(played: PlayedGame, order: str, salt: str, commitment_hex: str) -> Verdict:
    """Make the checks of `CHECKS` in turn for a revealed ``order`` (as revealed: card codes) and ``salt``,
    against the seal shown at the start and the game the record says was played; the first that fails is
    the verdict.

    The record's own game (dealt from its deck) and the game the order deals are played move for move side by
    side, so a deck that differs from the sealed one in any card dealt or drawn is caught where that card
    came, even when no move shows it (a card drawn and never played). Draws and moves are checked step by
    step together, so the earlier step is the one reported, as the page reports it."""
    if len(salt) != SALT_HEX or any(c not in "0123456789abcdef" for c in salt):
        return failed("hash", "the salt is not 32 hexadecimal digits (128 bits)")
    if sealed_text(order, salt) != commitment_hex.lower():
        return failed("hash", "the order and the salt do not give the seal shown at the start")
    try:
        cards = read_order(order)
        if deck_text(cards) != order:  # the page reads the order word by word, as it was hashed
            raise ValueError("it is not written as card codes one space apart")
        sealed, recorded = played.dealt_from(cards), played.dealt_from(played.deck)
    except (SetupError, ValueError) as error:
        return failed("deal", f"the revealed order cannot be dealt: {error}", 0)
    problem = deal_difference(sealed, recorded)
    if problem:
        return failed("deal", problem, 0)
    for number, (seat, code) in enumerate(played.log, start=1):
        try:
            action = Action.parse(code)
            sealed, recorded = sealed.apply(seat, action), recorded.apply(seat, action)
        except (IllegalAction, ValueError):
            return failed("moves", f"{code} by seat {seat} is not possible with the sealed deck", number)
        problem = draws_difference(sealed, recorded)
        if problem:
            return failed("draws", problem, number)
    return result_verdict(sealed, played)


def cards_text(mask: int) -> str:
    """A mask of cards as codes, in card order: how a reason names a hand or a draw."""
    return " ".join(str(CARDS[card]) for card in range(52) if mask >> card & 1)


def deal_difference(sealed: Game, recorded: Game) -> str | None:
    """How the record's deal differs from the sealed deck's, seat by seat, then the card turned up; None when
    it does not. Which card of a hand came first is not compared: nobody saw that."""
    for seat, (want, got) in enumerate(zip(sealed.hand_masks, recorded.hand_masks, strict=True)):
        if want != got:
            return f"seat {seat} was dealt {cards_text(got)}; the sealed deck deals it {cards_text(want)}"
    if sealed.deal_trump_card_id != recorded.deal_trump_card_id:
        return f"{recorded.deal_trump_card} was turned up; the sealed deck turns up {sealed.deal_trump_card}"
    return None


DRAWING = (Drew, TurnedUpCardDrawn, TrumpsChanged, TrumpExchanged)  # the events that move talon cards


def draws_of_last_step(game: Game) -> list[Event]:
    """The draws the latest move brought about (a refill, the last card, Severny's turn-up, an exchange)."""
    return [event for _step, event in game.events(since=game.step) if isinstance(event, DRAWING)]


def draws_difference(sealed: Game, recorded: Game) -> str | None:
    """How the record's latest draws differ from the sealed deck's; None when they do not."""
    want, got = draws_of_last_step(sealed), draws_of_last_step(recorded)
    if want == got:
        return None
    return f"{described(got)} (from the sealed deck: {described(want)})"


def described(draws: list[Event]) -> str:
    """Draws in a few words: "seat 0 drew 9S 7H, seat 1 drew KD"."""
    words = []
    for event in draws:
        if isinstance(event, Drew):
            words.append(f"seat {event.seat} drew {cards_text(event.cards or 0)}")
        elif isinstance(event, TrumpsChanged):
            words.append(f"{CARDS[event.card]} made trumps")
        elif isinstance(event, TrumpExchanged):
            words.append(f"seat {event.seat} exchanged {CARDS[event.put]} for {CARDS[event.taken]}")
    return ", ".join(words) or "no draw"


def result_verdict(sealed: Game, played: PlayedGame) -> Verdict:
    """The last check: the game dealt from the sealed deck is over, with the result the record announced."""
    result = sealed.result
    if result is None:
        return failed("result", "the recorded moves do not finish a game dealt from the sealed deck")
    if (result.durak, result.draw, tuple(result.order_out)) != (played.durak, played.draw, played.order_out):
        return failed("result", "the game dealt from the sealed deck ends with another result")
    return Verdict(True)

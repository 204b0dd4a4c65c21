"""A deal fixed before the first card is played, and the check that the game kept to it (docs/fairness.md).

When a game starts, the table shows `commitment(order, salt)`: the SHA-256 of the deck's order and a secret
random salt. Nothing can be learnt from it while the salt is secret (the salt alone has 128 bits), and no
other order gives the same hash. At the end the salt and the order are revealed; `verify` then checks that
they give the commitment and that the recorded game, replayed by the engine from that order, is the game
that was played: every card dealt and drawn (a Severny turn-up and a trump exchange included) came from
the committed order, every logged move was legal with it, and the result is the one announced.

It proves the order was not changed after the start. It does not prove the order was random, nor that the
bot did not know it: the bot deals, so it knows the deck (the AI seats decide from their own view only,
`core.view`, which is a separate guarantee).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from core.actions import Action, IllegalAction
from core.cards import CARDS, Card
from core.deal import SetupError, new_game
from core.settings import Settings
from core.state import Game

PREFIX = "durak-deal-v1"  # names the format, so a hash of another thing is never taken for a deal's
SALT_HEX = 32  # 128 bits, as hex


def dealt_order(game: Game) -> list[Card]:
    """The deck of ``game`` as it was dealt, the first card dealt first: what its commitment covers."""
    return [CARDS[card_id] for card_id in game.deck_order]


def deck_text(order: Sequence[Card]) -> str:
    """The order as it is hashed and revealed: card codes, the first dealt first, the bottom card last."""
    return " ".join(str(card) for card in order)


def commitment(order: Sequence[Card], salt: str) -> str:
    """The SHA-256 (hex) of ``PREFIX|salt|order``: what the table shows from the start of the game."""
    return hashlib.sha256(f"{PREFIX}|{salt}|{deck_text(order)}".encode()).hexdigest()


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
    """Whether a revealed deal checks out, and if not, the first thing that does not."""

    ok: bool
    reason: str = ""


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


def verify(played: PlayedGame, order: Sequence[Card], salt: str, commitment_hex: str) -> Verdict:
    """Check a revealed deal against the commitment shown at the start and the game that was recorded."""
    if len(salt) != SALT_HEX or any(c not in "0123456789abcdef" for c in salt):
        return Verdict(False, "the salt is not 32 hexadecimal digits")
    if commitment(order, salt) != commitment_hex.lower():
        return Verdict(False, "the order and the salt do not give the commitment shown at the start")
    try:
        game = new_game(
            played.settings,
            played.players,
            deck=list(order),
            dealer=played.dealer,
            last_durak=played.last_durak,
        )
    except SetupError as error:
        return Verdict(False, f"the order cannot be dealt: {error}")
    for number, (seat, code) in enumerate(played.log, start=1):
        try:
            game = game.apply(seat, Action.parse(code))
        except (IllegalAction, ValueError):
            return Verdict(
                False, f"move {number} ({code} by seat {seat}) is not possible with the committed deck"
            )
    result = game.result
    if result is None:
        return Verdict(False, "the recorded moves do not finish a game dealt from the committed deck")
    if (result.durak, result.draw, tuple(result.order_out)) != (played.durak, played.draw, played.order_out):
        return Verdict(False, "the game dealt from the committed deck ends with another result")
    return Verdict(True)

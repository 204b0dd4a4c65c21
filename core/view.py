"""What one seat may see: the only thing renderers and AI players are given.

Secrets are stripped here and nowhere else: a view holds the viewer's own hand, every other hand only as a
count, the table, the trump card while it lies under the talon, and public counts. The card turned up at the
deal (``deal_trump_card``) is public for the whole game: everyone saw it; so is Severny's new trump card.
The events of the log (`core.events`) are all public but one: the cards another seat drew show as a count.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.actions import Action
from core.cards import CARDS, Card
from core.events import Event, Result
from core.state import Game, Phase


@dataclass(frozen=True)
class View:
    seat: int | None  # None: a spectator (the group's public table)
    players: tuple[str, ...]
    dealer: int  # public: with the whole deck dealt, the dealer holds the card that showed trumps
    hand: tuple[Card, ...]  # the viewer's own cards, trumps last; empty for a spectator
    hand_sizes: tuple[int, ...]
    table: tuple[tuple[Card, Card | None], ...]
    trump: str  # suit letter
    trump_card: Card | None  # the turned-up trump while it lies under the talon
    deal_trump_card: Card
    severny_card: Card | None  # Severny: the drawn card that made its suit trumps (public), once drawn
    talon_size: int
    discard_size: int
    phase: Phase
    to_act: int | None
    attacker: int
    defender: int
    passed: tuple[int, ...]
    out: tuple[int, ...]
    attack_limit: int
    bout_number: int
    legal_actions: tuple[Action, ...]
    result: Result | None
    step: int
    history: str  # `Game.history` now: digest of the public actions that led here
    settings_words: str
    events: tuple[tuple[int, Event], ...]  # (step, event) as this seat saw them: see `Game.events`

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def visible_cards(self) -> set[Card]:
        """Every card this view shows (own hand, table, turned-up trump): for the secrecy tests."""
        cards = set(self.hand)
        for attack, cover in self.table:
            cards.add(attack)
            if cover is not None:
                cards.add(cover)
        if self.trump_card is not None:
            cards.add(self.trump_card)
        if self.severny_card is not None:
            cards.add(self.severny_card)
        return cards


def build_view(game: Game, seat: int | None) -> View:
    hand = tuple(game.hand(seat)) if seat is not None else ()
    legal = tuple(game.legal_actions(seat)) if seat is not None else ()
    return View(
        seat=seat,
        players=game.players,
        dealer=game.dealer,
        hand=hand,
        hand_sizes=tuple(h.bit_count() for h in game.hand_masks),
        table=tuple(game.table),
        trump=game.trump,
        trump_card=CARDS[game.talon[-1]] if game.talon else None,
        deal_trump_card=CARDS[game.deal_trump_card_id],
        severny_card=CARDS[game.severny_card] if game.severny_card >= 0 else None,
        talon_size=len(game.talon),
        discard_size=game.discard.bit_count(),
        phase=game.phase,
        to_act=game.to_act,
        attacker=game.attacker,
        defender=game.defender,
        passed=tuple(s for s in range(len(game.players)) if game.passed >> s & 1),
        out=game.out,
        attack_limit=game.attack_limit,
        bout_number=game.bout_number,
        legal_actions=legal,
        result=game.result,
        step=game.step,
        history=game.history(),
        settings_words=game.settings.to_words(),
        events=game.seen_events(seat),
    )

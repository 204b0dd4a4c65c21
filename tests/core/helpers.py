"""Stacked decks and short move scripts, so that scenario tests read like the rules they prove."""

from __future__ import annotations

from collections.abc import Sequence

from core import Action, Card, Game, Settings, new_game
from core.cards import CARDS, deck_ids
from core.deal import replay

HAND_SIZE = 6


def cards(text: str) -> list[Card]:
    """``cards("6S 7S TH")`` -> the three cards."""
    return [Card.parse(word) for word in text.split()]


def stack(
    hands: Sequence[Sequence[str] | str],
    trump: str | None = None,
    talon: Sequence[str] | str = (),
    deck_size: int = 36,
    dealer: int | None = None,
) -> list[Card]:
    """A deck order that deals exactly ``hands`` (seat 0 first in the list), turns up ``trump``, and puts
    ``talon`` on top of the talon in drawing order.

    Hands shorter than six are completed, and the rest of the talon is filled, with the unused cards of the
    deck highest first (scenarios mostly play low cards), so the same arguments always give the same deck.
    With ``trump=None`` and a deck the deal uses up, the dealer's last card (the sixth of ``hands[dealer]``)
    shows trumps.
    """
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    wanted = [_words(hand) for hand in hands]
    talon_words = _words(talon)
    named = [w for hand in wanted for w in hand] + talon_words + ([trump] if trump else [])
    named_ids = [Card.parse(w).id for w in named]
    if len(set(named_ids)) != len(named_ids):
        raise ValueError(f"a card is named twice in {named}")
    spare = [c for c in reversed(deck_ids(deck_size)) if c not in set(named_ids)]
    if any(c not in deck_ids(deck_size) for c in named_ids):
        raise ValueError(f"a named card is not in the {deck_size}-card deck")
    hand_ids = []
    for hand in wanted:
        ids = [Card.parse(w).id for w in hand]
        if len(ids) > HAND_SIZE:
            raise ValueError(f"a hand holds at most six cards: {hand}")
        while len(ids) < HAND_SIZE:
            ids.append(spare.pop(0))
        hand_ids.append(ids)
    order = [hand_ids[(dealer + 1 + i) % n][i // n] for i in range(n * HAND_SIZE)]
    if n * HAND_SIZE == deck_size:
        if trump is not None or talon_words:
            raise ValueError("the deal uses the whole deck: no turned-up trump and no talon")
        return [CARDS[c] for c in order]
    trump_id = spare.pop(0) if trump is None else Card.parse(trump).id
    order.append(trump_id)
    order.extend(Card.parse(w).id for w in talon_words)
    order.extend(spare)
    return [CARDS[c] for c in order]


def _words(cards_text: Sequence[str] | str) -> list[str]:
    return cards_text.split() if isinstance(cards_text, str) else list(cards_text)


def game_with(
    hands: Sequence[Sequence[str] | str],
    trump: str | None = None,
    talon: Sequence[str] | str = (),
    settings: Settings | str = "",
    dealer: int | None = None,
    last_durak: int | None = None,
    opener: int | None = None,
) -> Game:
    """A new game dealt from `stack`; ``settings`` may be `/newgame` words. ``opener`` picks who attacks first
    by naming the seat to its right as the last durak (the default ``opener=durak_left``)."""
    if isinstance(settings, str):
        settings = Settings.from_words(settings)
    if opener is not None:
        last_durak = (opener - 1) % len(hands)
    deck = stack(hands, trump=trump, talon=talon, deck_size=settings.deck, dealer=dealer)
    players = [f"P{seat}" for seat in range(len(hands))]
    return new_game(settings, players, deck=deck, dealer=dealer, last_durak=last_durak)


def play(game: Game, *moves: str) -> Game:
    """Apply moves written ``"<seat> <code>"``, e.g. ``play(game, "0 a:6S", "1 c:0:7S", "0 p")``."""
    for move in moves:
        seat, code = move.split()
        game = game.apply(int(seat), Action.parse(code))
    return game


def codes(game: Game, seat: int) -> set[str]:
    """The codes of ``seat``'s legal actions."""
    return {action.code for action in game.legal_actions(seat)}


def hand(game: Game, seat: int) -> set[Card]:
    return set(game.hand(seat))


def talon(game: Game) -> list[Card]:
    """The talon in drawing order, the turned-up trump last."""
    return [CARDS[c] for c in game.talon]


def replayed(game: Game) -> Game:
    """``game`` rebuilt from what defines it: its settings, players, seed, dealer, last durak and actions."""
    return replay(
        game.settings,
        game.players,
        seed=game.seed,
        log=game.log,
        dealer=game.dealer,
        last_durak=game.last_durak,
    )

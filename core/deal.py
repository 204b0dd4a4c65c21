"""Starting a game: the seeded shuffle, the deal, trumps and who opens; and replaying a recorded game."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence

from core.actions import Action
from core.cards import Card, deck_ids
from core.rules import start_bout
from core.settings import Settings
from core.state import HAND_SIZE, Game

MIN_PLAYERS, MAX_PLAYERS = 2, 6


class SetupError(ValueError):
    """The players, deck or seats cannot make a game; the message says why."""


def shuffled_deck(size: int, seed: int) -> list[int]:
    """The deck order for a seed: the same seed always gives the same order."""
    order = deck_ids(size)
    random.Random(seed).shuffle(order)
    return order


def new_seed() -> int:
    """A seed from the operating system's cryptographic source, stored so the game can be replayed."""
    return secrets.randbits(63)


def new_game(
    settings: Settings,
    players: Sequence[str],
    seed: int | None = None,
    deck: Sequence[Card] | None = None,
    dealer: int | None = None,
    last_durak: int | None = None,
) -> Game:
    """Deal a new game. Seats are 0..n-1 clockwise; ``deck[0]`` (or the seed's first card) is dealt first,
    to the seat left of the dealer; the card after the deal is the turned-up trump. The same seed deals the
    same game:

    >>> from core import Settings, new_game
    >>> game = new_game(Settings.from_words("deck=24"), ["Ann", "Bob"], seed=7)
    >>> game.hand(1), game.talon_size
    ([Card('QD'), Card('QC'), Card('KD'), Card('KC'), Card('AH'), Card('KS')], 12)
    """
    n = len(players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise SetupError(f"Durak needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
    if settings.teams and n not in (4, 6):
        raise SetupError(f"team games need 4 players (two pairs) or 6 (two teams of three), not {n}")
    if n * HAND_SIZE > settings.deck:
        most = settings.deck // HAND_SIZE
        raise SetupError(f"a {settings.deck}-card deck deals six cards to at most {most} players, not {n}")
    dealer = n - 1 if dealer is None else dealer
    if not 0 <= dealer < n:
        raise SetupError(f"the dealer must be a seat from 0 to {n - 1}")
    if last_durak is not None and not 0 <= last_durak < n:
        raise SetupError(f"the last durak must be a seat from 0 to {n - 1}")
    if deck is not None:
        if seed is not None:
            raise SetupError("give a seed or a deck, not both")
        order = [card.id for card in deck]
        if sorted(order) != deck_ids(settings.deck):
            raise SetupError(f"the deck must hold each card of the {settings.deck}-card deck exactly once")
    else:
        seed = new_seed() if seed is None else seed
        order = shuffled_deck(settings.deck, seed)
    return _deal(settings, tuple(players), seed, tuple(order), dealer, last_durak)


def _deal(
    settings: Settings,
    players: tuple[str, ...],
    seed: int | None,
    order: tuple[int, ...],
    dealer: int,
    last_durak: int | None,
) -> Game:
    n = len(players)
    hands = [0] * n
    dealt = n * HAND_SIZE
    for i in range(dealt):
        hands[(dealer + 1 + i) % n] |= 1 << order[i]
    if dealt < len(order):
        trump_card = order[dealt]
        talon = (*order[dealt + 1 :], trump_card)
    else:  # the whole deck is dealt: the dealer's last card shows trumps and stays in hand
        trump_card = order[dealt - 1]
        talon = ()

    game = Game(
        settings=settings,
        players=players,
        seed=seed,
        deck_order=order,
        dealer=dealer,
        last_durak=last_durak,
        hand_masks=tuple(hands),
        talon=talon,
        trump_card_id=trump_card,
        deal_trump_card_id=trump_card,
    )
    start_bout(game, _first_attacker(game), first=True)
    return game


def _first_attacker(game: Game) -> int:
    """rules.md §3.1 and §3.2: after a durak by the opener option, otherwise the lowest trump."""
    n = len(game.players)
    opener = game.settings.opener
    if game.last_durak is not None and opener == "durak_left":
        return (game.last_durak + 1) % n
    if game.last_durak is not None and opener == "durak_right":
        return (game.last_durak - 1) % n
    trump_masks = [hand >> game.trump_index for hand in game.hand_masks]
    for rank in range(13):
        bit = 1 << (rank * 4)
        for seat, mask in enumerate(trump_masks):
            if mask & bit:
                return seat
    return (game.dealer + 1) % n


def replay(
    settings: Settings,
    players: Sequence[str],
    seed: int | None = None,
    deck: Sequence[Card] | None = None,
    log: Iterable[tuple[int, str]] = (),
    dealer: int | None = None,
    last_durak: int | None = None,
) -> Game:
    """Rebuild a game from its settings, seed (or deck) and action log: a game is its history."""
    game = new_game(settings, players, seed=seed, deck=deck, dealer=dealer, last_durak=last_durak)
    for seat, code in log:
        game = game.apply(seat, Action.parse(code))
    return game

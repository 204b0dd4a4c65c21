"""Cards, suits and decks.

Internally a card is a small int ``rank_index * 4 + suit_index`` (rank 0 is the two, 12 the ace), so a hand
is a 52-bit mask and "higher card of the same suit" is simply "higher id, same suit". The `Card` objects
callers see are interned views of those ints: there are exactly 52 of them and ``Card.parse`` returns one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

DECK_LOWEST_RANK = {24: 7, 36: 4, 52: 0}  # rank index of the lowest card: 9, 6 and 2


class Card:
    """One of the 52 cards; compare with ``is``/``==``, order by rank only via ``rank_index``."""

    __slots__ = ("id", "rank", "suit")
    id: int
    rank: str
    suit: str

    def __new__(cls, rank: str, suit: str) -> Card:
        return Card.parse(rank + suit)

    @staticmethod
    def parse(text: str) -> Card:
        """Read ``"TH"``, ``"th"``, ``"10H"`` or ``"10♥"`` into a card; raise ``ValueError`` otherwise."""
        cleaned = text.strip().upper()
        for symbol_letter, symbol in SUIT_SYMBOLS.items():
            cleaned = cleaned.replace(symbol, symbol_letter)
        if cleaned.startswith("10"):
            cleaned = "T" + cleaned[2:]
        if len(cleaned) != 2 or cleaned[0] not in RANKS or cleaned[1] not in SUITS:
            raise ValueError(
                f"{text!r} is not a card: write a rank (2-9, T, J, Q, K, A) and a suit (S, H, D, C)"
            )
        return CARDS[RANKS.index(cleaned[0]) * 4 + SUITS.index(cleaned[1])]

    @property
    def rank_index(self) -> int:
        return self.id >> 2

    @property
    def suit_index(self) -> int:
        return self.id & 3

    @property
    def symbol(self) -> str:
        """The card for people: ``10♥``."""
        rank = "10" if self.rank == "T" else self.rank
        return rank + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self.rank + self.suit!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (str(self),))


def _make_card(card_id: int) -> Card:
    card = object.__new__(Card)
    card.id = card_id
    card.rank = RANKS[card_id >> 2]
    card.suit = SUITS[card_id & 3]
    return card


CARDS: tuple[Card, ...] = tuple(_make_card(i) for i in range(52))


def deck_ids(size: int) -> list[int]:
    """Card ids of a fresh deck of 24, 36 or 52 cards, lowest first."""
    if size not in DECK_LOWEST_RANK:
        raise ValueError(f"a deck has 24, 36 or 52 cards, not {size}")
    return list(range(DECK_LOWEST_RANK[size] * 4, 52))


def bits(mask: int) -> Iterator[int]:
    """The card ids in a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(card_ids: Iterable[int]) -> int:
    mask = 0
    for card_id in card_ids:
        mask |= 1 << card_id
    return mask


SUIT_MASK = tuple(sum(1 << (rank * 4 + suit) for rank in range(13)) for suit in range(4))
RANK_MASK = tuple(0xF << (rank * 4) for rank in range(13))


def _beaters(card_id: int, trump: int) -> int:
    suit = card_id & 3
    higher_same_suit = SUIT_MASK[suit] & ~((2 << card_id) - 1)
    return higher_same_suit if suit == trump else higher_same_suit | SUIT_MASK[trump]


# BEATERS[trump][card] is the mask of every card that beats `card` when `trump` is trumps.
BEATERS = tuple(tuple(_beaters(card_id, trump) for card_id in range(52)) for trump in range(4))

# TABLE_RANKS[card] is the mask of all four cards of that card's rank (what may be thrown in after it).
TABLE_RANKS = tuple(RANK_MASK[card_id >> 2] for card_id in range(52))


def ranks_on_table(*card_groups: Iterable[int]) -> int:
    """Mask of every card whose rank lies on the table (what may be thrown in); -1 marks an empty cover."""
    ranks = 0
    for group in card_groups:
        for card in group:
            if card >= 0:
                ranks |= TABLE_RANKS[card]
    return ranks


def beats(cover: Card, attack: Card, trump: str) -> bool:
    """Whether ``cover`` beats ``attack``: a higher card of its suit, or any trump over a plain card."""
    return bool(BEATERS[SUITS.index(trump)][attack.id] >> cover.id & 1)


def sort_key(card_id: int, trump: int) -> tuple[bool, int, int]:
    """Order for showing a hand: plain cards by rank, trumps last."""
    return (card_id & 3 == trump, card_id >> 2, card_id & 3)

"""Actions: what a seat can do, with a compact ASCII code for logs, buttons and JSON.

Codes: attack or throw-in ``a:6S``, cover slot i ``c:i:9S``, take ``t``, pass ``p``, transfer ``x:6H``,
exchange the lowest trump for the turned-up one ``e``, surrender ``s``. Actions are interned: there is one
object per code, so legality checks are identity checks and building legal-action lists allocates nothing.
"""

from __future__ import annotations

from enum import StrEnum

from core.cards import CARDS, Card

MAX_SLOTS = 6


class Kind(StrEnum):
    ATTACK = "a"
    COVER = "c"
    TAKE = "t"
    PASS = "p"
    TRANSFER = "x"
    EXCHANGE = "e"
    SURRENDER = "s"


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the message is meant for the player."""


class Action:
    """One interned action; ``Action.parse(code)`` and ``action.code`` convert both ways."""

    __slots__ = ("kind", "card_id", "slot", "code")
    kind: Kind
    card_id: int  # -1 when the action has no card
    slot: int  # -1 unless a cover
    code: str

    @property
    def card(self) -> Card | None:
        return CARDS[self.card_id] if self.card_id >= 0 else None

    @staticmethod
    def parse(code: str) -> Action:
        """Read an action code; raise ``ValueError`` with the accepted forms when it is not one."""
        action = _BY_CODE.get(code.strip())
        if action is None:
            action = _parse_loosely(code)
        return action

    @staticmethod
    def attack(card: Card) -> Action:
        return ATTACKS[card.id]

    @staticmethod
    def cover(slot: int, card: Card) -> Action:
        return COVERS[slot][card.id]

    @staticmethod
    def transfer(card: Card) -> Action:
        return TRANSFERS[card.id]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Action({self.code!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Action.parse, (self.code,))


def _make(kind: Kind, card_id: int = -1, slot: int = -1) -> Action:
    action = object.__new__(Action)
    action.kind = kind
    action.card_id = card_id
    action.slot = slot
    if kind is Kind.COVER:
        action.code = f"c:{slot}:{CARDS[card_id]}"
    elif card_id >= 0:
        action.code = f"{kind.value}:{CARDS[card_id]}"
    else:
        action.code = kind.value
    return action


ATTACKS: tuple[Action, ...] = tuple(_make(Kind.ATTACK, i) for i in range(52))
TRANSFERS: tuple[Action, ...] = tuple(_make(Kind.TRANSFER, i) for i in range(52))
COVERS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(_make(Kind.COVER, i, slot) for i in range(52)) for slot in range(MAX_SLOTS)
)
TAKE = _make(Kind.TAKE)
PASS = _make(Kind.PASS)
EXCHANGE = _make(Kind.EXCHANGE)
SURRENDER = _make(Kind.SURRENDER)

_BY_CODE: dict[str, Action] = {
    a.code: a
    for a in (*ATTACKS, *TRANSFERS, *(c for row in COVERS for c in row), TAKE, PASS, EXCHANGE, SURRENDER)
}


def _parse_loosely(code: str) -> Action:
    """Accept lower case and card spellings like ``c:0:10h``; anything else is a clear ValueError."""
    parts = code.strip().split(":")
    kind = parts[0].lower()
    try:
        if kind in ("a", "x") and len(parts) == 2:
            table = ATTACKS if kind == "a" else TRANSFERS
            return table[Card.parse(parts[1]).id]
        if kind == "c" and len(parts) == 3 and parts[1].isdigit() and int(parts[1]) < MAX_SLOTS:
            return COVERS[int(parts[1])][Card.parse(parts[2]).id]
        if len(parts) == 1 and kind in _BY_CODE:
            return _BY_CODE[kind]
    except ValueError:
        pass
    raise ValueError(f"{code!r} is not an action code: use a:6S, c:0:9S, t, p, x:6H, e or s")

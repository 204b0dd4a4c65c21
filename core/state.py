"""The game state and the questions one can ask of it.

A `Game` is immutable from the outside: ``apply`` returns a new one. Inside, cards are ints and hands are
bitmasks (see `core.cards`), which keeps a random playout fast enough for search-based AI. The transitions
live in `core.rules`; the deal in `core.deal`; what one seat may see in `core.view`. Every `Game` is built by
its constructor (the deal, JSON and the AI's sampled worlds) or copied by ``clone`` inside `core.rules`.

The log is the game's history: each action, and after it the events it caused (`core.events`), oldest
first. ``log`` lists the actions, ``events`` the events with the step each followed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, cast

# core.rules imports this module too; by the time a game is applied to, both are loaded (an import inside
# ``apply`` cost more than half a microsecond a move)
from core import reasons, rules
from core.actions import (
    ATTACKS,
    COVERS,
    EXCHANGE,
    PASS,
    TAKE,
    TRANSFERS,
    Action,
    IllegalAction,
)
from core.cards import BEATERS, CARDS, SUITS, TABLE_RANKS, Card, bits, ranks_on_table, sort_key
from core.events import Drew, Event, Result, seen_by
from core.settings import Settings

if TYPE_CHECKING:
    from core.view import View

HAND_SIZE = 6
MAX_ATTACKS = 6
HISTORY_BYTES = 3  # `Game.history`: 24 bits, one chance in 16 million that two courses of a game agree


class Phase(StrEnum):
    """Where the bout stands; each has one handler in `core.rules`."""

    ATTACK = "attack"  # the main attacker must open the bout with any card
    DEFEND = "defend"  # some card is uncovered and the defender answers: cover, take or transfer
    THROW_IN = "throw_in"  # everything is covered; attackers may throw in by priority, or pass
    TAKING = "taking"  # the defender said take; attackers may still throw in before the pick-up
    OVER = "over"


class _Seen(NamedTuple):
    """The events of a game as everyone sees them, and each seat's own draws with where they go."""

    node: Any  # the log entry they were read up to
    public: tuple[tuple[int, Event], ...]
    own: tuple[tuple[tuple[int, tuple[int, Event]], ...], ...]  # per seat: (index in public, own draw)


class Game:
    """One game of Durak. Read it through properties; change it only with ``apply``."""

    __slots__ = (
        "settings", "players", "seed", "deck_order", "dealer", "last_durak",
        "hand_masks", "talon", "trump_index", "trump_card_id", "deal_trump_card_id", "discard",
        "attacks", "covers", "table_ranks", "phase", "attacker", "opener", "defender",
        "defender_limit", "bout_cap", "bout_number", "passed", "to_act",
        "out", "emptied", "positions", "result", "_log", "step", "severny_card", "recording",
        "_seen_memo", "_json_memo", "_history_memo",
    )  # fmt: skip

    settings: Settings
    players: tuple[str, ...]
    seed: int | None
    deck_order: tuple[int, ...]  # the deck as dealt: index 0 dealt first
    dealer: int
    last_durak: int | None
    hand_masks: tuple[int, ...]  # bitmask per seat
    talon: tuple[int, ...]  # drawn from the front; the turned-up trump is last
    trump_index: int  # suit index
    trump_card_id: int  # the card that shows trumps now (under the talon, or in a hand once drawn)
    deal_trump_card_id: int  # the card turned up at the deal, seen by everyone
    discard: int  # bitmask
    attacks: tuple[int, ...]  # in the order they landed (slot numbers)
    covers: tuple[int, ...]  # per slot, -1 while uncovered
    table_ranks: int  # mask of every card whose rank is on the table
    phase: Phase
    attacker: int  # main attacker: priority and "takes: who attacks next"
    opener: int  # who opened the bout: draws first
    defender: int
    defender_limit: int  # defender's hand when they began to defend
    bout_cap: int  # 6, or 5 in the first bout with first5
    bout_number: int
    passed: int  # bitmask of seats that passed since the last new attack card
    to_act: int | None
    out: tuple[int, ...]  # seats in the order they went out
    emptied: tuple[int, ...]  # seats whose hand emptied this bout while the talon lasted
    positions: frozenset[str]  # digests of the bout-start positions since the last discard (repetition)
    result: Result | None
    _log: tuple[Any, ...] | None  # linked list (previous, seat, action) or (previous, -1, event)
    step: int  # number of actions applied: the game's own version
    severny_card: int  # Severny: the last face-down card of the talon, which set the new trumps (-1: not yet)
    recording: bool  # whether moves extend the log (the AI's sampled worlds keep none: nobody reads it)
    # Memos, not state: what `seen_events` and `core.serialize` worked out for some game of this line (a move's
    # copy inherits its parent's), so each extends it by the newest entries instead of reading the whole log.
    _seen_memo: _Seen | None
    _json_memo: tuple[Any, ...] | None  # (log node, actions text, events text)
    _history_memo: (
        tuple[Any, int, str] | None
    )  # (log node, step, `history()` there): each view of a step asks

    def __init__(
        self,
        *,
        settings: Settings,
        players: tuple[str, ...],
        seed: int | None,
        deck_order: tuple[int, ...],
        dealer: int,
        last_durak: int | None,
        hand_masks: tuple[int, ...],
        talon: tuple[int, ...],
        trump_card_id: int,
        deal_trump_card_id: int,
        severny_card: int = -1,
        discard: int = 0,
        attacks: tuple[int, ...] = (),
        covers: tuple[int, ...] = (),
        phase: Phase = Phase.ATTACK,
        attacker: int = 0,
        opener: int = 0,
        defender: int = 0,
        defender_limit: int = 0,
        bout_cap: int = MAX_ATTACKS,
        bout_number: int = 0,
        passed: int = 0,
        to_act: int | None = None,
        out: tuple[int, ...] = (),
        emptied: tuple[int, ...] = (),
        positions: frozenset[str] = frozenset(),
        result: Result | None = None,
        log: tuple[Any, ...] | None = None,
        step: int = 0,
        recording: bool = True,
    ) -> None:
        """The one way to build a game from its facts (a move copies one with ``clone`` instead). The
        defaults are a fresh deal's before its first bout starts; trumps and the table's ranks follow from
        the cards."""
        self.settings = settings
        self.players = players
        self.seed = seed
        self.deck_order = deck_order
        self.dealer = dealer
        self.last_durak = last_durak
        self.hand_masks = hand_masks
        self.talon = talon
        self.trump_index = trump_card_id & 3
        self.trump_card_id = trump_card_id
        self.deal_trump_card_id = deal_trump_card_id
        self.severny_card = severny_card
        self.discard = discard
        self.attacks = attacks
        self.covers = covers
        self.table_ranks = ranks_on_table(attacks, covers)
        self.phase = phase
        self.attacker = attacker
        self.opener = opener
        self.defender = defender
        self.defender_limit = defender_limit
        self.bout_cap = bout_cap
        self.bout_number = bout_number
        self.passed = passed
        self.to_act = to_act
        self.out = out
        self.emptied = emptied
        self.positions = positions
        self.result = result
        self._log = log
        self.step = step
        self.recording = recording
        self._seen_memo = None
        self._json_memo = None
        self._history_memo = None

    # ---- reading the state -------------------------------------------------------------------------

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def trump(self) -> str:
        """The trump suit's letter: S, H, D or C."""
        return SUITS[self.trump_index]

    @property
    def trump_card(self) -> Card:
        """The card that shows trumps: under the talon until drawn (after an exchange, the lowest trump)."""
        return CARDS[self.trump_card_id]

    @property
    def deal_trump_card(self) -> Card:
        """The card turned up at the deal (or the dealer's last card when the deal used the whole deck)."""
        return CARDS[self.deal_trump_card_id]

    @property
    def hands(self) -> list[list[Card]]:
        """Every seat's cards, each sorted for showing (plain by rank, trumps last)."""
        return [self.hand(seat) for seat in range(len(self.players))]

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def talon_size(self) -> int:
        return len(self.talon)

    @property
    def discard_size(self) -> int:
        return self.discard.bit_count()

    @property
    def trump_card_in_talon(self) -> bool:
        return bool(self.talon)

    def hand(self, seat: int) -> list[Card]:
        """A seat's cards sorted for showing: plain cards by rank, trumps last."""
        trump = self.trump_index
        return [CARDS[c] for c in sorted(bits(self.hand_masks[seat]), key=lambda c: sort_key(c, trump))]

    def hand_size(self, seat: int) -> int:
        return self.hand_masks[seat].bit_count()

    @property
    def table(self) -> list[tuple[Card, Card | None]]:
        """Attack cards with their cover (or None), in slot order."""
        return [
            (CARDS[a], CARDS[c] if c >= 0 else None) for a, c in zip(self.attacks, self.covers, strict=True)
        ]

    @property
    def log(self) -> list[tuple[int, str]]:
        """Every action so far as (seat, code), oldest first. All of it is public in Durak."""
        entries: list[tuple[int, str]] = []
        node = self._log
        while node is not None:
            node, seat, action = node
            if seat >= 0:
                entries.append((seat, action.code))
        entries.reverse()
        return entries

    def history(self, step: int | None = None) -> str:
        """Six hex digits that digest the actions up to ``step`` (default: all so far). Two games of one deal
        have the same history at a step only when the same actions led there, so a move button drawn at a
        step and stamped with it cannot be taken for a move of another course of the game (one a store that
        lost data has replaced, `bot.payloads`)."""
        now = step is None or step == self.step
        memo = self._history_memo
        if now and memo is not None and memo[0] is self._log and memo[1] == self.step:
            return memo[2]
        actions = self.log[: self.step if step is None else step]
        text = "|".join(f"{seat}:{code}" for seat, code in actions)
        digest = hashlib.blake2b(text.encode(), digest_size=HISTORY_BYTES).hexdigest()
        if now:
            self._history_memo = (self._log, self.step, digest)
        return digest

    def events(self, since: int = 0) -> list[tuple[int, Event]]:
        """Every event from step ``since`` on as (step, event), oldest first; an event's step is the number
        of actions applied before it (0: the deal's first bout). Every seat's draws show their cards here:
        players get `view` instead."""
        entries: list[tuple[int, Event]] = []
        step = self.step
        node = self._log
        while node is not None:
            node, seat, entry = node
            if seat >= 0:
                step -= 1
                if step < since:
                    break
            else:
                entries.append((step, entry))
        entries.reverse()
        return entries

    def seen_events(self, seat: int | None) -> tuple[tuple[int, Event], ...]:
        """`events` as ``seat`` may see them (None: a spectator): another seat's draw without its cards."""
        _, public, own = self._seen()
        if seat is None or not own[seat]:
            return public
        events = list(public)
        for index, entry in own[seat]:
            events[index] = entry
        return tuple(events)

    def _seen(self) -> _Seen:
        """The memo of `seen_events`, brought up to this game's last entry."""
        memo = self._seen_memo
        if memo is not None and memo[0] is self._log:
            return memo
        stop = memo[0] if memo is not None else None
        new: list[tuple[int, Event]] = []
        step = self.step
        node = self._log
        while node is not stop and node is not None:
            node, seat, entry = node
            if seat >= 0:
                step -= 1
            else:
                new.append((step, entry))
        if node is not stop:  # not a memo of this game's line after all: start again
            self._seen_memo = None
            return self._seen()
        public = list(memo[1]) if memo is not None else []
        own = [list(draws) for draws in memo[2]] if memo is not None else [[] for _ in self.players]
        for step, event in reversed(new):
            hidden = seen_by(event, None)
            if hidden is not event and isinstance(event, Drew):  # its cards: for the seat that drew them
                own[event.seat].append((len(public), (step, event)))
            public.append((step, hidden))
        memo = _Seen(self._log, tuple(public), tuple(tuple(draws) for draws in own))
        self._seen_memo = memo
        return memo

    def is_out(self, seat: int) -> bool:
        return seat in self.out

    def active_seats(self) -> list[int]:
        """Seats still in the game (not out), clockwise from seat 0."""
        return [s for s in range(len(self.players)) if s not in self.out]

    def next_active(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that is not out (``seat`` itself if it is the only one)."""
        return next_active(len(self.players), self.out, seat)

    def team_of(self, seat: int) -> int:
        """Team games: seats alternate, so partners are the seats of the same parity (rules.md §8.5)."""
        return seat % 2 if self.settings.teams else seat

    def next_opponent(self, seat: int) -> int:
        """The next active seat clockwise that is not ``seat``'s partner: the defender against ``seat``."""
        if not self.settings.teams:
            return self.next_active(seat)
        n = len(self.players)
        for step in range(1, n):
            candidate = (seat + step) % n
            if candidate not in self.out and candidate % 2 != seat % 2:
                return candidate
        return seat

    @property
    def attack_limit(self) -> int:
        """How many attack cards this bout may hold in all."""
        return min(self.bout_cap, self.defender_limit)

    def throwers(self) -> list[int]:
        """Who may throw in now, in priority order: the main attacker, then clockwise (rules.md §4.6, §4.7)."""
        return throwers(self.settings, len(self.players), self.out, self.attacker, self.defender)

    def throw_in_cards(self, seat: int) -> int:
        """Mask of the cards ``seat`` could throw in now, ignoring whose turn it is."""
        if len(self.attacks) >= self.attack_limit:
            return 0
        return self.hand_masks[seat] & self.table_ranks

    def next_thrower(self) -> int | None:
        """The first allowed thrower who has not passed and holds a legal card; None ends the bout."""
        if len(self.attacks) >= self.attack_limit:
            return None
        ranks = self.table_ranks
        for seat in throwers(self.settings, len(self.players), self.out, self.attacker, self.defender):
            if not self.passed >> seat & 1 and self.hand_masks[seat] & ranks:
                return seat
        return None

    def transfer_target(self) -> int:
        return self.next_active(self.defender)

    def can_transfer_now(self) -> bool:
        """Whether the bout still allows a transfer at all (mode, no cover yet, limits), card aside."""
        if not self.settings.transfer or self.phase is not Phase.DEFEND:
            return False
        if any(c >= 0 for c in self.covers):
            return False
        placed = len(self.attacks) + 1
        target = self.transfer_target()
        return target != self.defender and placed <= self.bout_cap and self.hand_size(target) >= placed

    def lowest_trump(self) -> int:
        """The deck's lowest trump: the 6 in a 36-card deck, the 9 in 24, the 2 in 52."""
        return min(self.deck_order) // 4 * 4 + self.trump_index

    def exchange_holder(self) -> int | None:
        """The seat that may exchange now (rules.md §8.1 to §8.3), or None."""
        mode = self.settings.exchange
        if mode == "off" or self.phase is Phase.OVER or not self.talon or self.severny_card >= 0:
            return None
        turned_up = self.talon[-1]
        lowest = self.lowest_trump()
        if turned_up == lowest or (mode == "ace" and turned_up >> 2 != 12):
            return None
        for seat, hand in enumerate(self.hand_masks):
            if hand >> lowest & 1:
                return seat
        return None

    # ---- legal actions -----------------------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (surrender aside); empty when it has nothing to do.

        >>> from core import Settings, new_game
        >>> game = new_game(Settings.from_words("deck=24"), ["Ann", "Bob"], seed=7)
        >>> game.legal_actions(0), len(game.legal_actions(1))  # Bob leads: any of his six cards
        ([], 6)
        """
        actions: list[Action] = []
        if seat == self.to_act:
            hand = self.hand_masks[seat]
            phase = self.phase
            if phase is Phase.ATTACK:
                actions = [ATTACKS[c] for c in bits(hand)]
            elif phase is Phase.DEFEND:
                beaters = BEATERS[self.trump_index]
                for slot, attack in enumerate(self.attacks):
                    if self.covers[slot] < 0:
                        row = COVERS[slot]
                        actions.extend(row[c] for c in bits(hand & beaters[attack]))
                actions.append(TAKE)
                if self.can_transfer_now():
                    actions.extend(TRANSFERS[c] for c in bits(hand & TABLE_RANKS[self.attacks[0]]))
            else:  # THROW_IN or TAKING
                actions = [ATTACKS[c] for c in bits(self.throw_in_cards(seat))]
                actions.append(PASS)
        if self.settings.exchange != "off" and self.exchange_holder() == seat:
            actions.append(EXCHANGE)
        return actions

    def why_illegal(self, seat: int, action: Action) -> str | None:
        """A reason in English why ``action`` is not allowed for ``seat`` now, or None if it is (the reason
        as a code and its cards, for words in any language: `core.reasons.why_illegal`)."""
        refusal = reasons.why_illegal(self, seat, action)
        return None if refusal is None else reasons.english(refusal, self.players)

    def check(self, seat: int, action: Action) -> None:
        """Raise `IllegalAction` with the reason when ``action`` is not allowed for ``seat``."""
        reason = self.why_illegal(seat, action)
        if reason is not None:
            raise IllegalAction(reason)

    def apply(self, seat: int, action: Action | str) -> Game:
        """The game after ``seat`` takes ``action``; this game is unchanged. Illegal: `IllegalAction`.

        >>> from core import Settings, new_game
        >>> game = new_game(Settings.from_words("deck=24"), ["Ann", "Bob"], seed=7)
        >>> game.apply(1, "a:QD").to_act, game.to_act
        (0, 1)
        >>> game.apply(0, "a:QD")
        Traceback (most recent call last):
        core.actions.IllegalAction: it is not your turn: waiting for Bob
        """
        if isinstance(action, str):
            action = Action.parse(action)
        refusal = reasons.why_illegal(self, seat, action)
        if refusal is not None:
            raise IllegalAction(reasons.english(refusal, self.players))
        return rules.apply_action(self, seat, action)

    # ---- copies, views, JSON -----------------------------------------------------------------------

    def clone(self) -> Game:
        """A shallow copy for `core.rules` to change (every field is immutable, so shallow is enough)."""
        return clone_game(self)

    def view(self, seat: int | None) -> View:
        """What ``seat`` may see (None: a spectator in the group). Renderers and AIs only get this.

        >>> from core import Settings, new_game
        >>> game = new_game(Settings.from_words("deck=24"), ["Ann", "Bob"], seed=7)
        >>> len(game.view(1).hand), game.view(None).hand  # a spectator holds no cards, sees none
        (6, ())
        """
        from core.view import build_view

        return build_view(self, seat)

    def to_json(self) -> str:
        from core.serialize import game_to_json

        return game_to_json(self)

    @staticmethod
    def from_json(text: str) -> Game:
        from core.serialize import game_from_json

        return game_from_json(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def __repr__(self) -> str:
        return f"<Game {len(self.players)}p step={self.step} phase={self.phase.value} to_act={self.to_act}>"


def next_active(n: int, out: Collection[int], seat: int) -> int:
    """Among ``n`` seats, the next one clockwise after ``seat`` not in ``out`` (``seat`` if none is)."""
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if candidate not in out:
            return candidate
    return seat


def throwers(settings: Settings, n: int, out: Collection[int], attacker: int, defender: int) -> list[int]:
    """Who may throw in at a table of ``n`` seats, in priority order: the main attacker, then clockwise
    (rules.md §4.6, §4.7). `Game.throwers` asks this, and so does the AI's reading of the log."""
    mode = settings.throw_in
    if mode == "auto":
        mode = "neighbours" if n - len(out) >= 5 else "all"
    teams = settings.teams
    side = defender % 2 if teams else defender
    if mode == "neighbours":
        left = next_active(n, out, defender)
        if left in (attacker, defender) or (left % 2 if teams else left) == side:
            return [attacker]
        return [attacker, left]
    order = [attacker]
    for step in range(1, n):
        seat = (attacker + step) % n
        if seat != defender and seat not in out and (seat % 2 if teams else seat) != side:
            order.append(seat)
    return order


def _make_clone() -> Callable[[Game], Game]:
    """Copying 30 slots by name in a loop costs more than the rest of a move; this writes it out once."""
    assignments = "".join(f"    new.{name} = game.{name}\n" for name in Game.__slots__)
    source = f"def _clone(game):\n    new = _new(Game)\n{assignments}    return new\n"
    namespace: dict[str, Any] = {"_new": object.__new__, "Game": Game}
    exec(source, namespace)  # noqa: S102 - generated from __slots__ only
    return cast(Callable[[Game], Game], namespace["_clone"])


clone_game = _make_clone()  # `core.rules` calls it directly: a move is made thousands of times a search

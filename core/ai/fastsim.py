"""A rollout simulator: the engine's rules on plain ints, changed in place, with none of the public API's checks.

Search plays tens of thousands of actions per decision. The engine copies a frozen `Game` for every action and
checks each against the rules first (`Game.apply`); a rollout needs neither: its actions come from the legal
list or from a policy that only picks legal ones, and nobody keeps the positions it passes through. `Sim` holds
the same facts as a `Game` (hands as card masks, the table as lists, the same `Action` objects) and changes
them in place; ``copy`` gives an independent one where a search must branch.

Every variant the engine plays is here: classic and transfer, 24/36/52 cards, throw-in by all, neighbours or
auto, first5, the trump exchange, teams, Severny and the repetition draw. `tests/ai/test_fastsim.py` checks
that it agrees with the engine action for action (legal actions and the resulting state) over random games of
every variant. It keeps no log and records no events: the engine stays the one source of a game's history.

Speed is the point of this module, so its hot paths are written for CPython: the seat order questions are
tables worked out once per table size, the commonest transitions (a cover, an attack) are handled first and
inline, and ``copy`` is generated from ``__slots__`` like the engine's own clone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, cast

from core.actions import ATTACKS, COVERS, EXCHANGE, PASS, TAKE, TRANSFERS, Action, Kind
from core.cards import BEATERS, TABLE_RANKS
from core.rules import position_digest
from core.settings import Settings, ThrowIn
from core.state import HAND_SIZE, MAX_ATTACKS, Game, Phase, throwers

Position = tuple[tuple[int, ...], tuple[int, ...], int, int, int]  # hands, talon, attacker, defender, trumps
ATTACK, DEFEND, THROW_IN, TAKING, OVER = Phase.ATTACK, Phase.DEFEND, Phase.THROW_IN, Phase.TAKING, Phase.OVER
_COVER, _ATTACK, _PASS, _TAKE, _TRANSFER, _EXCHANGE = (
    Kind.COVER, Kind.ATTACK, Kind.PASS, Kind.TAKE, Kind.TRANSFER, Kind.EXCHANGE,
)  # fmt: skip
_NO_DIGESTS: frozenset[str] = frozenset()


class Sim:
    """One game's state, changed in place by ``apply``; the names are the `Game`'s (``is_over`` and
    ``attack_limit`` are plain fields here), so the AI's policies (`Situation.from_game`, `normal_move`,
    `greedy_move`) read either."""

    __slots__ = (
        "settings", "n", "teams", "transfer", "first5", "severny", "exchange", "thrower_table", "draw_table",
        "next_seat", "next_rival", "lowest_trump_card", "hand_masks", "talon", "trump_index", "trump_card_id",
        "severny_card", "attacks", "covers", "table_ranks", "phase", "is_over", "attacker", "opener",
        "defender", "defender_limit", "bout_cap", "attack_limit", "bout_number", "passed", "to_act", "out",
        "out_mask", "emptied", "positions", "seen", "durak", "draw", "losers",
    )  # fmt: skip

    settings: Settings
    n: int
    teams: bool
    transfer: bool
    first5: bool
    severny: bool
    exchange: str  # "" when off, else the exchange option
    # `throwers` by (out seats, attacker, defender), and `_draw_order` by (out seats, opener, defender):
    # memos shared by every simulator of the same table shape
    thrower_table: dict[int, tuple[int, ...]]
    draw_table: dict[int, tuple[int, ...]]
    next_seat: tuple[int, ...]  # `next_active` by (out seats, seat): see `_seat_tables`
    next_rival: tuple[int, ...]  # `next_opponent` by (out seats, seat)
    lowest_trump_card: int  # the lowest rank's card id of the first suit: add the trump suit
    hand_masks: list[int]
    talon: tuple[int, ...]
    trump_index: int
    trump_card_id: int
    severny_card: int
    attacks: list[int]
    covers: list[int]
    table_ranks: int
    phase: Phase
    is_over: bool  # phase is OVER
    attacker: int
    opener: int
    defender: int
    defender_limit: int
    bout_cap: int
    attack_limit: int  # cards the bout may hold: the smaller of the cap and the defender's starting hand
    bout_number: int
    passed: int
    to_act: int
    out: tuple[int, ...]
    out_mask: int
    emptied: tuple[int, ...]
    positions: frozenset[str]  # the engine's digests of the bout starts before the simulator took over
    seen: tuple[Position, ...]  # bout starts since then, as plain tuples (no hashing of text)
    durak: int  # -1: none (yet, or a draw)
    draw: bool
    losers: int  # mask of the losing seats

    @staticmethod
    def from_game(game: Game) -> Sim:
        """The simulator at ``game``'s position (its repetition record included)."""
        sim = object.__new__(Sim)
        settings = game.settings
        sim.settings = settings
        sim.n = n = len(game.players)
        sim.teams = settings.teams
        sim.transfer = settings.transfer
        sim.first5 = settings.first5
        sim.severny = settings.severny
        sim.exchange = "" if settings.exchange == "off" else settings.exchange
        sim.thrower_table = _thrower_table(settings.throw_in, settings.teams, n)
        sim.draw_table = _draw_table(n)
        sim.next_seat, sim.next_rival = _seat_tables(n, settings.teams)
        sim.lowest_trump_card = min(game.deck_order) // 4 * 4
        sim.hand_masks = list(game.hand_masks)
        sim.talon = game.talon
        sim.trump_index = game.trump_index
        sim.trump_card_id = game.trump_card_id
        sim.severny_card = game.severny_card
        sim.attacks = list(game.attacks)
        sim.covers = list(game.covers)
        sim.table_ranks = game.table_ranks
        sim.phase = game.phase
        sim.is_over = game.phase is OVER
        sim.attacker = game.attacker
        sim.opener = game.opener
        sim.defender = game.defender
        sim.defender_limit = game.defender_limit
        sim.bout_cap = game.bout_cap
        sim.attack_limit = game.attack_limit
        sim.bout_number = game.bout_number
        sim.passed = game.passed
        sim.to_act = -1 if game.to_act is None else game.to_act
        sim.out = game.out
        sim.out_mask = sum(1 << s for s in game.out)
        sim.emptied = game.emptied
        sim.positions = game.positions
        sim.seen = ()
        result = game.result
        sim.durak = -1 if result is None or result.durak is None else result.durak
        sim.draw = result is not None and result.draw
        sim.losers = sum(1 << s for s in result.losers) if result is not None else 0
        return sim

    def copy(self) -> Sim:
        """An independent copy (the lists are copied; every other field is immutable)."""
        return _copy_sim(self)

    # ---- questions, as `Game` answers them -----------------------------------------------------------

    def team_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat

    def next_active(self, seat: int) -> int:
        return self.next_seat[self.out_mask << 3 | seat]

    def next_opponent(self, seat: int) -> int:
        return self.next_rival[self.out_mask << 3 | seat]

    def throw_in_cards(self, seat: int) -> int:
        if len(self.attacks) >= self.attack_limit:
            return 0
        return self.hand_masks[seat] & self.table_ranks

    def next_thrower(self) -> int:
        """The first allowed thrower who has not passed and holds a legal card; -1 ends the bout."""
        if len(self.attacks) >= self.attack_limit:
            return -1
        key = self.out_mask << 8 | self.attacker << 4 | self.defender
        order = self.thrower_table.get(key)
        if order is None:
            order = self.thrower_table[key] = _throwers(
                self.settings, self.n, self.out_mask, self.attacker, self.defender
            )
        ranks = self.table_ranks
        hands = self.hand_masks
        passed = self.passed
        for seat in order:
            if hands[seat] & ranks and not passed >> seat & 1:
                return seat
        return -1

    def can_transfer_now(self) -> bool:
        if not self.transfer or self.phase is not DEFEND:
            return False
        if max(self.covers) >= 0:  # a card is covered already
            return False
        placed = len(self.attacks) + 1
        target = self.next_seat[self.out_mask << 3 | self.defender]
        return (
            target != self.defender
            and placed <= self.bout_cap
            and self.hand_masks[target].bit_count() >= placed
        )

    def exchange_holder(self) -> int:
        """The seat that may exchange now, or -1 (rules.md §8.1 to §8.3)."""
        mode = self.exchange
        if not mode or self.phase is OVER or not self.talon or self.severny_card >= 0:
            return -1
        turned_up = self.talon[-1]
        lowest = self.lowest_trump_card + self.trump_index
        if turned_up == lowest or (mode == "ace" and turned_up >> 2 != 12):
            return -1
        for seat, hand in enumerate(self.hand_masks):
            if hand >> lowest & 1:
                return seat
        return -1

    def legal_actions(self, seat: int) -> list[Action]:
        """What `Game.legal_actions` lists for ``seat``, in the same order."""
        if seat != self.to_act:
            return [EXCHANGE] if self.exchange and self.exchange_holder() == seat else []
        hand = self.hand_masks[seat]
        phase = self.phase
        if phase is ATTACK:
            actions = _attacks(hand)
        elif phase is DEFEND:
            actions = []
            append = actions.append
            beaters = BEATERS[self.trump_index]
            covers = self.covers
            for slot, attack in enumerate(self.attacks):
                if covers[slot] < 0:
                    row = COVERS[slot]
                    mask = hand & beaters[attack]
                    while mask:
                        low = mask & -mask
                        append(row[low.bit_length() - 1])
                        mask ^= low
            append(TAKE)
            if self.transfer and self.can_transfer_now():
                mask = hand & TABLE_RANKS[self.attacks[0]]
                while mask:
                    low = mask & -mask
                    append(TRANSFERS[low.bit_length() - 1])
                    mask ^= low
        else:
            actions = _attacks(hand & self.table_ranks) if len(self.attacks) < self.attack_limit else []
            actions.append(PASS)
        if self.exchange and self.exchange_holder() == seat:
            actions.append(EXCHANGE)
        return actions

    def position_digests(self) -> frozenset[str]:
        """The bout starts since the last discard as the engine records them (`Game.positions`)."""
        return self.positions | {position_digest(*key) for key in self.seen}

    def score(self, seat: int, draw: float) -> float:
        """0.0 when ``seat`` lost (alone or with its team), ``draw`` when nobody did or the game goes on,
        else 1.0."""
        if self.losers >> seat & 1:
            return 0.0
        return 1.0 if self.durak >= 0 else draw

    # ---- the transitions of `core.rules`, in place ---------------------------------------------------

    def apply(self, seat: int, action: Action) -> None:
        """Play a legal ``action`` of ``seat`` (nothing is checked). The commonest actions come first and are
        worked out inline: a rollout is little else."""
        kind = action.kind
        hands = self.hand_masks
        if kind is _COVER:
            card = action.card_id
            hand = hands[seat] & ~(1 << card)
            hands[seat] = hand
            covers = self.covers
            covers[action.slot] = card
            self.table_ranks |= TABLE_RANKS[card]
            if not hand:
                self._emptied(seat)
            if -1 not in covers:  # else the defender goes on covering
                self._all_covered()
            return
        if kind is _ATTACK:
            card = action.card_id
            hand = hands[seat] & ~(1 << card)
            hands[seat] = hand
            self.attacks.append(card)
            self.covers.append(-1)
            self.table_ranks |= TABLE_RANKS[card]
            self.passed = 0
            if not hand:
                self._emptied(seat)
            if self.phase is TAKING:
                self._next_to_add()
            else:
                self.phase = DEFEND
                self.to_act = self.defender
            return
        if kind is _PASS:
            self.passed |= 1 << seat
            if self.phase is TAKING:
                self._next_to_add()
            else:  # everything is covered while others throw in
                self._all_covered()
        elif kind is _TAKE:
            self.phase = TAKING
            self.passed = 0
            self._next_to_add()
        elif kind is _TRANSFER:
            target = self.next_seat[self.out_mask << 3 | self.defender]
            card = action.card_id
            hands[seat] &= ~(1 << card)
            if not hands[seat]:
                self._emptied(seat)
            self.attacks.append(card)
            self.covers.append(-1)
            self.attacker = seat
            self.defender = target
            self.defender_limit = hands[target].bit_count()
            self.attack_limit = min(self.bout_cap, self.defender_limit)
            self.passed = 0
            self.to_act = target  # the new defender faces every card on the table
        elif kind is _EXCHANGE:
            lowest = self.lowest_trump_card + self.trump_index
            turned_up = self.talon[-1]
            hands[seat] = hands[seat] & ~(1 << lowest) | (1 << turned_up)
            self.talon = (*self.talon[:-1], lowest)
            self.trump_card_id = lowest
            # who may throw in next depends on the hands: ask again
            if self.phase is TAKING:
                self._next_to_add()
            elif self.phase is THROW_IN:
                self._all_covered()
        else:
            raise ValueError(f"{action} is not played in simulations")

    def _emptied(self, seat: int) -> None:
        """A hand just emptied: out at once with the talon empty, else noted for the bout's end."""
        if self.talon:
            self.emptied = (*self.emptied, seat)
        else:
            self.out = (*self.out, seat)
            self.out_mask |= 1 << seat

    def _next_to_add(self) -> None:
        """The defender takes: the next thrower adds a card, or the bout ends."""
        thrower = self.next_thrower()
        if thrower < 0:
            self._end_bout(True)
        else:
            self.to_act = thrower

    def _all_covered(self) -> None:
        """Every card on the table is covered: the next thrower throws in, or the bout ends."""
        if not self.hand_masks[self.defender]:
            self._end_bout(False)
            return
        thrower = self.next_thrower()
        if thrower < 0:
            self._end_bout(False)
        else:
            self.phase = THROW_IN
            self.to_act = thrower

    def _end_bout(self, taken: bool) -> None:
        defender = self.defender
        hands = self.hand_masks
        if taken:
            table = 0
            for card in self.attacks + self.covers:
                table |= _CARD_BIT[card]
            hands[defender] |= table
        else:
            self.positions = _NO_DIGESTS
            self.seen = ()
        self.attacks = []
        self.covers = []
        self.table_ranks = 0
        self.passed = 0
        if self.talon:
            self._refill()
        if self.talon:
            self.emptied = ()
        else:
            emptied = self.emptied
            if emptied:
                for seat in emptied:
                    if not hands[seat] and not self.out_mask >> seat & 1:
                        self.out = (*self.out, seat)
                        self.out_mask |= 1 << seat
                self.emptied = ()
            if self._decide_result():
                return
        if taken or self.out_mask >> defender & 1:
            self._start_bout(self.next_seat[self.out_mask << 3 | defender])
        else:
            self._start_bout(defender)

    def _decide_result(self) -> bool:
        """With the talon empty: the last side holding cards loses, the partner with the most cards named
        durak (rules.md §7.5); nobody holding cards is a draw."""
        n = self.n
        active = ((1 << n) - 1) & ~self.out_mask
        if not self.teams:
            if active & (active - 1):  # two or more players hold cards
                return False
            if active:
                self._finish(active.bit_length() - 1, active)
            else:
                self._finish(-1, 0)
            return True
        if not active:
            self._finish(-1, 0)
            return True
        even = active & _EVEN_SEATS
        if even and active & ~_EVEN_SEATS:
            return False
        losers = ((1 << n) - 1) & (_EVEN_SEATS if even else ~_EVEN_SEATS)
        seats = [s for s in range(n) if active >> s & 1]
        durak = max(seats, key=lambda s: self.hand_masks[s].bit_count())
        self._finish(durak, losers)
        return True

    def _refill(self) -> None:
        """Everyone draws up to six from the talon in `_draw_order`."""
        talon = self.talon
        hands = self.hand_masks
        last_hidden = talon[-2] if self.severny and self.severny_card < 0 and len(talon) >= 2 else -1
        key = self.out_mask << 6 | self.opener << 3 | self.defender
        order = self.draw_table.get(key)
        if order is None:
            order = self.draw_table[key] = _draw_order(self.n, self.out_mask, self.opener, self.defender)
        for seat in order:
            hand = hands[seat]
            missing = HAND_SIZE - hand.bit_count()
            if missing <= 0:
                continue
            drawn, talon = talon[:missing], talon[missing:]
            for card in drawn:
                hand |= 1 << card
            hands[seat] = hand
            if last_hidden >= 0 and last_hidden in drawn:
                self.severny_card = last_hidden
                self.trump_index = last_hidden & 3
                self.trump_card_id = last_hidden
            if not talon:
                break
        self.talon = talon

    def _start_bout(self, attacker: int) -> None:
        self.attacker = attacker
        self.opener = attacker
        defender = self.next_rival[self.out_mask << 3 | attacker]
        self.defender = defender
        hands = tuple(self.hand_masks)
        self.defender_limit = limit = hands[defender].bit_count()
        self.bout_number += 1
        cap = 5 if self.first5 and self.bout_number == 1 else MAX_ATTACKS
        self.bout_cap = cap
        self.attack_limit = cap if cap < limit else limit  # `min` is a call, this is not
        self.phase = ATTACK
        self.to_act = attacker
        position: Position = (hands, self.talon, attacker, defender, self.trump_index)
        if position in self.seen or (
            self.positions
            and position_digest(hands, self.talon, attacker, defender, self.trump_index) in self.positions
        ):
            self._finish(-1, 0)
            return
        self.seen = (*self.seen, position)

    def _finish(self, durak: int, losers: int) -> None:
        self.durak = durak
        self.draw = durak < 0
        self.losers = losers
        self.phase = OVER
        self.is_over = True
        self.to_act = -1


_EVEN_SEATS = 0b010101  # team games: seats 0, 2 and 4 are partners
_CARD_BIT = (*(1 << card for card in range(52)), 0)  # a card's bit; index -1 (an empty cover) gives 0
# the attack actions of the cards in a byte of a mask, for each of the seven bytes of a 52-card mask
_ATTACK_BYTES = tuple(
    tuple(
        tuple(ATTACKS[8 * k + b] for b in range(8) if part >> b & 1 and 8 * k + b < 52) for part in range(256)
    )
    for k in range(7)
)
_A0, _A1, _A2, _A3, _A4, _A5, _A6 = _ATTACK_BYTES


def _attacks(mask: int) -> list[Action]:
    """The attack actions of the cards in ``mask``, lowest card first: a byte at a time, as the bit loop is
    three times slower on a full hand."""
    return [
        *_A0[mask & 255], *_A1[mask >> 8 & 255], *_A2[mask >> 16 & 255], *_A3[mask >> 24 & 255],
        *_A4[mask >> 32 & 255], *_A5[mask >> 40 & 255], *_A6[mask >> 48],
    ]  # fmt: skip


def _throwers(settings: Settings, n: int, out_mask: int, attacker: int, defender: int) -> tuple[int, ...]:
    """`core.state.throwers`, the engine's own rule."""
    out = [s for s in range(n) if out_mask >> s & 1]
    return tuple(throwers(settings, n, out, attacker, defender))


@cache
def _thrower_table(mode: ThrowIn, teams: bool, n: int) -> dict[int, tuple[int, ...]]:
    """The memo of `_throwers` for one shape of table (it depends on the settings only through these)."""
    return {}


def _draw_order(n: int, out_mask: int, opener: int, defender: int) -> tuple[int, ...]:
    """Who draws from the talon after a bout, in order (rules.md, "Refill"): from the bout's opener on,
    clockwise, then the defender."""
    later = [(opener + step) % n for step in range(n)]
    return (*(s for s in later if s != defender and not out_mask >> s & 1), defender)


@cache
def _draw_table(n: int) -> dict[int, tuple[int, ...]]:
    """The memo of `_draw_order` for a table of ``n``."""
    return {}


@cache
def _seat_tables(n: int, teams: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """`next_active` and `next_opponent` for every (out seats, seat) at a table of ``n``, indexed by
    ``out_mask << 3 | seat``: the next seat clockwise still holding cards (``seat`` itself when there is
    none), and the next such seat of the other team in a team game."""
    size = (1 << n) << 3
    active = [0] * size
    rival = [0] * size
    for out_mask in range(1 << n):
        for seat in range(n):
            later = [(seat + step) % n for step in range(1, n + 1)]
            playing = [s for s in later if not out_mask >> s & 1]
            active[out_mask << 3 | seat] = playing[0] if playing else seat
            others = [s for s in playing if s != seat and (not teams or s % 2 != seat % 2)]
            rival[out_mask << 3 | seat] = others[0] if others else seat
    next_seat = tuple(active)
    return next_seat, tuple(rival) if teams else next_seat


def _make_copy() -> Callable[[Sim], Sim]:
    """Copying the slots by name in a loop costs more than a move; this writes the copy out once."""
    lines = "".join(
        f"    new.{name} = sim.{name}[:]\n"
        if name in ("hand_masks", "attacks", "covers")
        else f"    new.{name} = sim.{name}\n"
        for name in Sim.__slots__
    )
    source = f"def _copy(sim):\n    new = _new(Sim)\n{lines}    return new\n"
    namespace: dict[str, Any] = {"_new": object.__new__, "Sim": Sim}
    exec(source, namespace)  # noqa: S102 - generated from __slots__ only
    return cast(Callable[[Sim], Sim], namespace["_copy"])


_copy_sim = _make_copy()

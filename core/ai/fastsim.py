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
"""

from __future__ import annotations

from functools import cache

from core.actions import ATTACKS, COVERS, EXCHANGE, PASS, TAKE, TRANSFERS, Action, Kind
from core.cards import BEATERS, TABLE_RANKS, bits
from core.rules import position_digest
from core.settings import Settings, ThrowIn
from core.state import HAND_SIZE, MAX_ATTACKS, Game, Phase, throwers

Position = tuple[tuple[int, ...], tuple[int, ...], int, int, int]  # hands, talon, attacker, defender, trumps
ATTACK, DEFEND, THROW_IN, TAKING, OVER = Phase.ATTACK, Phase.DEFEND, Phase.THROW_IN, Phase.TAKING, Phase.OVER


class Sim:
    """One game's state, changed in place by ``apply``; the names are the `Game`'s, so the AI's policies
    (`Situation.from_game`, `greedy_move`) read either."""

    __slots__ = (
        "settings", "n", "teams", "transfer", "first5", "severny", "exchange", "thrower_table", "lowest_trump_card", "hand_masks", "talon", "trump_index",
        "trump_card_id", "severny_card", "attacks", "covers", "table_ranks", "phase", "attacker", "opener",
        "defender", "defender_limit", "bout_cap", "limit", "bout_number", "passed", "to_act", "out", "out_mask",
        "emptied", "positions", "seen", "durak", "draw", "losers",
    )  # fmt: skip

    settings: Settings
    n: int
    teams: bool
    transfer: bool
    first5: bool
    severny: bool
    exchange: str  # "" when off, else the exchange option
    thrower_table: dict[
        int, tuple[int, ...]
    ]  # `throwers` by (out seats, attacker, defender), shared by copies
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
    attacker: int
    opener: int
    defender: int
    defender_limit: int
    bout_cap: int
    limit: int  # attack cards the bout may hold: the smaller of the cap and the defender's hand at the start
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
        sim.settings = game.settings
        sim.n = len(game.players)
        sim.teams = game.settings.teams
        sim.transfer = game.settings.transfer
        sim.first5 = game.settings.first5
        sim.severny = game.settings.severny
        sim.exchange = "" if game.settings.exchange == "off" else game.settings.exchange
        sim.thrower_table = _thrower_table(game.settings.throw_in, game.settings.teams, sim.n)
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
        sim.attacker = game.attacker
        sim.opener = game.opener
        sim.defender = game.defender
        sim.defender_limit = game.defender_limit
        sim.bout_cap = game.bout_cap
        sim.limit = game.attack_limit
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
        new = object.__new__(Sim)
        for name in _SCALARS:
            setattr(new, name, getattr(self, name))
        new.hand_masks = self.hand_masks[:]
        new.attacks = self.attacks[:]
        new.covers = self.covers[:]
        return new

    # ---- questions, as `Game` answers them -----------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    @property
    def attack_limit(self) -> int:
        return self.limit

    def team_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat

    def next_active(self, seat: int) -> int:
        n = self.n
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if not self.out_mask >> candidate & 1:
                return candidate
        return seat

    def next_opponent(self, seat: int) -> int:
        if not self.teams:
            return self.next_active(seat)
        n = self.n
        for step in range(1, n):
            candidate = (seat + step) % n
            if not self.out_mask >> candidate & 1 and candidate % 2 != seat % 2:
                return candidate
        return seat

    def throw_in_cards(self, seat: int) -> int:
        if len(self.attacks) >= self.limit:
            return 0
        return self.hand_masks[seat] & self.table_ranks

    def next_thrower(self) -> int:
        """The first allowed thrower who has not passed and holds a legal card; -1 ends the bout."""
        if len(self.attacks) >= self.limit:
            return -1
        ranks = self.table_ranks
        hands = self.hand_masks
        passed = self.passed
        key = self.out_mask << 8 | self.attacker << 4 | self.defender
        order = self.thrower_table.get(key)
        if order is None:
            order = self.thrower_table[key] = _throwers(
                self.settings, self.n, self.out_mask, self.attacker, self.defender
            )
        for seat in order:
            if not passed >> seat & 1 and hands[seat] & ranks:
                return seat
        return -1

    def can_transfer_now(self) -> bool:
        if not self.transfer or self.phase is not DEFEND:
            return False
        if max(self.covers) >= 0:  # a card is covered already
            return False
        placed = len(self.attacks) + 1
        target = self.next_active(self.defender)
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
        actions: list[Action] = []
        append = actions.append
        if seat == self.to_act:
            hand = self.hand_masks[seat]
            phase = self.phase
            if phase is ATTACK:
                while hand:
                    low = hand & -hand
                    append(ATTACKS[low.bit_length() - 1])
                    hand ^= low
            elif phase is DEFEND:
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
                    actions.extend(TRANSFERS[c] for c in bits(hand & TABLE_RANKS[self.attacks[0]]))
            else:
                if len(self.attacks) < self.limit:
                    mask = hand & self.table_ranks
                    while mask:
                        low = mask & -mask
                        append(ATTACKS[low.bit_length() - 1])
                        mask ^= low
                append(PASS)
        if self.exchange and self.exchange_holder() == seat:
            append(EXCHANGE)
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
        """Play a legal ``action`` of ``seat`` (nothing is checked)."""
        kind = action.kind
        hands = self.hand_masks
        if kind is Kind.COVER:  # the two commonest actions first
            card = action.card_id
            hands[seat] &= ~(1 << card)
            if not hands[seat]:
                self._emptied(seat)
            self.covers[action.slot] = card
            self.table_ranks |= TABLE_RANKS[card]
            self._advance()  # a cover never ends the game by itself: the bout goes on or ends
            return
        if kind is Kind.ATTACK:
            card = action.card_id
            hands[seat] &= ~(1 << card)
            if not hands[seat]:
                self._emptied(seat)
            self.attacks.append(card)
            self.covers.append(-1)
            self.table_ranks |= TABLE_RANKS[card]
            self.passed = 0
            if self.phase is TAKING:
                thrower = self.next_thrower()
                if thrower < 0:
                    self._end_bout(True)
                else:
                    self.to_act = thrower
            else:
                self.phase = DEFEND
                self.to_act = self.defender
            return
        elif kind is Kind.PASS:
            self.passed |= 1 << seat
        elif kind is Kind.TAKE:
            self.phase = TAKING
            self.passed = 0
        elif kind is Kind.TRANSFER:
            target = self.next_active(self.defender)
            card = action.card_id
            hands[seat] &= ~(1 << card)
            if not hands[seat]:
                self._emptied(seat)
            self.attacks.append(card)
            self.covers.append(-1)
            self.attacker = seat
            self.defender = target
            self.defender_limit = self.hand_masks[target].bit_count()
            self.limit = min(self.bout_cap, self.defender_limit)
            self.passed = 0
        elif kind is Kind.EXCHANGE:
            lowest = self.lowest_trump_card + self.trump_index
            turned_up = self.talon[-1]
            hands[seat] = hands[seat] & ~(1 << lowest) | (1 << turned_up)
            self.talon = (*self.talon[:-1], lowest)
            self.trump_card_id = lowest
            if self.phase is not THROW_IN and self.phase is not TAKING:
                return
        else:
            raise ValueError(f"{action} is not played in simulations")
        if self.phase is not OVER:
            self._advance()

    def _emptied(self, seat: int) -> None:
        """A hand just emptied: out at once with the talon empty, else noted for the bout's end."""
        if self.talon:
            self.emptied = (*self.emptied, seat)
        else:
            self.out = (*self.out, seat)
            self.out_mask |= 1 << seat

    def _advance(self) -> None:
        if self.phase is TAKING:
            thrower = self.next_thrower()
            if thrower < 0:
                self._end_bout(True)
            else:
                self.to_act = thrower
            return
        if -1 in self.covers:
            self.phase = DEFEND
            self.to_act = self.defender
            return
        if not self.hand_masks[self.defender] or len(self.attacks) >= self.limit:
            self._end_bout(False)
            return
        thrower = self.next_thrower()
        if thrower < 0:
            self._end_bout(False)
        else:
            self.phase = THROW_IN
            self.to_act = thrower

    def _end_bout(self, taken: bool) -> None:
        table = 0
        for card in self.attacks:
            table |= 1 << card
        for card in self.covers:
            if card >= 0:
                table |= 1 << card
        defender = self.defender
        if taken:
            self.hand_masks[defender] |= table
        else:
            self.positions = frozenset()
            self.seen = ()
        self.attacks = []
        self.covers = []
        self.table_ranks = 0
        self.passed = 0
        if self.talon:
            self._refill()
        if not self.talon:
            if self.emptied:
                for seat in self.emptied:
                    if not self.hand_masks[seat] and not self.out_mask >> seat & 1:
                        self.out = (*self.out, seat)
                        self.out_mask |= 1 << seat
            self.emptied = ()
            if self._decide_result():
                return
        else:
            self.emptied = ()
        out = self.out_mask >> defender & 1
        attacker = self.next_active(defender) if taken or out else defender
        self._start_bout(attacker)

    def _decide_result(self) -> bool:
        """With the talon empty: the last side holding cards loses, the partner with the most cards named
        durak (rules.md §7.5); nobody holding cards is a draw."""
        n = self.n
        active = ((1 << n) - 1) & ~self.out_mask
        if not active:
            self._finish(-1, 0)
            return True
        if self.teams:
            even = active & _EVEN_SEATS
            if even and active & ~_EVEN_SEATS:
                return False
            losers = ((1 << n) - 1) & (_EVEN_SEATS if even else ~_EVEN_SEATS)
        elif active & (active - 1):  # two or more players hold cards
            return False
        else:
            losers = active
        seats = [s for s in range(n) if active >> s & 1]
        durak = max(seats, key=lambda s: self.hand_masks[s].bit_count())
        self._finish(durak, losers)
        return True

    def _refill(self) -> None:
        n = self.n
        defender = self.defender
        talon = self.talon
        severny = self.severny and self.severny_card < 0 and len(talon) >= 2
        last_hidden = talon[-2] if severny else -1
        hands = self.hand_masks
        for step in range(n + 1):
            seat = defender if step == n else (self.opener + step) % n
            if step < n and (seat == defender or self.out_mask >> seat & 1):
                continue
            missing = HAND_SIZE - hands[seat].bit_count()
            if missing <= 0 or not talon:
                continue
            drawn, talon = talon[:missing], talon[missing:]
            for card in drawn:
                hands[seat] |= 1 << card
            if last_hidden >= 0 and last_hidden in drawn:
                self.severny_card = last_hidden
                self.trump_index = last_hidden & 3
                self.trump_card_id = last_hidden
        self.talon = talon

    def _start_bout(self, attacker: int) -> None:
        self.attacker = attacker
        self.opener = attacker
        defender = self.next_opponent(attacker)
        self.defender = defender
        self.defender_limit = self.hand_masks[defender].bit_count()
        self.bout_number += 1
        self.bout_cap = 5 if self.first5 and self.bout_number == 1 else MAX_ATTACKS
        self.limit = min(self.bout_cap, self.defender_limit)
        self.phase = ATTACK
        self.to_act = attacker
        hands = tuple(self.hand_masks)
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
        self.to_act = -1


_EVEN_SEATS = 0b010101  # team games: seats 0, 2 and 4 are partners
_SCALARS = tuple(name for name in Sim.__slots__ if name not in ("hand_masks", "attacks", "covers"))


def _throwers(settings: Settings, n: int, out_mask: int, attacker: int, defender: int) -> tuple[int, ...]:
    """`core.state.throwers`, the engine's own rule."""
    out = [s for s in range(n) if out_mask >> s & 1]
    return tuple(throwers(settings, n, out, attacker, defender))


@cache
def _thrower_table(mode: ThrowIn, teams: bool, n: int) -> dict[int, tuple[int, ...]]:
    """The memo of `_throwers` for one shape of table (it depends on the settings only through these)."""
    return {}

"""Public knowledge of one seat, rebuilt from its `View` and the public log alone.

Durak's history is public: every card played, covered, transferred, taken or discarded was seen by all. We
replay the log with only public facts (hand sizes, the table, refills by the rules' order) and collect:

- ``discard``: every card beaten off, out of the game;
- ``known[s]``: cards certainly in seat ``s``'s hand (cards it picked up, the turned-up trump it drew or, when
  the whole deck is dealt, kept as the dealer, the trump it took by an exchange), minus those it played since;
- ``lacks[s]`` (certain): cards ``s`` cannot hold, because the rules skipped it as a thrower while those
  ranks were on the table (a seat with no legal card is never asked);
- ``doubts[s]`` (a belief, not a certainty): after a failed cover (``s`` took a single uncovered card) it is
  believed to hold no higher card of that suit, and with the talon empty no trump either; a player may take
  while able to beat, so sampling drops these beliefs when they cannot be met.
- ``not_greedy`` (certain): seats whose moves the greedy baseline would never make (see `core.ai.baselines`):
  a transfer, a trump thrown in, a take or pass while holding a known card that covers or throws in, a card
  played while a known card was greedy's lower choice, or no order in which its cards could have come from
  the deck that fits greedy's choices (see `_Tells`).
- ``not_normal`` (certain): seats that made a move the normal rules never make (`normal.never_covers_with`).
  Search plays a seat shown not normal but not shown not greedy as greedy plays.

Both kinds of absence are forgotten when ``s`` draws from the talon. The log does not mark where a bout ends;
an attack code is a throw-in or a new bout's opening card, and the next entry tells which (see `_is_throw_in`).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from itertools import islice

from core.ai.baselines import greedy_before
from core.ai.normal import never_covers_with
from core.cards import BEATERS, SUIT_MASK, SUITS, bits, deck_ids, mask_of, ranks_on_table
from core.deal import new_game
from core.settings import Settings
from core.state import HAND_SIZE, MAX_ATTACKS, Game, Phase
from core.view import View

_ATTACK, _COVER, _TAKE, _PASS, _TRANSFER, _EXCHANGE, _SURRENDER = "actpxes"


@dataclass
class Knowledge:
    """What ``seat`` knows about where every card is; see the module docstring."""

    seat: int
    n: int
    settings: Settings
    trump: int
    deck: int  # mask of every card in this deck
    hand: int  # the viewer's own hand
    discard: int = 0
    table: int = 0  # attack and cover cards on the table now
    bottom: int = -1  # the card under the talon (shown), or the last one it was before being drawn
    bottom_holder: int | None = None  # who drew the turned-up trump, once drawn
    known: list[int] = field(default_factory=list)
    lacks: list[int] = field(default_factory=list)
    doubts: list[int] = field(default_factory=list)
    hand_sizes: list[int] = field(default_factory=list)
    talon_size: int = 0
    opener: int = 0
    defender_limit: int = 0
    emptied: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    not_greedy: int = 0  # mask of seats
    not_normal: int = 0  # mask of seats
    template: Game | None = None  # a dealt game of these settings, reused by `determinize`

    @property
    def unseen(self) -> int:
        """Cards whose place this seat does not know: some opponent's hidden cards or the hidden talon."""
        placed = self.discard | self.table | self.hand
        for s in range(self.n):
            placed |= self.known[s]
        if self.talon_size:
            placed |= 1 << self.bottom
        return self.deck & ~placed

    def hidden_count(self, seat: int) -> int:
        """How many of ``seat``'s cards this viewer cannot name."""
        return self.hand_sizes[seat] - self.known[seat].bit_count()


def read_knowledge(view: View, log: list[tuple[int, str]]) -> Knowledge:
    """Replay the public log for ``view.seat`` and return what it knows now."""
    if view.seat is None:
        raise ValueError("a spectator has no hand to play; give the view of a seat")
    return _Replay(view, log).run()


class _Replay:
    """The public replay: a tiny Durak table that moves card counts, not hidden cards."""

    def __init__(self, view: View, log: list[tuple[int, str]]) -> None:
        settings = Settings.from_words(view.settings_words)
        n = len(view.players)
        self.view = view
        self.log = [(seat, code) for seat, code in log if code[0] != _SURRENDER]
        self.k = Knowledge(
            seat=view.seat or 0,
            n=n,
            settings=settings,
            trump=SUITS.index(view.trump),
            deck=mask_of(deck_ids(settings.deck)),
            hand=mask_of(c.id for c in view.hand),
            bottom=view.deal_trump_card.id,
            known=[0] * n,
            lacks=[0] * n,
            doubts=[0] * n,
            hand_sizes=[HAND_SIZE] * n,
            talon_size=settings.deck - HAND_SIZE * n,
            opener=view.attacker,
            defender_limit=view.hand_sizes[view.defender],
        )
        if not self.k.talon_size:  # the whole deck is dealt: the dealer keeps the card that showed trumps
            self.k.known[view.dealer] |= 1 << self.k.bottom
            self.k.bottom_holder = view.dealer
        # a scratch game answers the seating questions (next opponent, throwers) exactly as the engine does
        self.seating = new_game(settings, view.players, seed=0)
        self.severny_card = view.severny_card.id if view.severny_card is not None else -1
        self.attacks: list[int] = []
        self.covers: list[int] = []
        self.attacker = self.defender = -1
        self.passed = 0
        self.bout_number = 0
        self.taking = False
        self.tells = [_Tells() for _ in range(n)]
        self.ever_played = 0  # cards that have been on the table: in a hand now, they were picked up

    # ---- the walk over the log ---------------------------------------------------------------------

    def run(self) -> Knowledge:
        k = self.k
        for index, (seat, code) in enumerate(self.log):
            kind = code[0]
            if kind == _EXCHANGE:
                self._exchange(seat)
                continue
            card = _card_of(code)
            if kind == _ATTACK:
                if self.attacker < 0:
                    self._start_bout(seat)
                elif self._in_bout_awaiting_attackers() and not self._is_throw_in(index, seat, card):
                    self._end_bout()
                elif self._in_bout_awaiting_attackers():
                    self._note_skipped_before(seat)
                self._note_style(seat, kind, card)
                self._attack(seat, card)
            elif kind == _PASS:
                self._note_style(seat, kind, card)
                self._note_skipped_before(seat)
                self.passed |= 1 << seat
            elif kind == _COVER:
                self._note_style(seat, kind, card)
                self._play_card(seat, card)
                self.covers[int(code.split(":")[1])] = card
                self._after_cover()
            elif kind == _TAKE:
                self._note_style(seat, kind, card)
                self._note_failed_cover(seat)
                self.taking = True
                self.passed = 0
            elif kind == _TRANSFER:
                self.k.not_greedy |= 1 << seat
                self._transfer(seat, card)
        if self.attacker >= 0 and self._bout_over_in_view():
            self._end_bout()
        k.hand = mask_of(c.id for c in self.view.hand)
        k.known[k.seat] = k.hand
        k.table = mask_of([*self.attacks, *(c for c in self.covers if c >= 0)])
        self._note_style_at_end()
        return k

    def _in_bout_awaiting_attackers(self) -> bool:
        """Everything covered (or the defender took): the next attack card may be a throw-in."""
        return bool(self.attacks) and (self.taking or -1 not in self.covers)

    def _is_throw_in(self, index: int, seat: int, card: int) -> bool:
        """A throw-in is answered by the same bout: after a take, by more throw-ins or passes (the opening
        card of a new bout is always answered by its defender); otherwise by the current defender, who never
        opens the bout after one they beat off while ``seat`` throws in."""
        if seat == self.defender or not self._table_ranks() >> card & 1:
            return False
        following = next(((s, c) for s, c in islice(self.log, index + 1, None) if c[0] != _EXCHANGE), None)
        if following is None:  # the last entry: the view shows the bout it belongs to
            if self.taking:
                return self.view.phase is not Phase.DEFEND
            return len(self.view.table) > 1 or self.view.phase is not Phase.DEFEND
        if self.taking:
            return following[1][0] in (_ATTACK, _PASS)
        return following[0] == self.defender and following[1][0] in (_COVER, _TAKE, _TRANSFER)

    def _bout_over_in_view(self) -> bool:
        shown = [card.id for card, _ in self.view.table]
        return shown != self.attacks

    # ---- bouts -------------------------------------------------------------------------------------

    def _start_bout(self, attacker: int) -> None:
        k = self.k
        self.attacker = k.opener = attacker
        self.defender = self._seating().next_opponent(attacker)
        k.defender_limit = k.hand_sizes[self.defender]
        self.bout_number += 1
        self.attacks, self.covers, self.passed, self.taking = [], [], 0, False

    def _attack(self, seat: int, card: int) -> None:
        self._play_card(seat, card)
        self.attacks.append(card)
        self.covers.append(-1)
        self.passed = 0

    def _transfer(self, seat: int, card: int) -> None:
        self._play_card(seat, card)
        self.attacks.append(card)
        self.covers.append(-1)
        self.attacker = seat
        self.defender = self._next_active(self.defender)
        self.k.defender_limit = self.k.hand_sizes[self.defender]
        self.passed = 0

    def _after_cover(self) -> None:
        """A full cover ends the bout at once when the defender is empty or the limit is reached."""
        if -1 in self.covers:
            return
        if not self.k.hand_sizes[self.defender] or len(self.attacks) >= self._limit():
            self._end_bout(inferred=False)

    def _end_bout(self, inferred: bool = True) -> None:
        """Nobody else threw in: unpassed throwers hold no card of the table's ranks (when that mattered)."""
        k = self.k
        if inferred and len(self.attacks) < self._limit():
            for thrower in self._throwers():
                if not self.passed >> thrower & 1:
                    k.lacks[thrower] |= self._table_ranks()
        table = mask_of([*self.attacks, *(c for c in self.covers if c >= 0)])
        if self.taking:
            k.known[self.defender] |= table
            k.lacks[self.defender] &= ~table
            k.doubts[self.defender] &= ~table
            k.hand_sizes[self.defender] += table.bit_count()
        else:
            k.discard |= table
        self._refill()
        if not k.talon_size:
            k.out.extend(s for s in k.emptied if not k.hand_sizes[s] and s not in k.out)
        k.emptied = []
        if self.taking or self.defender in k.out:
            next_attacker = self._next_active(self.defender)
        else:
            next_attacker = self.defender
        self.attacks, self.covers, self.passed, self.taking = [], [], 0, False
        self._start_bout(next_attacker)

    def _refill(self) -> None:
        k = self.k
        order = [(k.opener + step) % k.n for step in range(k.n)]
        order = [s for s in order if s != self.defender and s not in k.out] + [self.defender]
        for seat in order:
            drawn = min(max(0, HAND_SIZE - k.hand_sizes[seat]), k.talon_size)
            if not drawn:
                continue
            if self.severny_card >= 0 and k.talon_size >= 2 and k.talon_size - drawn <= 1:
                k.known[seat] |= 1 << self.severny_card  # Severny: the last hidden card is shown when drawn
            k.hand_sizes[seat] += drawn
            k.talon_size -= drawn
            k.lacks[seat] = k.doubts[seat] = 0
            self.tells[seat].drew(drawn)
            if not k.talon_size:
                k.known[seat] |= 1 << k.bottom
                k.bottom_holder = seat

    # ---- cards and inferences ----------------------------------------------------------------------

    def _play_card(self, seat: int, card: int) -> None:
        k = self.k
        if not self.ever_played >> card & 1:
            self.tells[seat].played_from_deck(card)
            self.ever_played |= 1 << card
        k.known[seat] &= ~(1 << card)
        k.hand_sizes[seat] -= 1
        if not k.hand_sizes[seat]:
            if k.talon_size:
                k.emptied.append(seat)
            else:
                k.out.append(seat)

    def _exchange(self, seat: int) -> None:
        k = self.k
        lowest = min(deck_ids(k.settings.deck)) // 4 * 4 + (k.bottom & 3)
        k.known[seat] = k.known[seat] & ~(1 << lowest) | (1 << k.bottom)
        k.lacks[seat] &= ~(1 << k.bottom)
        self.tells[seat].usable = False
        k.doubts[seat] &= ~(1 << k.bottom)
        k.bottom = lowest

    def _note_skipped_before(self, seat: int) -> None:
        """Throwers ahead of ``seat`` in priority who had not passed were skipped: no card of those ranks."""
        ranks = self._table_ranks()
        for thrower in self._throwers():
            if thrower == seat:
                return
            if not self.passed >> thrower & 1:
                self.k.lacks[thrower] |= ranks

    def _note_failed_cover(self, seat: int) -> None:
        """A take over one uncovered card: believed to hold nothing higher of its suit (no trump either, when
        the talon is empty and saving trumps has no point)."""
        uncovered = [a for a, c in zip(self.attacks, self.covers, strict=True) if c < 0]
        if len(uncovered) != 1:
            return
        card = uncovered[0]
        beaters = BEATERS[self.k.trump][card]
        if card & 3 != self.k.trump and self.k.talon_size:
            beaters &= SUIT_MASK[card & 3]
        self.k.doubts[seat] |= beaters & self.k.deck

    def _note_style(self, seat: int, kind: str, card: int) -> None:
        """Mark ``seat`` as not greedy when a card it certainly holds shows greedy would have moved otherwise,
        and as not normal when the normal rules would never make this move.

        Each decision also leaves the cards that would have made greedy move otherwise, to be checked against
        the order the seat's cards came in (see `_Tells`). Called before the move changes the table; a lead
        is an attack on an empty table."""
        k = self.k
        trump = k.trump
        plain = ~SUIT_MASK[trump]
        if kind == _ATTACK and not self.attacks:  # greedy leads its lowest card
            suspect = greedy_before(card, trump)
        elif kind in (_ATTACK, _PASS):  # greedy throws in its lowest plain card of a table rank, if any
            room = len(self.attacks) < self._limit()
            suspect = self._table_ranks() & plain if room else 0
            if kind == _ATTACK:
                if card & 3 == trump:
                    k.not_greedy |= 1 << seat
                suspect &= greedy_before(card, trump)
        else:  # greedy covers with its lowest card that beats, and takes only when none does
            suspect = 0
            for attack, cover in zip(self.attacks, self.covers, strict=True):
                if cover < 0:
                    suspect |= BEATERS[trump][attack]
            if kind == _COVER:
                suspect &= greedy_before(card, trump)
                if never_covers_with(card, k.talon_size, self.attacks, self.covers, trump):
                    k.not_normal |= 1 << seat
        self.tells[seat].decided(suspect & k.deck)
        if suspect & k.known[seat]:
            k.not_greedy |= 1 << seat

    def _note_style_at_end(self) -> None:
        """Whether each opponent's cards could have come from the deck in an order that fits greedy (with the
        talon empty and one opponent holding every unseen card, its whole hand is known)."""
        k = self.k
        holders = [s for s in range(k.n) if s != k.seat and k.hidden_count(s)]
        for seat in range(k.n):
            if seat == k.seat or k.not_greedy >> seat & 1:
                continue
            named = k.known[seat] | (k.unseen if holders == [seat] and not k.talon_size else 0)
            unnamed = k.hand_sizes[seat] - named.bit_count()
            if not self.tells[seat].fit(named & ~self.ever_played, unnamed):
                k.not_greedy |= 1 << seat

    # ---- the rules' public questions ---------------------------------------------------------------

    def _table_ranks(self) -> int:
        ranks = ranks_on_table(self.attacks, self.covers)
        return ranks

    def _limit(self) -> int:
        cap = 5 if self.k.settings.first5 and self.bout_number == 1 else MAX_ATTACKS
        return min(cap, self.k.defender_limit)

    def _seating(self) -> Game:
        seating = self.seating
        seating.out = tuple(self.k.out)
        seating.attacker = self.attacker
        seating.defender = self.defender
        return seating

    def _next_active(self, seat: int) -> int:
        return self._seating().next_active(seat)

    def _throwers(self) -> list[int]:
        """Allowed throwers in priority order, as `Game.throwers` computes them."""
        return self._seating().throwers()


class _Tells:
    """Whether one seat's moves fit greedy for some order in which its cards came from the deck.

    The seat's deck slots are its first six cards and then each card it draws, numbered in order. A card
    greedy would have played instead at some decision was not held then, so it came in a later slot; a card
    played came in an earlier one. Greedy fits only if its cards can fill the slots within these windows
    (checked earliest deadline first). Cards picked up from the table take no slot."""

    def __init__(self) -> None:
        self.slots = HAND_SIZE  # deck slots filled so far
        self.excluded: dict[int, int] = {}  # card -> slots filled at the last decision that excluded it
        self.windows: list[tuple[int, int]] = []  # (after slot, by slot) per card played from the deck
        self.usable = True  # an exchange moves cards outside the slots: no verdict then

    def decided(self, mask: int) -> None:
        for card in bits(mask):
            self.excluded[card] = self.slots

    def drew(self, count: int) -> None:
        self.slots += count

    def played_from_deck(self, card: int) -> None:
        self.windows.append((self.excluded.get(card, 0), self.slots))

    def fit(self, held: int, unnamed: int) -> bool:
        """Whether some order fits, given the deck cards held now (``held``) and ``unnamed`` unknown ones."""
        forever = self.slots + 1
        windows = [*self.windows, *((self.excluded.get(c, 0), forever) for c in bits(held))]
        windows += [(0, forever)] * unnamed
        if not self.usable or len(windows) != self.slots:
            return True
        windows.sort()
        due: list[int] = []
        arrived = 0
        for slot in range(1, self.slots + 1):
            while arrived < len(windows) and windows[arrived][0] < slot:
                heapq.heappush(due, windows[arrived][1])
                arrived += 1
            if not due or heapq.heappop(due) < slot:
                return False
        return True


def _card_of(code: str) -> int:
    from core.cards import Card

    return Card.parse(code.rsplit(":", 1)[1]).id if ":" in code else -1

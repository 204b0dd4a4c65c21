"""Public knowledge of one seat, read from its `View` and the public log alone.

Durak's history is public: every card played, covered, transferred, taken or discarded was seen by all. We
pass once over the actions (the public log) and the events that followed them (the view's, `core.events`:
where each bout started and ended, who drew how many, who drew the turned-up card, who went out), and
collect:

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
- ``normal_odds`` (evidence): the log-likelihood ratio of the seat's takes under the normal rules against
  greedy's; only a take the normal rules may make to keep a high trump tells them apart.

Both kinds of absence are forgotten when ``s`` draws from the talon.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

from core.actions import Action
from core.ai.baselines import greedy_before
from core.ai.normal import never_covers_with
from core.cards import BEATERS, SUIT_MASK, SUITS, bits, deck_ids, mask_of, ranks_on_table
from core.events import (
    BoutEnded,
    BoutStarted,
    Drew,
    Event,
    TrumpExchanged,
    TrumpsChanged,
    TurnedUpCardDrawn,
    WentOut,
)
from core.settings import Settings
from core.state import HAND_SIZE, MAX_ATTACKS, next_active, throwers
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
    bout_cap: int = MAX_ATTACKS  # the bout's most attack cards, as its start said
    emptied: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    not_greedy: int = 0  # mask of seats
    not_normal: int = 0  # mask of seats
    normal_odds: list[float] = field(default_factory=list)  # log-likelihood ratio, normal's over greedy's

    @property
    def unseen(self) -> int:
        """Cards whose place this seat does not know: some opponent's hidden cards or the hidden talon."""
        return self.unplaced(self.table, self.hand)

    def unplaced(self, table: int, own: int) -> int:
        """`unseen`, given the cards on the table and the viewer's own (the reading asks it mid-record)."""
        placed = self.discard | table | own
        for s in range(self.n):
            placed |= self.known[s]
        if self.talon_size:
            placed |= 1 << self.bottom
        return self.deck & ~placed

    @property
    def players_left(self) -> int:
        """Players still holding cards (not out)."""
        return self.n - len(self.out)

    def hidden_count(self, seat: int) -> int:
        """How many of ``seat``'s cards this viewer cannot name."""
        return self.hand_sizes[seat] - self.known[seat].bit_count()


def read_knowledge(view: View, log: list[tuple[int, str]]) -> Knowledge:
    """Pass over the public ``log`` of actions and ``view``'s events; return what ``view.seat`` knows now."""
    if view.seat is None:
        raise ValueError("a spectator has no hand to play; give the view of a seat")
    return _Reading(view, log).run()


class _Reading:
    """The pass over the record: card counts and public facts, never a hidden card."""

    def __init__(self, view: View, log: list[tuple[int, str]]) -> None:
        settings = Settings.from_words(view.settings_words)
        n = len(view.players)
        self.view = view
        self.log = log
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
            normal_odds=[0.0] * n,
            hand_sizes=[HAND_SIZE] * n,
            talon_size=settings.deck - HAND_SIZE * n,
        )
        if not self.k.talon_size:  # the whole deck is dealt: the dealer keeps the card that showed trumps
            self.k.known[view.dealer] |= 1 << self.k.bottom
            self.k.bottom_holder = view.dealer
        self.attacks: list[int] = []
        self.covers: list[int] = []
        self.attacker = self.defender = -1
        self.passed = 0
        self.tells = [_Tells() for _ in range(n)]
        self.ever_played = 0  # cards that have been on the table: in a hand now, they were picked up
        self.own_cards = _dealt_to(self.k.seat, self.k.hand, log)

    # ---- the pass over the record ------------------------------------------------------------------

    def run(self) -> Knowledge:
        k = self.k
        events = iter(self.view.events)
        pending = next(events, None)
        for step, (seat, code) in enumerate(self.log):
            while pending is not None and pending[0] <= step:  # what followed the actions before this one
                self._event(pending[1])
                pending = next(events, None)
            self._action(seat, code)
        while pending is not None:
            self._event(pending[1])
            pending = next(events, None)
        k.hand = mask_of(c.id for c in self.view.hand)
        k.known[k.seat] = k.hand
        k.table = self._table()
        self._note_style_at_end()
        return k

    def _action(self, seat: int, code: str) -> None:
        kind = code[0]
        if kind in (_EXCHANGE, _SURRENDER):  # an exchange tells by its event; nothing follows a surrender
            return
        action = Action.parse(code)
        card = action.card_id
        if kind == _ATTACK:
            if self.attacks:  # a throw-in
                self._note_skipped_before(seat)
            self._note_style(seat, kind, card)
            self._play_card(seat, card)
            self.attacks.append(card)
            self.covers.append(-1)
            self.passed = 0
        elif kind == _PASS:
            self._note_style(seat, kind, card)
            self._note_skipped_before(seat)
            self.passed |= 1 << seat
        elif kind == _COVER:
            self._note_style(seat, kind, card)
            self._play_card(seat, card)
            self.covers[action.slot] = card
        elif kind == _TAKE:
            self._note_style(seat, kind, card)
            self._note_take_odds(seat)
            self._note_failed_cover(seat)
            self.passed = 0
        elif kind == _TRANSFER:
            self.k.not_greedy |= 1 << seat
            self._play_card(seat, card)
            self.attacks.append(card)
            self.covers.append(-1)
            self.attacker = seat
            self.defender = next_active(self.k.n, self.k.out, self.defender)
            self.k.defender_limit = self.k.hand_sizes[self.defender]
            self.passed = 0

    def _event(self, event: Event) -> None:
        k = self.k
        match event:
            case BoutStarted(attacker, defender, cap):
                self.attacker = k.opener = attacker
                self.defender = defender
                k.bout_cap = cap
                k.defender_limit = k.hand_sizes[defender]
                self.attacks, self.covers, self.passed = [], [], 0
            case BoutEnded(_, taken, cards):
                self._end_bout(taken, cards)
            case Drew(seat, number, _):
                k.hand_sizes[seat] += number
                k.talon_size -= number
                k.lacks[seat] = k.doubts[seat] = 0
                self.tells[seat].drew(number)
            case TurnedUpCardDrawn(seat, card):
                k.known[seat] |= 1 << card
                k.bottom_holder = seat
            case TrumpsChanged(seat, card):  # Severny: the last hidden card is shown when drawn
                k.known[seat] |= 1 << card
            case TrumpExchanged(seat, taken, put):
                k.known[seat] = k.known[seat] & ~(1 << put) | (1 << taken)
                k.lacks[seat] &= ~(1 << taken)
                k.doubts[seat] &= ~(1 << taken)
                self.tells[seat].usable = False
                k.bottom = put
            case WentOut(seat, _):
                k.out.append(seat)

    def _end_bout(self, taken: bool, table: int) -> None:
        """When the rules asked the throwers, those who had not passed hold no card of the table's ranks."""
        k = self.k
        if len(self.attacks) < self._limit() and (taken or k.hand_sizes[self.defender]):
            for thrower in self._throwers():
                if not self.passed >> thrower & 1:
                    k.lacks[thrower] |= self._table_ranks()
        if taken:
            k.known[self.defender] |= table
            k.lacks[self.defender] &= ~table
            k.doubts[self.defender] &= ~table
            k.hand_sizes[self.defender] += table.bit_count()
        else:
            k.discard |= table
        k.emptied = []
        self.attacks, self.covers, self.passed = [], [], 0

    # ---- cards and inferences ----------------------------------------------------------------------

    def _play_card(self, seat: int, card: int) -> None:
        k = self.k
        if not self.ever_played >> card & 1:
            self.tells[seat].played_from_deck(card)
            self.ever_played |= 1 << card
        k.known[seat] &= ~(1 << card)
        k.hand_sizes[seat] -= 1
        if not k.hand_sizes[seat] and k.talon_size:
            k.emptied.append(seat)

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
        uncovered = self._uncovered()
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

    def _note_take_odds(self, seat: int) -> None:
        """A take over one card where the normal rules would keep a high trump rather than cover with it: how
        much likelier the take is under those rules than under greedy's, which takes only with no card that
        beats (the seat's unnamed cards are taken as drawn at random from the cards it may hold)."""
        k = self.k
        uncovered = self._uncovered()
        if len(uncovered) != 1 or seat == k.seat:
            return
        beaters = BEATERS[k.trump][uncovered[0]] & k.deck
        spared = 0
        for card in bits(beaters):
            if never_covers_with(card, k.talon_size, self.attacks, self.covers, k.trump):
                spared |= 1 << card
        if not spared:
            return
        pool = k.unplaced(self._table(), self.own_cards) & ~k.lacks[seat]
        held = k.hidden_count(seat)
        size = pool.bit_count()
        low = (beaters & ~spared & pool).bit_count()
        high = (spared & pool).bit_count()
        greedy_takes = math.comb(size - low - high, held)
        if greedy_takes:
            k.normal_odds[seat] += math.log(math.comb(size - low, held) / greedy_takes)

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

    def _uncovered(self) -> list[int]:
        return [a for a, c in zip(self.attacks, self.covers, strict=True) if c < 0]

    def _table(self) -> int:
        return mask_of([*self.attacks, *(c for c in self.covers if c >= 0)])

    def _table_ranks(self) -> int:
        return ranks_on_table(self.attacks, self.covers)

    def _limit(self) -> int:
        return min(self.k.bout_cap, self.k.defender_limit)

    def _throwers(self) -> list[int]:
        """Allowed throwers in priority order, as the rules compute them."""
        return throwers(self.k.settings, self.k.n, self.k.out, self.attacker, self.defender)


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


def _dealt_to(seat: int, hand: int, log: list[tuple[int, str]]) -> int:
    """Cards ``seat`` had from the deck (dealt or drawn), played since or held now: a card's first time on the
    table was its play, and a card held now and never on the table came from the deck. None of them was ever
    in another hand."""
    on_table = dealt = 0
    for actor, code in log:
        card_id = Action.parse(code).card_id
        if card_id < 0:
            continue
        card = 1 << card_id
        if actor == seat and not on_table & card:
            dealt |= card
        on_table |= card
    return dealt | hand & ~on_table

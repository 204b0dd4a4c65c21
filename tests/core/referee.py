"""An independent referee: docs/rules.md re-stated from the public API (cards, table, hands, view) and checked
on every transition of a random game, so that a rule the engine gets wrong in its own terms still shows up.

It shares no code with `core.rules`: priority, neighbours, the transfer target, beating, the rank rule,
the limit and who attacks next are all recomputed here from the rules text.
"""

from __future__ import annotations

from core import Action, Card, Game, Kind, Phase
from core.cards import CARDS

RANKS = "23456789TJQKA"


def beats(cover: Card, attack: Card, trump: str) -> bool:
    """A higher card of the suit, or any trump over a plain card (rules.md §2)."""
    if cover.suit == attack.suit:
        return RANKS.index(cover.rank) > RANKS.index(attack.rank)
    return cover.suit == trump


def next_active(game: Game, seat: int) -> int:
    n = len(game.players)
    for step in range(1, n + 1):
        if (seat + step) % n not in game.out:
            return (seat + step) % n
    return seat


def allowed_throwers(game: Game, attacker: int, defender: int) -> list[int]:
    """Who may throw in, in priority order: the main attacker, then clockwise (rules.md §4.6, §4.7, §7.3)."""
    n = len(game.players)
    mode = game.settings.throw_in
    if mode == "auto":
        mode = "neighbours" if n - len(game.out) >= 5 else "all"
    if mode == "neighbours":
        left = next_active(game, defender)
        return [attacker] + ([left] if left not in (attacker, defender) else [])
    return [attacker] + [
        (attacker + k) % n for k in range(1, n) if (attacker + k) % n not in (defender, *game.out)
    ]


def bout_cap(game: Game) -> int:
    return 5 if game.settings.first5 and game.view(None).bout_number == 1 else 6


def expected_thrower(game: Game) -> int | None:
    """The first allowed thrower who has not passed and holds a card of a rank on the table (rules.md §4.6)."""
    view = game.view(None)
    if len(game.table) >= view.attack_limit:
        return None
    ranks = {card.rank for pair in game.table for card in pair if card is not None}
    for seat in allowed_throwers(game, view.attacker, view.defender):
        if seat not in view.passed and seat not in game.out and any(c.rank in ranks for c in game.hand(seat)):
            return seat
    return None


def check_state(game: Game) -> None:
    """What must hold between actions."""
    view = game.view(None)
    for seat in game.out:
        assert game.hand_size(seat) == 0, f"seat {seat} is out holding cards"
    if game.talon_size:
        assert game.out == (), "nobody goes out while the talon lasts"
    else:
        for seat in range(len(game.players)):
            if game.hand_size(seat) == 0:
                assert seat in game.out or game.is_over, f"seat {seat} has no cards but is not out"
    if game.is_over:
        check_result(game)
        return
    assert len(game.table) <= view.attack_limit <= bout_cap(game)
    if view.phase in (Phase.THROW_IN, Phase.TAKING):
        assert game.to_act == expected_thrower(game), (
            f"priority: {game.to_act} asked, not {expected_thrower(game)}"
        )
    if view.phase is Phase.ATTACK:
        assert not game.table and game.to_act == view.attacker
        assert view.defender == next_active(game, view.attacker)
        assert view.attack_limit == min(bout_cap(game), game.hand_size(view.defender))
        if game.talon_size:
            assert all(game.hand_size(s) >= 6 for s in range(len(game.players)))


def check_result(game: Game) -> None:
    """One player left holding cards is the durak; nobody left is a draw (rules.md §7.4)."""
    result = game.result
    assert result is not None and result.order_out == game.out
    holders = [s for s in range(len(game.players)) if s not in game.out]
    if result.reason == "last_holder":
        assert holders == [result.durak] and game.talon_size == 0 and game.hand_size(holders[0]) > 0
    elif result.reason == "everyone_out":
        assert holders == [] and result.draw and result.durak is None
    elif result.reason == "surrender":
        assert result.durak in holders and not result.draw


def check_transition(before: Game, seat: int, action: Action, after: Game, opener: int) -> None:
    """What one action may do, and how a bout ends (rules.md §4, §5, §6);
    ``opener`` is the seat that opened the bout (it draws first)."""
    view = before.view(None)
    table = before.table
    kind = action.kind
    card = action.card
    if kind in (Kind.ATTACK, Kind.COVER, Kind.TRANSFER):
        assert card in before.hand(seat)
        if before.talon_size == 0:  # out the moment the last card leaves the hand (rules.md §7.1)
            emptied = (seat,) if before.hand_size(seat) == 1 else ()
            assert after.out == before.out + emptied, f"out {after.out} after {before.out}, {seat} played"
    if kind is Kind.ATTACK:
        if not table:
            assert seat == view.attacker and view.phase is Phase.ATTACK
        else:
            assert all(c is not None for _, c in table) or view.phase is Phase.TAKING, "one card at a time"
            assert card is not None and card.rank in {c.rank for pair in table for c in pair if c is not None}
            assert len(table) < view.attack_limit
            assert seat in allowed_throwers(before, view.attacker, view.defender)
    elif kind is Kind.COVER:
        attack, cover = table[action.slot]
        assert cover is None and card is not None and beats(card, attack, before.trump)
    elif kind is Kind.TRANSFER:
        assert before.settings.mode == "transfer" and all(c is None for _, c in table)
        assert card is not None and card.rank == table[0][0].rank
        target = next_active(before, view.defender)
        assert target != view.defender and before.hand_size(target) >= len(table) + 1 <= bout_cap(before)
        if not after.is_over:
            assert (after.view(None).defender, after.view(None).attacker) == (target, seat)
    elif kind is Kind.TAKE:
        assert any(c is None for _, c in table)
    if after.is_over or not table or after.table or kind is Kind.EXCHANGE:
        return
    # the bout ended with this action
    bout_cards = {c for pair in table for c in pair if c is not None} | ({card} if card else set())
    defender = view.defender
    taken = view.phase is Phase.TAKING or kind is Kind.TAKE
    if taken:
        assert bout_cards <= set(after.hand(defender)), "the defender picks up every card on the table"
        expected = next_active(after, defender)
    else:
        assert after.discard_size == before.discard_size + len(bout_cards)
        expected = defender if after.hand_size(defender) else next_active(after, defender)
    assert after.view(None).attacker == expected, f"{expected} should attack next"
    check_refill(before, seat, card, after, opener, bout_cards if taken else set())


def check_refill(
    before: Game, seat: int, card: Card | None, after: Game, opener: int, picked_up: set[Card]
) -> None:
    """The opener draws first, then the others clockwise, the final defender last, each up to six, in talon
    order (the turned-up trump last)."""
    n = len(before.players)
    defender = before.view(None).defender
    hands = [set(before.hand(s)) for s in range(n)]
    hands[seat].discard(card)  # type: ignore[arg-type]
    hands[defender] |= picked_up
    talon = [CARDS[c] for c in before.talon]  # the talon's order is hidden from the public API
    order = [(opener + k) % n for k in range(n)]
    for drawer in [s for s in order if s != defender and s not in before.out] + [defender]:
        while len(hands[drawer]) < 6 and talon:
            hands[drawer].add(talon.pop(0))
    assert [set(after.hand(s)) for s in range(n)] == hands, "refill order"


class RepetitionWatch:
    """rules.md §7.6 (repetition), kept independently: bout-start positions (every hand as a set, the talon, the
    attacker, the defender) since the last discard. A recurrence must end the game as a draw, and only then."""

    def __init__(self, game: Game) -> None:
        self.seen = {self.position(game)}

    @staticmethod
    def position(game: Game) -> tuple[object, ...]:
        view = game.view(None)
        hands = tuple(frozenset(game.hand(s)) for s in range(len(game.players)))
        return (hands, tuple(game.talon), view.attacker, view.defender)

    def observe(self, before: Game, after: Game) -> None:
        if after.discard_size > before.discard_size:
            self.seen.clear()
        repeated = after.result is not None and after.result.reason == "repetition"
        if after.view(None).bout_number == before.view(None).bout_number and not repeated:
            return
        position = self.position(after)
        if repeated:
            assert position in self.seen, "a repetition draw without a repeated position"
        else:
            assert position not in self.seen, "a repeated bout-start position did not end the game"
            self.seen.add(position)

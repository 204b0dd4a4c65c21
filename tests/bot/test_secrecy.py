"""No rendered public message, and no other seat's hand message, ever shows a card only one player may see.

A card may appear in public once everyone has seen it: on the table, or as the trump card turned up. A
hand message may also show the viewer's own cards. Checked at every step of many random games.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from bot.effects import Message
from bot.game.last_actions import events_of_step, remember
from bot.i18n import translator
from bot.render.hand import render_hand
from bot.render.summary import render_result
from bot.render.table import render_table
from bot.session import Playing, Seat
from core import Card, Game, Settings, new_game
from core.cards import CARDS

CARD_PATTERN = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])")
WORDS = [
    "",
    "transfer",
    "neighbours first5",
    "transfer deck=24",
    "deck=52 exchange",
    "transfer auto exchange=ace",
]


def shown_cards(message: Message) -> set[str]:
    texts = [message.plain_text, *(b.label for row in message.buttons for b in row)]
    return {m.group(0) for text in texts for m in CARD_PATTERN.finditer(text)}


def symbols(cards: object) -> set[str]:
    return {c.symbol for c in cards}  # type: ignore[attr-defined]


def check_step(game: Game, header: Playing, public: set[str]) -> None:
    tr = translator("en")
    table = render_table(header, game.view(None), "-1", tr)
    leaked = shown_cards(table) - public
    assert not leaked, f"the public table shows {leaked} at step {game.step}"
    for seat in range(len(game.players)):
        hand = render_hand(header, game.view(seat), "-1", tr)
        leaked = shown_cards(hand) - public - symbols(game.hand(seat))
        assert not leaked, f"seat {seat}'s hand message shows {leaked} at step {game.step}"


def random_positions(games: int, seed: int) -> Iterator[tuple[Game, Playing, set[Card]]]:
    """Every position of random games over `WORDS` (the finished one last), with the game's header (its events
    so far) and the cards everyone has seen by then: the turned-up trumps and every card played."""
    rng = random.Random(seed)
    for number in range(games):
        settings = Settings.from_words(rng.choice(WORDS))
        players = rng.randint(2, min(6, settings.deck // 6))
        game = new_game(settings, [f"P{i}" for i in range(players)], seed=number)
        seats = [Seat(user_id=str(i), name=f"P{i}") for i in range(players)]
        header = Playing(game_id="g1", creator="0", seats=seats, started_at=0.0)
        public = {game.deal_trump_card}
        while not game.is_over:
            public |= {c for pair in game.table for c in pair if c is not None}
            if game.talon:
                public.add(game.trump_card)
            yield game, header, public
            seat = game.to_act
            assert seat is not None
            action = rng.choice(game.legal_actions(seat))
            after = game.apply(seat, action)
            if action.card is not None:
                public.add(action.card)  # every card played, even one picked up at once, was seen
            header = header.model_copy(
                update={"events": remember(header.events, events_of_step(game, seat, action, after))}
            )
            game = after
        yield game, header, public


def play_and_check(games: int, seed: int) -> None:
    for game, header, public in random_positions(games, seed):
        if game.is_over:
            assert game.result is not None
            scores = [0] * len(game.players)
            result = render_result(game.result, header.seats, scores, "-1", "g1", translator("en"))
            assert not shown_cards(result)
        else:
            check_step(game, header, {c.symbol for c in public})


def test_rendered_messages_never_show_a_hidden_card_to_the_wrong_audience() -> None:
    play_and_check(games=200, seed=2024)  # every screen of every step; 5,000 games under the soak mark


@pytest.mark.soak
def test_rendered_messages_keep_every_secret_over_five_thousand_games() -> None:
    play_and_check(games=5000, seed=7)


def test_the_card_pattern_recognises_every_card_symbol() -> None:
    assert {m.group(0) for m in CARD_PATTERN.finditer(" ".join(c.symbol for c in CARDS))} == {
        c.symbol for c in CARDS
    }

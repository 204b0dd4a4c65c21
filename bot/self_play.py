"""A game the bot's AI plays for every person's seat (`durak-bot demo`): its service, and each next move.

The seats are people's seats, not AI seats: the demo presses their buttons with the move picked here, so the
game goes the very path a chat's presses take and `/stats` has rows to show afterwards. The move is the one
the bot's own AI picks for the seat to act, from that seat's view only (`bot.ai_seats.choose_ai_action`).
"""

from __future__ import annotations

import itertools

from bot.ai_seats import choose_ai_action
from bot.context import ServiceConfig
from bot.service import GameService
from bot.session import ChatSession, Playing
from core import Action
from storage.store import GameStore

SELF_PLAY_CLOCK = 1_767_225_600.0  # 2026-01-01 00:00 UTC: tables never show the real time


def self_play_service(store: GameStore, seed: int) -> GameService:
    """A service on which one seed plays one game, every time: a fixed clock, ids demo1, demo2... and every
    deal from ``seed``; AI moves are made at once, within the press. Its deals are not sealed: a seal whose
    salt came from the seed could be opened by trying seeds, and a secret salt would print another game each
    time (docs/fairness.md)."""
    counter = itertools.count(1)
    return GameService(
        store,
        ServiceConfig(ai_delay=0),
        clock=lambda: SELF_PLAY_CLOCK,
        new_id=lambda: f"demo{next(counter)}",
        seed_source=lambda: seed,
        salt_source=lambda: None,
    )


def next_move(session: ChatSession | None, level: str) -> tuple[str, Action] | None:
    """Who must act in the chat's running game (their user id) and the move the AI of ``level`` picks for
    their seat; None when no game waits for a move."""
    header = session.header if session is not None else None
    game = session.game if session is not None else None
    if not isinstance(header, Playing) or game is None or game.to_act is None:
        return None
    seat = game.to_act
    return header.seats[seat].user_id, choose_ai_action(game, seat, level, header.game_id)

"""A game the bot's AI plays for every person's seat (`durak-bot demo`): its service.

The seats are people's seats, not AI seats: the demo presses their buttons with the move the read side picks
(`bot.queries.next_move`, the bot's own AI for the seat to act, from that seat's view only), so the game goes
the very path a chat's presses take and `/stats` has rows to show afterwards.
"""

from __future__ import annotations

import itertools

from bot.context import ServiceConfig
from bot.service import GameService
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

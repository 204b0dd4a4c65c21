"""What a simulated person may tap on a hand left as it was after their own press (the webhook test and
bench/telegram_scale.py): the buttons drawn at an earlier step that the bot makes as tapped now."""

from __future__ import annotations

from bot.buttons import Move
from bot.game.fast_taps import made_as_tapped
from bot.payloads import parse
from core import Game


def made_now(game: Game, game_id: str, seat: int, data: str) -> bool:
    """Whether ``seat``'s press of the button ``data``, drawn at an earlier step of game ``game_id``, is made
    now (`bot.game.fast_taps`)."""
    payload = parse(data)
    button = payload.button if payload is not None else None
    if payload is None or not isinstance(button, Move) or payload.game_id != game_id:
        return False
    return payload.step < game.step and made_as_tapped(game, payload.step, seat, button.action)

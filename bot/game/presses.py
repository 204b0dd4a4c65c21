"""A press, dispatched by what was pressed and what the chat holds; and answered exactly once.

`bot.payloads.parse` has read the button (`bot.buttons`); here it goes to its handler: a lobby button to the
lobby's table of presses (`bot.game.lobby.LOBBY_PRESSES`), a surrender's confirmation and a move to the
running game, Rematch to the finished one. Every platform wants a press answered (Telegram's callback answer,
Discord's interaction response): a decision that says nothing to the presser gets the plain acknowledgement
here, in one place, instead of each handler inserting an empty alert of its own.
"""

from __future__ import annotations

from dataclasses import replace

from bot import buttons
from bot.context import Context
from bot.decision import Decision, show
from bot.effects import Alert
from bot.game import finish, lobby, moves, surrender
from bot.inputs import User
from bot.payloads import Payload
from bot.session import ChatSession, Finished, Lobby, Playing


def route_press(ctx: Context, session: ChatSession | None, user: User, payload: Payload) -> Decision:
    """The decision on one press, answering the presser (`answered`)."""
    return answered(_decided(ctx, session, user, payload), user.id)


def _decided(ctx: Context, session: ChatSession | None, user: User, payload: Payload) -> Decision:
    header = session.header if session is not None else None
    button = payload.button
    if isinstance(header, Lobby) and payload.game_id == header.lobby_id:
        if isinstance(button, buttons.LOBBY_BUTTONS):
            return lobby.lobby_action(ctx, header, user, button, seats_seen=payload.step)
        return show(Alert(user.id, ctx.tr(user.lang)._("That button is not valid."), show_alert=True))
    if isinstance(header, Playing) and session is not None:
        if isinstance(button, buttons.ConfirmSurrender):
            return surrender.confirmed(ctx, session, user, payload, button)
        return moves.on_game_press(ctx, session, user, payload)
    if (
        isinstance(header, Finished)
        and isinstance(button, buttons.Rematch)
        and payload.game_id == header.game_id
    ):
        return lobby.rematch(ctx, header, user)
    if (
        isinstance(header, Finished)
        and isinstance(button, buttons.ShowDeal)
        and payload.game_id == header.game_id
    ):
        return finish.deal_shown(ctx, header, user)
    _ = ctx.tr(user.lang)._
    if ctx.record.version == 0:  # versions outlive games: a chat with none lost its data with the store
        text = _("This game was lost in a server fault: start a new one with /newgame.")
    else:
        text = _("This button belongs to a game that is over.")
    return show(Alert(user.id, text, show_alert=True))


def answered(decision: Decision, user_id: str) -> Decision:
    """``decision`` with the press acknowledged first, unless it already says something to the presser."""
    if any(isinstance(effect, Alert) and effect.user_id == user_id for effect in decision.effects):
        return decision
    return replace(decision, effects=[Alert(user_id, ""), *decision.effects])

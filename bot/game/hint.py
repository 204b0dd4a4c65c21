"""`/hint`: in a practice game, the hard AI's chance of not being the durak after each legal move. A command
of its own that only reads the game, so it lives apart from the moves. Pure: see `Decision`."""

from __future__ import annotations

from bot.context import Context
from bot.decision import Decision, show
from bot.effects import Reply
from bot.game.seats import seat_of
from bot.inputs import User
from bot.render.hand import action_label
from bot.render.text import line, message
from bot.session import ChatSession, Playing


def hint_for(ctx: Context, session: ChatSession | None, user: User, private: bool) -> Decision:
    """`/hint` in a practice game (a private chat with the bot): the hard AI's view of each legal move."""
    tr = ctx.tr(user.lang)
    _ = tr._
    header = session.header if session is not None else None
    game = session.game if session is not None else None
    if not private:
        text = _("Hints are for practice games against the AI: start one in a private chat with me.")
        return show(Reply(ctx.chat_id, message([line(text)])))
    if not isinstance(header, Playing) or game is None or seat_of(header, user.id) is None:
        # asked where a group game's hand is shown, most likely: that game is not a practice game
        text = _("Hints are for practice games against the AI: start one here with {command}.").format(
            command=ctx.spelled("newgame")
        )
        return show(Reply(ctx.chat_id, message([line(text)])))
    seat_no = seat_of(header, user.id)
    assert seat_no is not None
    view = game.view(seat_no)
    ranked = ctx.ai.ranking(game, seat_no, header.game_id) if view.legal_actions else ()
    if ranked is None:
        return show(
            Reply(ctx.chat_id, message([line(_("Hints are busy right now: try again in a moment."))]))
        )
    if not ranked:
        return show(Reply(ctx.chat_id, message([line(_("Nothing to decide now: it is not your turn."))])))
    lines = [line(_("Chance of not being the durak after each move:"))]
    for action, chance in ranked:
        lines.append(line(f"{action_label(action, view, tr)} — {round(chance * 100)}%"))
    return show(Reply(ctx.chat_id, message(lines), private=True, user_id=user.id))

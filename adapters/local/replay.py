"""`durak-bot replay <game id>`: an archived game rebuilt from its settings, seed (or deck) and log, with the
group's table printed after every step by the same renderer the chats use (the archive is read by
`bot.game.archive`)."""

from __future__ import annotations

from typing import TextIO

from adapters.local.text import message_text
from bot.game.archive import chat_id_of, first_position, replayed, result_message
from bot.game.last_actions import events_of_step, remember
from bot.i18n import translator
from bot.render.table import render_table
from bot.session import Playing


def print_replay(archive_json: str, out: TextIO, lang: str = "en") -> None:
    """Print the game's table before the first move and after each step, then the result."""
    data, game, log, seats = first_position(archive_json)
    tr = translator(lang)
    chat_id = chat_id_of(data.get("chat", ""))
    now = float(data.get("started_at") or 0)
    header = Playing(
        game_id=str(data.get("game_id", "replay")),
        creator=seats[0].user_id,
        seats=seats,
        chat_title=str(data.get("chat_title", "")),
        lang=lang,
        started_at=now,
    )
    out.write(tr._("Game {id} · {players}").format(id=header.game_id, players=", ".join(game.players)) + "\n")
    step_heading = tr._("Step {n}")
    out.write("\n" + step_heading.format(n=0) + "\n")
    out.write(message_text(render_table(header, game.view(None), chat_id, now, tr)) + "\n")
    for step in replayed(game, log):
        events = remember(header.events, events_of_step(step.before, step.seat, step.action, step.after))
        header = header.model_copy(update={"events": events})
        game = step.after
        out.write("\n" + step_heading.format(n=step.number) + "\n")
        out.write(message_text(render_table(header, game.view(None), chat_id, now, tr)) + "\n")
    result = result_message(game, seats, chat_id, header.game_id, tr)
    if result is not None:
        out.write("\n" + message_text(result) + "\n")

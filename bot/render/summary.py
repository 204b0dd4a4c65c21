"""Game over, the standings, and help: the public messages that are not the live table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot import payloads
from bot.effects import Button, Message
from bot.i18n import Translator
from bot.names import shown_name
from bot.payloads import Payload
from bot.render.lobby import seat_label
from bot.render.text import bold, line, message
from bot.session import Seat
from core import Result
from storage.models import PlayerStats

if TYPE_CHECKING:
    from bot.commands import CommandSpec


def render_result(
    result: Result, seats: list[Seat], points: list[int], chat_id: str, game_id: str, tr: Translator
) -> Message:
    _ = tr._
    names = [seat_label(s.name, s.ai, tr) for s in seats]
    if result.draw:
        headline = _("Game over: a draw, nobody is the durak.")
        if result.reason == "repetition":
            headline = _("Game over: a draw, the same position came back with nothing discarded.")
    elif result.reason == "surrender":
        headline = _("Game over: {who} surrendered and is the durak.").format(who=names[result.durak or 0])
    else:
        headline = _("Game over: {who} is the durak!").format(who=names[result.durak or 0])
    lines = [line(bold(headline))]
    if result.reason == "surrender" and len(result.order_out) > 1:  # rules.md §7.7: more than a winner
        lines.append(line(_("Players still holding cards are placed by how many they held, fewest first.")))
    for place, seat in enumerate(result.order_out, start=1):
        gained = f" (+{points[seat]})" if points[seat] else ""
        lines.append(line(f"{place}. {names[seat]}{gained}"))
    rematch = Button(_("Rematch"), Payload(chat_id, game_id, 0, payloads.REMATCH).encode())
    return message(lines, [[rematch]])


def render_stats(
    stats: Sequence[PlayerStats], tr: Translator, most_often_durak: Sequence[PlayerStats] = ()
) -> Message:
    """The standings in `PlayerStats.standing` order (most points first, then fewer duraks, more games, more
    first-outs), each row with its durak count beside; the players most often the durak on a line of their
    own, so the loser is never read as the one on top."""
    _ = tr._
    if not stats:
        return message([line(_("No games played in this chat yet."))])
    lines = [line(bold(_("Standings (most points first)")))]
    ranked = sorted(stats, key=lambda row: row.standing)
    for number, row in enumerate(ranked, start=1):
        detail = " · ".join(
            (
                # TRANSLATORS: standings: points (short)
                tr.n_("{n} pt", "{n} pts", row.points).format(n=row.points),
                # TRANSLATORS: standings: how many games this player lost (was the durak)
                tr.n_("durak: {n} time", "durak: {n} times", row.durak).format(n=row.durak),
                tr.n_("{n} game", "{n} games", row.games).format(n=row.games),
                # TRANSLATORS: standings: in how many games this player got rid of their cards first
                tr.n_("{n} first out", "{n} first out", row.first_out).format(n=row.first_out),
            )
        )
        lines.append(line(f"{number}. ", bold(display_name(row, tr)), " — ", detail))
    losers = [row for row in most_often_durak if row.durak > 0]
    if losers:
        times = losers[0].durak
        names = ", ".join(display_name(row, tr) for row in losers)
        lines.append(
            line(
                tr.n_(
                    "Most often the durak: {names} ({n} time)",
                    "Most often the durak: {names} ({n} times)",
                    times,
                ).format(names=names, n=times)
            )
        )
    return message(lines)


def display_name(row: PlayerStats, tr: Translator) -> str:
    return shown_name(row.name) or tr._("Player")  # rows may predate the cleaning of names on entry


def render_help(commands: Sequence[CommandSpec], accepted_words: str, tr: Translator) -> Message:
    """One line per command of the table (`bot.commands`) that /help lists, then the rules words."""
    _ = tr._
    lines = [line(bold(_("Durak bot")))]
    lines.extend(line(bold(spec.usage), " — ", tr.declared(spec.help)) for spec in commands if spec.in_help)
    lines.append(line(_("Words: {words}").format(words=accepted_words)))
    return message(lines)

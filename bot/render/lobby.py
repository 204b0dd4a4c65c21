"""The lobby message: who has joined, the rules chosen, and the lobby buttons."""

from __future__ import annotations

from bot import buttons
from bot.effects import Button, Message
from bot.i18n import Translator
from bot.payloads import Payload
from bot.render.app_button import open_app_button
from bot.render.rules import rule_lines
from bot.render.text import bold, line, message
from bot.session import Lobby, Seat
from core import Settings


def seat_label(name: str, ai: str | None, tr: Translator) -> str:
    if ai is None:
        return name
    # TRANSLATORS: AI strength, shown as "🤖 AI 1 (easy)" and on the lobby's add-AI buttons
    level = {"easy": tr._("easy"), "normal": tr._("normal"), "hard": tr._("hard")}.get(ai, ai)
    return f"🤖 {name} ({level})"


def seat_name(seat: Seat, tr: Translator) -> str:
    """A seat as the table and the result name it: an AI seat with its level, and a person's seat the AI
    plays for them after their timeouts marked so, which at the end is a seat they did not finish themselves
    and that counts as played and no more (rules.md §9.6)."""
    if seat.left_to_ai:
        # TRANSLATORS: a person's seat on the table and in the result while (or if) the AI played it to its
        # end after their timeouts: "🤖 played by the AI for Dana"
        return "🤖 " + tr._("played by the AI for {name}").format(name=seat.name)
    return seat_label(seat.name, seat.ai, tr)


def render_lobby(lobby: Lobby, chat_id: str, tr: Translator, app: bool = False) -> Message:
    """``app``: the chat's platform has the web app: an "Open table" button, so players can sit at the
    page before the deal."""
    _ = tr._
    settings = Settings.from_words(lobby.words)
    lines = [line(bold(_("New game of Durak"))), line("")]
    lines.extend(rule_lines(settings, tr))
    lines.append(line(""))
    count = len(lobby.seats)
    lines.append(
        line(bold(tr.n_("{n} player", "{n} players", count).format(n=count)), f" / {lobby.capacity}")
    )
    for number, seat in enumerate(lobby.seats, start=1):
        side = f" · {team_name(seat.team, tr)}" if settings.teams and seat.team is not None else ""
        # TRANSLATORS: beside a lobby seat: the bot cannot send this person their cards yet
        closed = " · " + _("must open a private chat with me") if seat.private_closed_at is not None else ""
        lines.append(line(f"{number}. ", seat_label(seat.name, seat.ai, tr), side, closed))
    if count < 2:
        lines.append(line(_("Waiting for at least one more player.")))
    elif sum(1 for seat in lobby.seats if not seat.is_ai) < 2:
        lines.append(line(not_rated_text(tr)))

    def button(label: str, pressed: buttons.Button, opens_private: bool = False, step: int = 0) -> Button:
        return Button(
            label, Payload(chat_id, lobby.lobby_id, step, pressed).encode(), opens_private=opens_private
        )

    seats_now = len(lobby.seats)  # Add and Remove AI are not idempotent: a press says how many seats it saw
    ai_row = [
        button(_("Add AI"), buttons.AddAi("normal"), step=seats_now),
        button(_("easy"), buttons.AddAi("easy"), step=seats_now),
        button(_("hard"), buttons.AddAi("hard"), step=seats_now),
    ]
    if any(seat.is_ai for seat in lobby.seats):
        ai_row.append(button(_("Remove AI"), buttons.RemoveAi(), step=seats_now))

    removals = [
        # TRANSLATORS: a lobby button for the creator: remove a player who cannot receive their cards
        button(_("Remove {name}").format(name=seat.name), buttons.RemoveSeat(seat_no), step=seats_now)
        for seat_no, seat in enumerate(lobby.seats)
        if seat.private_closed_at is not None
    ]
    rows = [
        [button(_("Join"), buttons.Join(), opens_private=True), button(_("Leave"), buttons.Leave())],
        ai_row,
        *([removals] if removals else []),
        [button(_("Start"), buttons.Start()), button(_("Cancel"), buttons.Cancel())],
    ]
    if app:
        rows.append([open_app_button(chat_id, lobby.lobby_id, tr)])
    if settings.teams:
        rows.insert(
            1,
            [button(team_name(0, tr), buttons.PickTeam(0)), button(team_name(1, tr), buttons.PickTeam(1))],
        )
    return message(lines, rows)


def not_rated_text(tr: Translator) -> str:
    """Said under a lobby and a result whose game compares no two people (`bot.ratings.compares_people`)."""
    # TRANSLATORS: under a result or a lobby of one person with AI seats: the game will not change ratings
    return tr._("Not rated: ratings count only games of people against people.")


def team_name(team: int | None, tr: Translator) -> str:
    return tr._("Team A") if team == 0 else tr._("Team B")

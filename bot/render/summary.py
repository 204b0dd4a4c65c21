"""Game over, the standings, and help: the public messages that are not the live table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.buttons import Rematch, Replay, ShowDeal
from bot.effects import Button, Line, Message
from bot.i18n import Translator
from bot.names import shown_name
from bot.payloads import Payload
from bot.ratings import PROVISIONAL_GAMES, Change, ordinal
from bot.render.lobby import not_rated_text, seat_name
from bot.render.text import bold, card, line, message, mono
from bot.session import Seat
from core import Result
from core.commitment import PREFIX, short
from storage.models import PlayerStats


class HelpLine(Protocol):
    """A command as /help lists it (`bot.commands.table.CommandSpec` is one)."""

    @property
    def usage(self) -> str: ...

    @property
    def help(self) -> str: ...

    @property
    def in_help(self) -> bool: ...


def render_result(
    result: Result,
    seats: list[Seat],
    points: list[int],
    chat_id: str,
    game_id: str,
    tr: Translator,
    changes: Sequence[Change | None] = (),
    replay: bool = False,
    unrated: bool = False,
    deal: RevealedSeal | None = None,
) -> Message:
    """The result in a few lines: the headline, then everyone's place with their points and how much their
    rating moved, then the sealed deal as one line saying how to check it; Rematch, The deal (its order, to
    whoever asks, in private: never engine codes in the group) and, where the chat's platform has the web
    app (`Context.opens_app`), Replay. ``unrated``: the game compared no two people
    (`bot.ratings.compares_people`), which is said, so nobody wonders where their rating went."""
    _ = tr._
    names = [seat_name(s, tr) for s in seats]
    if result.draw:
        headline = _("Game over: a draw, nobody is the durak.")
        if result.reason == "repetition":
            headline = _("Game over: a draw, the same position came back with nothing discarded.")
    elif result.reason == "surrender":
        headline = _("Game over: {who} surrendered and is the durak.").format(who=names[result.durak or 0])
    else:
        headline = _("Game over: {who} is the durak!").format(who=names[result.durak or 0])
    lines = [line(bold(headline))]
    placed = [*result.order_out, *(seat for seat in range(len(seats)) if seat not in result.order_out)]
    for place, seat in enumerate(placed, start=1):
        change = changes[seat] if seat < len(changes) else None
        lines.append(line(place_text(place, names[seat], points[seat], seat == result.durak, change, tr)))
    if result.reason == "surrender" and len(result.order_out) > 1:  # rules.md §7.7: more than a winner
        lines.append(line(_("Players still holding cards are placed by how many they held, fewest first.")))
    if unrated and not any(change is not None for change in changes):
        lines.append(line(not_rated_text(tr)))
    if deal is not None:
        lines.append(line(deal_line(deal, game_id, tr)))
    row = [Button(_("Rematch"), Payload(chat_id, game_id, 0, Rematch()).encode())]
    if deal is not None:
        # TRANSLATORS: button under a game's result: sends the presser the deck's order as sealed at the start
        row.append(Button(_("The deal"), Payload(chat_id, game_id, 0, ShowDeal()).encode()))
    if replay:
        # TRANSLATORS: button under a game's result: opens the game step by step, every hand shown
        row.append(Button(_("Replay"), Payload(chat_id, game_id, 0, Replay()).encode(), opens_app=True))
    return message(lines, [row])


def place_text(place: int, name: str, points: int, durak: bool, change: Change | None, tr: Translator) -> str:
    """ "1. Ann (+3) · rating +1.2", "2. Bob, the durak · rating −0.8": a place, and how much the game moved
    its rating (where a rating stands is /stats's and /me's: after a first game it is near 0 or below,
    which reads as a penalty here)."""
    _ = tr._
    text = f"{place}. {name}"
    if points:
        text += f" (+{points})"
    if durak:
        # TRANSLATORS: after the durak's name in the result's list of places
        text += _(", the durak")
    if change is not None:
        # TRANSLATORS: how much a game moved a person's rating: "rating +1.2", "rating −0.8"
        text += " · " + _("rating {change}").format(change=signed(change.delta))
    return text


def signed(value: float) -> str:
    """+1.2, −0.8 (a minus sign, not a hyphen)."""
    return f"{value:+.1f}".replace("-", "−")


@dataclass(frozen=True, slots=True)
class RevealedSeal:
    """A finished game's deal as its result reveals it (`core.commitment`, docs/fairness.md)."""

    commitment: str
    salt: str
    order: str


def deal_line(deal: RevealedSeal, game_id: str, tr: Translator) -> str:
    """The seal shown at the start, and how anyone checks it: one line, no cards."""
    # TRANSLATORS: under a result; {seal} is the hash shown on the table from the start, {game} the game's id
    return tr._(
        "The deal was sealed at the start ({seal}): check it on the replay, or with durak-bot verify {game}."
    ).format(seal=short(deal.commitment), game=game_id)


def deal_message(deal: RevealedSeal, game_id: str, tr: Translator) -> Message:
    """The revealed deal for whoever asked ("The deal"): the order in cards, and how to check it by hand."""
    _ = tr._
    heading = _("The deal sealed at the start ({seal}), first card dealt first:").format(
        seal=short(deal.commitment)
    )
    by_hand = _("To check it by hand: the SHA-256 of the text below is the seal shown at the start.")
    by_bot = _("Or let the bot check it: durak-bot verify {game}, or the replay.").format(game=game_id)
    cards_dealt = " ".join(card(code) for code in deal.order.split())
    return message(
        [
            line(bold(heading)),
            line(cards_dealt),
            line(by_hand),
            line(mono(f"{PREFIX}|{deal.salt}|{deal.order}")),
            line(by_bot),
        ]
    )


def render_stats(
    stats: Sequence[PlayerStats],
    tr: Translator,
    most_often_durak: Sequence[PlayerStats] = (),
    season: int = 1,
) -> Message:
    """The season's standings. Rated players by rating (the ordinal, mu - 3 sigma), those with fewer than
    `PROVISIONAL_GAMES` rated games listed apart as provisional; players whose games all predate ratings in
    the old order (most points first, then fewer duraks, more games, more first-outs). Every row keeps its
    durak count, and the players most often the durak get a line of their own, so the loser is never read
    as the one on top; a row ends with the games the AI played to the end for that player, if any (rules.md
    §9.6), so nobody reads those as theirs."""
    _ = tr._
    if not stats:
        if season > 1:
            return message([line(_("No games played in season {n} yet.").format(n=season))])
        return message([line(_("No games played in this chat yet."))])
    lines = []
    established = sorted(
        (row for row in stats if row.rated >= PROVISIONAL_GAMES), key=lambda row: row.rating_standing
    )
    provisional = sorted(
        (row for row in stats if 0 < row.rated < PROVISIONAL_GAMES), key=lambda row: row.rating_standing
    )
    unrated = sorted((row for row in stats if not row.rated), key=lambda row: row.standing)
    if established or provisional:
        title = _("Standings by rating") if season == 1 else _("Standings by rating, season {n}")
        lines.append(line(bold(title.format(n=season))))
        lines += [rated_row(f"{number}. ", row, tr) for number, row in enumerate(established, start=1)]
    if provisional:
        # TRANSLATORS: /stats: players with few rated games, listed apart below the standings
        lines.append(line(tr.n_("Provisional (fewer than {n} game):", "Provisional (fewer than {n} games):",
                                PROVISIONAL_GAMES).format(n=PROVISIONAL_GAMES)))  # fmt: skip
        lines += [rated_row("· ", row, tr) for row in provisional]
    if unrated:
        title = _("Standings (most points first)") if not lines else _("Not rated yet (most points first)")
        lines.append(line(bold(title)))
    for number, row in enumerate(unrated, start=1):
        detail = " · ".join(
            (
                # TRANSLATORS: standings: points (short)
                tr.n_("{n} pt", "{n} pts", row.points).format(n=row.points),
                durak_count(row, tr),
                tr.n_("{n} game", "{n} games", row.games).format(n=row.games),
                # TRANSLATORS: standings: in how many games this player got rid of their cards first
                tr.n_("{n} first out", "{n} first out", row.first_out).format(n=row.first_out),
                *ai_finished(row, tr),
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


def rated_row(lead: str, row: PlayerStats, tr: Translator) -> Line:
    """A rated row, "1. Ann — 27.3 · 12 games · durak: 3 times · 20 pts": the rating first, as rows rank
    by it."""
    assert row.rating is not None
    games = tr.n_("{n} game", "{n} games", row.games).format(n=row.games)
    points = tr.n_("{n} pt", "{n} pts", row.points).format(n=row.points)
    detail = " · ".join(
        (shown_rating(ordinal(row.rating)), games, durak_count(row, tr), points, *ai_finished(row, tr))
    )
    return line(lead, bold(display_name(row, tr)), " — ", detail)


def ai_finished(row: PlayerStats, tr: Translator) -> tuple[str, ...]:
    """The mark of a row whose games include seats the AI played to the end for them (rules.md §9.6), so
    nobody reads their games as won by them; nothing for anyone else."""
    if not row.ai_finished:
        return ()
    # TRANSLATORS: standings: games whose seat the AI played to its end after this player's timeouts; they
    # count as played, with no points and no win
    text = tr.n_(
        "{n} game played by the AI for {name}", "{n} games played by the AI for {name}", row.ai_finished
    )
    return (text.format(n=row.ai_finished, name=display_name(row, tr)),)


def shown_rating(value: float) -> str:
    """A rating as shown: one decimal, a true minus sign."""
    return f"{value:.1f}".replace("-", "−")


def durak_count(row: PlayerStats, tr: Translator) -> str:
    # TRANSLATORS: standings: how many games this player lost (was the durak)
    return tr.n_("durak: {n} time", "durak: {n} times", row.durak).format(n=row.durak)


def display_name(row: PlayerStats, tr: Translator) -> str:
    return shown_name(row.name) or tr._("Player")  # rows may predate the cleaning of names on entry


def render_help(commands: Sequence[HelpLine], accepted_words: str, tr: Translator) -> Message:
    """One line per command of the table (`bot.commands.table`) that /help lists, then the rules words."""
    _ = tr._
    lines = [line(bold(_("Durak bot")))]
    lines.extend(line(bold(spec.usage), " — ", tr.declared(spec.help)) for spec in commands if spec.in_help)
    lines.append(line(_("Words: {words}").format(words=accepted_words)))
    return message(lines)

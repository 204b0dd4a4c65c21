"""`/me`: one person's record in one chat, shown to them only."""

from __future__ import annotations

from bot.effects import Line, Message
from bot.i18n import Translator
from bot.names import shown_name
from bot.ratings import PROVISIONAL_GAMES, ordinal
from bot.render.summary import shown_rating
from bot.render.text import bold, line, message
from storage.models import PersonalRecord, Rival

SPARKS = "▁▂▃▄▅▆▇█"


def render_me(record: PersonalRecord, chat_title: str, season: int, tr: Translator) -> Message:
    """Games, durak and first-out rates, the rating and its trend, the streak, and the opponents met most
    successfully and least: those who were the durak most often against this player, and the other way."""
    _ = tr._
    where = shown_name(chat_title)
    if where:
        title = _("Your record in {chat}") if season == 1 else _("Your record in {chat}, season {n}")
    else:
        title = _("Your record in this chat") if season == 1 else _("Your record in this chat, season {n}")
    lines = [line(bold(title.format(chat=where, n=season)))]
    stats = record.stats
    if not stats.games:
        lines.append(line(_("You have not played here yet.")))
        return message(lines)
    games = tr.n_("{n} game", "{n} games", stats.games).format(n=stats.games)
    # TRANSLATORS: /me: how many games, and in what share of them you were the durak / got out first
    rates = _("{games} · the durak in {durak}% · first out in {first}%")
    lines.append(line(rates.format(games=games, durak=percent(stats.durak, stats.games),
                                   first=percent(stats.first_out, stats.games))))  # fmt: skip
    lines += rating_lines(record, tr)
    if stats.streak > 0:
        text = tr.n_("Streak: {n} game without being the durak", "Streak: {n} games without being the durak",
                     stats.streak)  # fmt: skip
        lines.append(line(text.format(n=stats.streak)))
    elif stats.streak < 0:
        text = tr.n_(
            "Streak: the durak {n} game in a row", "Streak: the durak {n} games in a row", -stats.streak
        )
        lines.append(line(text.format(n=-stats.streak)))
    lines += rival_lines(record.rivals, tr)
    return message(lines)


def rating_lines(record: PersonalRecord, tr: Translator) -> list[Line]:
    _ = tr._
    stats = record.stats
    if stats.rating is None:
        return [line(_("Rating: not rated yet"))]
    shown = shown_rating(ordinal(stats.rating))
    if stats.rated < PROVISIONAL_GAMES:
        lines = [line(_("Rating: {rating} (provisional)").format(rating=shown))]
    else:
        lines = [line(_("Rating: {rating}").format(rating=shown))]
    if len(record.trend) > 1:
        moved = f"{record.trend[-1] - record.trend[0]:+.1f}".replace("-", "−")
        text = tr.n_(
            "Last {n} game: {trend} ({change})", "Last {n} games: {trend} ({change})", len(record.trend)
        )
        lines.append(line(text.format(n=len(record.trend), trend=sparkline(record.trend), change=moved)))
    return lines


def rival_lines(rivals: list[Rival], tr: Translator) -> list[Line]:
    """The best opponent (made the durak most often, net of the other way round) and the toughest."""
    lines = []
    best = max(rivals, key=lambda r: (r.won - r.lost, r.won), default=None)
    toughest = min(rivals, key=lambda r: (r.won - r.lost, -r.lost), default=None)
    if best is not None and best.won > best.lost:
        # TRANSLATORS: /me: the opponent who was the durak most often in games with you (net of you being it)
        text = tr.n_("Best opponent: {name} (the durak {n} time, you {lost})",
                     "Best opponent: {name} (the durak {n} times, you {lost})", best.won)  # fmt: skip
        lines.append(line(text.format(name=rival_name(best, tr), n=best.won, lost=best.lost)))
    if toughest is not None and toughest.lost > toughest.won:
        text = tr.n_("Toughest opponent: {name} (you the durak {n} time, they {won})",
                     "Toughest opponent: {name} (you the durak {n} times, they {won})", toughest.lost)  # fmt: skip
        lines.append(line(text.format(name=rival_name(toughest, tr), n=toughest.lost, won=toughest.won)))
    return lines


def rival_name(rival: Rival, tr: Translator) -> str:
    return shown_name(rival.name) or tr._("Player")


def percent(part: int, whole: int) -> int:
    return round(100 * part / whole) if whole else 0


def sparkline(values: list[float]) -> str:
    """The trend drawn in block characters, lowest to highest of the values shown."""
    low, high = min(values), max(values)
    if high - low < 0.05:
        return SPARKS[len(SPARKS) // 2] * len(values)
    return "".join(SPARKS[round((value - low) / (high - low) * (len(SPARKS) - 1))] for value in values)

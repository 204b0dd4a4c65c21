"""The rules in force, in plain words: for the lobby message and `/rules`."""

from __future__ import annotations

from bot.effects import Line, Message
from bot.i18n import Translator
from bot.render.text import bold, line, message
from core import Settings, SettingsError


def mode_name(settings: Settings, tr: Translator) -> str:
    """The game's name as the lobby gives it: classic (podkidnoy) or transfer (perevodnoy)."""
    return tr._("Transfer (perevodnoy)") if settings.transfer else tr._("Classic (podkidnoy)")


def rules_in_short(settings: Settings, tr: Translator) -> list[str]:
    """The mode and each rule that differs from the defaults, a few words each: for the table's header, where
    the lobby's sentences would not fit. The turn's length is on the table's status line, so only "no turn
    timer" is said here."""
    _ = tr._
    parts = [mode_name(settings, tr)]
    if settings.deck != 36:
        parts.append(tr.n_("{n} card deck", "{n} card deck", settings.deck).format(n=settings.deck))
    if settings.throw_in == "neighbours":
        # TRANSLATORS: table header, short for: only the defender's neighbours may throw in
        parts.append(_("neighbours throw in"))
    elif settings.throw_in == "auto":
        # TRANSLATORS: table header, short for: with 5 or more players only the defender's neighbours throw in
        parts.append(_("neighbours throw in from 5 players"))
    if settings.first5:
        # TRANSLATORS: table header, short for: the first bout holds at most 5 attack cards
        parts.append(_("first bout: 5 cards"))
    if settings.exchange == "lowest":
        # TRANSLATORS: table header, short for: the lowest trump may be swapped for the turned-up trump
        parts.append(_("trump exchange"))
    elif settings.exchange == "ace":
        parts.append(_("trump exchange for the ace"))
    if settings.opener == "durak_right":
        parts.append(_("the player right of the durak opens"))
    elif settings.opener == "lowest":
        parts.append(_("the lowest trump opens"))
    if not settings.timer:
        parts.append(_("no turn timer"))
    if settings.teams:
        parts.append(_("teams"))
    if settings.severny:
        # TRANSLATORS: table header: the Severny variant (the last card of the talon changes trumps)
        parts.append(_("Severny"))
    if settings.scoring == "winner":
        # TRANSLATORS: table header, short for: the first player out takes all the points
        parts.append(_("the first out takes all points"))
    return parts


def rule_lines(settings: Settings, tr: Translator) -> list[Line]:
    _ = tr._
    lines: list[Line] = []
    mode = mode_name(settings, tr)
    lines.append(
        line(
            bold(mode), " · ", tr.n_("{n} card deck", "{n} card deck", settings.deck).format(n=settings.deck)
        )
    )
    throw_in = {
        "all": _("Everyone but the defender may throw in."),
        "neighbours": _("Only the defender's two neighbours may throw in."),
        "auto": _("With 5 or more players only the defender's neighbours throw in, otherwise everyone."),
    }[settings.throw_in]
    lines.append(line(throw_in))
    if settings.transfer:
        lines.append(
            line(
                _("The defender may pass the attack on with a card of the same rank until a card is covered.")
            )
        )
    if settings.first5:
        lines.append(line(_("The first bout holds at most 5 attack cards.")))
    if settings.exchange == "lowest":
        lines.append(
            line(_("The lowest trump may be swapped for the turned-up trump while it lies under the talon."))
        )
    elif settings.exchange == "ace":
        lines.append(
            line(_("The lowest trump may be swapped for the turned-up trump when that card is the ace."))
        )
    opener = {
        "durak_left": _("Next game: the player left of the durak attacks first."),
        "durak_right": _("Next game: the player right of the durak attacks first."),
        "lowest": _("Every game: the lowest trump attacks first."),
    }[settings.opener]
    lines.append(line(opener))
    if settings.timer:
        lines.append(
            line(
                tr.n_("{n} second per turn.", "{n} seconds per turn.", settings.timer).format(
                    n=settings.timer
                )
            )
        )
    else:
        lines.append(line(_("No turn timer.")))
    if settings.teams:
        lines.append(
            line(
                _(
                    "Teams: partners sit apart and never attack each other; the last team holding cards loses together."
                )
            )
        )
    if settings.severny:
        lines.append(
            line(_("Severny: when the last face-down card of the talon is drawn, its suit becomes trumps."))
        )
    if settings.scoring == "winner":
        lines.append(line(_("Scoring: the first player out takes all the points.")))
    return lines


def render_rules(settings: Settings, tr: Translator) -> Message:
    _ = tr._
    basics = [
        line(bold(_("Durak: get rid of your cards; the last player holding cards is the durak."))),
        line(
            _(
                "Six cards each; the turned-up card sets trumps. Beat a card with a higher one of its suit or any trump."
            )
        ),
        line(
            _(
                "Attackers may throw in cards of ranks already on the table, up to 6 and never more than the defender holds."
            )
        ),
        line(
            _(
                "The defender covers every card or takes them all. Hands refill to six from the talon after each bout."
            )
        ),
    ]
    return message([*basics, line(""), *rule_lines(settings, tr)])


def settings_problem(error: SettingsError, tr: Translator) -> str:
    """Why rule words were refused, in the reader's language (core's own message is English)."""
    _ = tr._
    d = error.details
    if error.reason == "unknown" and "suggestion" in d:
        return _("unknown word “{word}”: did you mean “{suggestion}”? Accepted: {accepted}").format(**d)
    if error.reason == "unknown":
        return _("unknown word “{word}”; accepted: {accepted}").format(**d)
    if error.reason == "conflict":
        return _("“{word}” conflicts with “{other}”: choose one of them").format(**d)
    if error.reason == "timer_word":
        return _("“{word}”: the timer takes whole seconds, 0 or {min}..{max}").format(**d)
    if error.reason == "values":
        return _("“{word}”: {key} takes {values}").format(**d)
    if error.reason == "timer_range":
        return _("the timer must be 0 (off) or {min}..{max} seconds, not {timer}").format(**d)
    if error.reason == "teams_transfer":
        return _("“transfer” is not played in team games: choose teams or transfer")
    return str(error)

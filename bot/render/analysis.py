"""A game's analysis in words (`bot.runtime.analyses`): each analysed player's chance of being the durak over
the game, and the costliest decisions ("-18%: taking here; covering with 9♠ was better"). The replay page
draws `analysis_state`; `durak-bot replay --analyse` prints `analysis_lines`."""

from __future__ import annotations

import json
from typing import Any

from bot.game.archive import seats_of
from bot.i18n import Translator, translator
from bot.render.lobby import seat_label
from bot.render.text import card
from core import Action, Kind
from core.ai.analysis import COSTLY, Analysis, Decision, costliest

SHOWN = 10  # costliest decisions listed


def percent(chance: float) -> int:
    return round(chance * 100)


def action_phrase(action: Action, tr: Translator) -> str:
    """A move as the analysis names it: "taking", "covering with 9♠"."""
    _ = tr._
    shown = card(action.card) if action.card else ""
    if action.kind is Kind.ATTACK:
        # TRANSLATORS: the analysis: a move, as in "playing 9♠ here"
        return _("playing {card}").format(card=shown)
    if action.kind is Kind.COVER:
        return _("covering with {card}").format(card=shown)
    if action.kind is Kind.TRANSFER:
        return _("transferring with {card}").format(card=shown)
    if action.kind is Kind.TAKE:
        return _("taking")
    if action.kind is Kind.PASS:
        # TRANSLATORS: the analysis: an attacker throwing in nothing more
        return _("passing")
    if action.kind is Kind.EXCHANGE:
        return _("swapping for the trump card")
    return action.code


def costly_text(decision: Decision, tr: Translator) -> str:
    """ "-18%: taking here; covering with 9♠ was better"."""
    # TRANSLATORS: the analysis: {cost} is the rise of the chance of being the durak, as "-18%"; {played}
    # and {best} are moves such as "taking" and "covering with 9♠"
    return tr._("{cost}: {played} here; {best} was better").format(
        cost=f"-{percent(decision.cost)}%",
        played=action_phrase(decision.played, tr),
        best=action_phrase(decision.best, tr),
    )


def analysis_state(record: str, analysis: Analysis, lang: str) -> dict[str, Any]:
    """What the replay page draws: per analysed player, their durak chance after each of their decisions
    (step, percent) and how many were costly; the costliest decisions with their text; the page's words."""
    tr = translator(lang)
    seats = seats_of(json.loads(record))
    names = [seat_label(seat.name, seat.ai, tr) for seat in seats]
    players = []
    for seat in analysis.seats:
        own = [d for d in analysis.decisions if d.seat == seat]
        players.append(
            {
                "seat": seat,
                "name": names[seat],
                "series": [[d.step, percent(d.played_durak)] for d in own],
                "decisions": len(own),
                "costly": sum(d.costly for d in own),
            }
        )
    return {
        "players": players,
        "costly": [
            {
                "step": d.step,
                "seat": d.seat,
                "name": names[d.seat],
                "cost": percent(d.cost),
                "text": costly_text(d, tr),
            }
            for d in costliest(analysis.decisions, SHOWN)
        ],
        "labels": analysis_labels(tr),
    }


def analysis_lines(record: str, analysis: Analysis, lang: str) -> list[str]:
    """The analysis as the terminal prints it."""
    state = analysis_state(record, analysis, lang)
    tr = translator(lang)
    labels = state["labels"]
    lines = [labels["heading"], labels["explained"]]
    for player in state["players"]:
        chances = " ".join(str(chance) for _step, chance in player["series"])
        lines.append(
            labels["summary"].format(name=player["name"], n=player["decisions"], costly=player["costly"])
        )
        if chances:
            lines.append("  " + tr._("Chance of being the durak (%) after each decision:") + " " + chances)
    lines.append("")
    lines.append(labels["costliest"])
    if not state["costly"]:
        lines.append(labels["none"])
    for decision in state["costly"]:
        step = tr._("Step {n}").format(n=decision["step"])
        lines.append(f"{step} · {decision['name']}: {decision['text']}")
    return lines


def analysis_labels(tr: Translator) -> dict[str, str]:
    _ = tr._
    return {
        # TRANSLATORS: the replay page: the heading of the game's analysis by the hard AI
        "heading": _("Analysis"),
        "explained": _(
            "The hard AI's chance of being the durak after each decision, from the player's own view at that "
            "moment (their cards and what they had seen, never the hidden cards)."
        ),
        # TRANSLATORS: the analysis: {n} decisions of a player, {costly} of them cost more than 10%
        "summary": _("{name}: {n} decisions, {costly} costly (more than {threshold}%)").replace(
            "{threshold}", str(percent(COSTLY))
        ),
        "costliest": _("Costliest decisions"),
        "none": _("No decision cost more than {threshold}%.").replace("{threshold}", str(percent(COSTLY))),
        # TRANSLATORS: the analysis chart's vertical axis
        "chance": _("Chance of being the durak"),
    }

"""Words only the Discord adapter says (hand freshness, DMs, command names): msgids of the catalogs.

The game's own texts come from the service; these few are about Discord itself (ephemeral messages, direct
messages, slash commands), so they are declared beside the adapter, and translated by `bot.i18n` like every
other text (`scripts/i18n.sh` extracts them from here).
"""

from __future__ import annotations

from bot.adapter import translator


def _(text: str) -> str:
    """Marks a msgid for extraction; `say` translates it."""
    return text


def p_(context: str, text: str) -> str:
    """Marks a msgid of ``context`` for extraction (the names Discord shows: `COMMAND_NAMES`)."""
    return text


TEXTS: dict[str, str] = {
    "live_until": _("Updates here until {time} ({relative}); after that, press “{my_hand}” on the table."),
    "hand_over": _("Your game is over: this hand will not change any more."),
    "dm_me": _("Send to my DMs"),
    "no_dm": _("Show in the channel"),
    "dm_on": _("Your hand now comes by direct message in this game."),
    "dm_off": _("Your hand is shown in the channel again: press “{my_hand}”."),
    "dm_refused": _(
        "{mention}, Discord did not let me send you a direct message (privacy settings); "
        "your hand stays under “{my_hand}” here."
    ),
    "pick_card": _("Play a card…"),
    "done": _("Done."),
    "no_activity": _("The table cannot open as an Activity here: play with the buttons instead."),
    "cannot_post": _(
        "I cannot post in this channel: give me View Channel, Send Messages and Embed Links here."
    ),
}


def say(key: str, lang: str | None, **values: str) -> str:
    """The adapter's text ``key`` in ``lang`` (English for anything else); ``{my_hand}`` is filled in."""
    tr = translator(lang)
    return tr.declared(TEXTS[key]).format(my_hand=tr._("My hand"), **values)


# The /durak group's and its options' names (context "Discord command", as the subcommands' names in
# `bot.commands.table`: lowercase, 1-32 word characters) and descriptions. Each subcommand's own name and
# description are declared with its command in `bot.commands.table`.
COMMAND_NAMES = (
    p_("Discord command", "durak"),
    p_("Discord command", "words"),
    p_("Discord command", "language"),
    p_("Discord command", "season"),
)
COMMAND_DESCRIPTIONS = (
    _("Play Durak, the card game"),
    _("Rules words, e.g. transfer deck=24"),
    _("Language of the game messages"),
    _("An earlier season, e.g. 1"),
    _("Open the Durak table in this channel"),  # the Activity's Entry Point command
)

"""The ``/durak`` slash command group: one subcommand per command of `bot.commands.table` shown on Discord.

Each subcommand becomes one service `Command` (``help``'s answer gets Discord's command names).
Names and descriptions are `locale_str`; `CommandTranslator` gives Discord those of every language we speak
(`bot.i18n.LANGUAGES`: Discord's ``es-ES`` and ``es-419`` both get Spanish) when the tree is synced.
``words`` completes the last word typed from the words ``/newgame`` accepts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, Concatenate

import discord
from discord import app_commands
from discord.app_commands import locale_str as _t

from adapters.discord.texts import COMMAND_DESCRIPTIONS, COMMAND_NAMES
from bot.adapter import (
    COMMANDS,
    DEFAULT_LANGUAGE,
    DISCORD_NAME,
    LANGUAGE_NAMES,
    LANGUAGES,
    CommandSpec,
    Message,
    OnDiscord,
    Place,
    normalise_language,
    offered_in,
    translator,
)
from core.settings import TIMER_MAX, TIMER_MIN, accepted_words

Interaction = discord.Interaction[Any]
TIMER_EXAMPLES = (0, TIMER_MIN, 30, 60, 120, TIMER_MAX)


def localisations() -> dict[str, dict[str, str]]:
    """English text to its translation in each other language we speak, from the catalogs: the group's
    and options' names and descriptions, and every subcommand's from the table."""
    forms = [spec.discord for spec in offered_in(Place.DISCORD) if spec.discord is not None]
    names = [*COMMAND_NAMES, *(form.name for form in forms)]
    descriptions = [*COMMAND_DESCRIPTIONS, *(form.description for form in forms)]
    texts: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        if lang == DEFAULT_LANGUAGE:
            continue
        tr = translator(lang)
        for name in names:
            texts.setdefault(name, {})[lang] = tr.declared_in(DISCORD_NAME, name)
        for description in descriptions:
            texts.setdefault(description, {})[lang] = tr.declared(description)
    return texts


class CommandTranslator(app_commands.Translator):
    """The names and descriptions in each language we speak (`localisations`); English is the source text."""

    texts = localisations()

    @classmethod
    def in_locale(cls, english: str, locale: discord.Locale) -> str | None:
        """``english`` in the language we speak that covers Discord's ``locale`` (None: English)."""
        return cls.texts.get(english, {}).get(normalise_language(locale.value))

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContext[Any, Any],
    ) -> str | None:
        return self.in_locale(string.message, locale)


def word_choices() -> list[str]:
    """Every single word `/newgame` accepts, keyed words spelled out: ``deck=24``, ``deck=36``..."""
    words: list[str] = []
    for entry in accepted_words().split(", "):
        key, sep, values = entry.partition("=")
        if not sep:
            words.append(entry)
        elif values == "N":
            words += [f"{key}={n}" for n in TIMER_EXAMPLES]
        else:
            words += [f"{key}={value}" for value in values.split("|")]
    return words


WORDS = word_choices()


def complete(current: str) -> list[app_commands.Choice[str]]:
    """Complete the last word; the words typed before it are kept in each choice."""
    head, _, last = current.rpartition(" ")
    typed = {word.split("=")[0] for word in head.split()}
    last = last.lower()
    matches = [w for w in WORDS if w.startswith(last) and w.split("=")[0] not in typed]
    choices = []
    for word in matches[:25]:
        text = f"{head} {word}".strip()
        if len(text) <= 100:
            choices.append(app_commands.Choice(name=text, value=text))
    return choices


async def words_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    return complete(current)


def flow_of(interaction: Interaction) -> Any:
    return interaction.client.flow


def discord_name(form: OnDiscord) -> str:
    """How Discord's /help names a command: ``/durak new [words]``."""
    return " ".join([f"/durak {form.name}", *(f"[{option}]" for option in form.options)])


# The service's help names the table's commands as typed on Telegram; on Discord they are subcommands of
# /durak. Lines of commands Discord does not have (/hint: private practice chats) are left out.
DISCORD_NAMES = {spec.usage: discord_name(spec.discord) for spec in COMMANDS if spec.discord is not None}
RENAMED = {
    re.compile(rf"/{spec.name}\b"): f"/durak {spec.discord.name}"
    for spec in COMMANDS
    if spec.discord is not None and spec.discord.name != spec.name
}


def renamed(text: str) -> str:
    """A help line's text with the commands Discord names differently (``/newgame`` is ``/durak new``)."""
    for pattern, name in RENAMED.items():
        text = pattern.sub(name, text)
    return text


def discord_help(telegram_help: Message) -> Message:
    """The service's help message with Discord's command names."""
    lines = []
    for spans in telegram_help.lines:
        name = spans[0].text if spans else ""
        if name.startswith("/") and name not in DISCORD_NAMES:
            continue
        lines.append(
            tuple(replace(span, text=DISCORD_NAMES.get(span.text, renamed(span.text))) for span in spans)
        )
    return replace(telegram_help, lines=tuple(lines))


Callback = Callable[Concatenate[Interaction, ...], Coroutine[Any, Any, None]]


def callback_for(spec: CommandSpec, form: OnDiscord) -> Callback:
    """The subcommand's function, with Discord's options for the words the command takes."""
    name, public = form.name, form.public
    rewrite = discord_help if spec.lists_commands else None
    if form.options == ():

        async def plain(interaction: Interaction) -> None:
            await flow_of(interaction).command(interaction, name, public=public, rewrite=rewrite)

        return plain
    if form.options == ("words",):

        @app_commands.rename(words=_t("words"))
        @app_commands.describe(words=_t("Rules words, e.g. transfer deck=24"))
        @app_commands.autocomplete(words=words_autocomplete)
        async def with_words(interaction: Interaction, words: str = "") -> None:
            await flow_of(interaction).command(interaction, name, words, public=public, rewrite=rewrite)

        return with_words
    if form.options == ("season",):

        @app_commands.rename(season=_t("season"))
        @app_commands.describe(season=_t("An earlier season, e.g. 1"))
        async def with_season(
            interaction: Interaction, season: app_commands.Range[int, 1] | None = None
        ) -> None:
            text = f"season={season}" if season is not None else ""
            await flow_of(interaction).command(interaction, name, text, public=public, rewrite=rewrite)

        return with_season
    if form.options == ("words", "language"):

        @app_commands.rename(words=_t("words"), language=_t("language"))
        @app_commands.describe(
            words=_t("Rules words, e.g. transfer deck=24"), language=_t("Language of the game messages")
        )
        @app_commands.choices(
            language=[app_commands.Choice(name=LANGUAGE_NAMES[lang], value=lang) for lang in LANGUAGES]
        )
        @app_commands.autocomplete(words=words_autocomplete)
        async def with_language(interaction: Interaction, words: str = "", language: str = "") -> None:
            text = f"{words} lang={language}" if language else words
            await flow_of(interaction).command(interaction, name, text, public=public, rewrite=rewrite)

        return with_language
    raise ValueError(f"/{spec.name}: no Discord options {form.options}")


def build_group() -> app_commands.Group:
    """``/durak`` with one subcommand per command of the table that shows on Discord."""
    group = app_commands.Group(name=_t("durak"), description=_t("Play Durak, the card game"), guild_only=True)
    for spec in offered_in(Place.DISCORD):
        form = spec.discord
        assert form is not None  # `CommandSpec` checks it
        group.command(name=_t(form.name), description=_t(form.description))(callback_for(spec, form))
    return group


# The Activity's Entry Point command (type 4, PRIMARY_ENTRY_POINT), shown in Discord's App Launcher: handler 2
# (DISCORD_LAUNCH_ACTIVITY) has Discord open the Activity itself. Guilds and (group) DMs alike; discord.py
# has no class for it, so `DurakDiscordClient.sync_commands` uploads it beside the tree's commands.
ENTRY_POINT_NAME = "launch"


ENTRY_POINT_DESCRIPTION = COMMAND_DESCRIPTIONS[-1]


def discord_localisations(english: str) -> dict[str, str]:
    """``english`` in each Discord locale a language we speak covers, keyed by Discord's locale ("es-ES" and
    "es-419" both Spanish): the form of a raw command's ``*_localizations``, which Discord refuses with any
    other key (a bare "es")."""
    by_locale = {locale.value: CommandTranslator.in_locale(english, locale) for locale in discord.Locale}
    return {locale: text for locale, text in by_locale.items() if text is not None}


def entry_point_command() -> dict[str, Any]:
    return {
        "name": ENTRY_POINT_NAME,
        "type": 4,
        "handler": 2,
        "description": ENTRY_POINT_DESCRIPTION,
        "description_localizations": discord_localisations(ENTRY_POINT_DESCRIPTION),
        "integration_types": [0, 1],  # guild install, user install
        "contexts": [0, 1, 2],  # guild channels, the bot's DMs, group DMs
    }


async def install(tree: app_commands.CommandTree[Any]) -> None:
    """Put ``/durak`` and its translator on a tree (the running bot's, or the one `sync` uploads)."""
    await tree.set_translator(CommandTranslator())
    tree.add_command(build_group())

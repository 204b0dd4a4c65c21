"""The ``/durak`` slash command group: new, join, leave, start, cancel, stats, rules, settings, help.

Each subcommand becomes one service `Command` (``help``'s answer gets Discord's command names).
Names and descriptions are `locale_str`; `CommandTranslator` gives Discord the Russian and Italian ones
when the tree is synced. ``words`` completes the last word typed from the words ``/newgame`` accepts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _t

from adapters.discord.texts import COMMAND_TEXTS
from bot.effects import Message
from bot.i18n import LANGUAGES
from core.settings import TIMER_MAX, TIMER_MIN, accepted_words

Interaction = discord.Interaction[Any]
TIMER_EXAMPLES = (0, TIMER_MIN, 30, 60, 120, TIMER_MAX)
LANGUAGE_NAMES = {"en": "English", "ru": "Русский", "it": "Italiano"}


class CommandTranslator(app_commands.Translator):
    """Russian and Italian names and descriptions from `COMMAND_TEXTS`; English is the source text."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContext[Any, Any],
    ) -> str | None:
        return COMMAND_TEXTS.get(string.message, {}).get(locale.value.split("-")[0])


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


# The service's help names Telegram's commands; on Discord they are subcommands of /durak. Lines of
# commands Discord does not have (/hint: private practice chats) are left out.
DISCORD_NAMES = {
    "/newgame [words]": "/durak new [words]",
    "/join": "/durak join",
    "/leave": "/durak leave",
    "/start": "/durak start",
    "/cancel": "/durak cancel",
    "/rules": "/durak rules",
    "/settings [words]": "/durak settings [words] [language]",
    "/stats": "/durak stats",
}


def discord_help(telegram_help: Message) -> Message:
    """The service's help message with Discord's command names."""
    lines = []
    for spans in telegram_help.lines:
        name = spans[0].text if spans else ""
        if name.startswith("/") and name not in DISCORD_NAMES:
            continue
        lines.append(
            tuple(
                replace(span, text=DISCORD_NAMES.get(span.text, span.text.replace("/newgame", "/durak new")))
                for span in spans
            )
        )
    return replace(telegram_help, lines=tuple(lines))


def build_group() -> app_commands.Group:
    group = app_commands.Group(name=_t("durak"), description=_t("Play Durak, the card game"), guild_only=True)

    @group.command(name=_t("new"), description=_t("Open a lobby for a new game"))
    @app_commands.rename(words=_t("words"))
    @app_commands.describe(words=_t("Rules words, e.g. transfer deck=24"))
    @app_commands.autocomplete(words=words_autocomplete)
    async def new(interaction: Interaction, words: str = "") -> None:
        await flow_of(interaction).command(interaction, "new", words)

    @group.command(name=_t("join"), description=_t("Join the open lobby"))
    async def join(interaction: Interaction) -> None:
        await flow_of(interaction).command(interaction, "join")

    @group.command(name=_t("leave"), description=_t("Leave the lobby; during a game: surrender"))
    async def leave(interaction: Interaction) -> None:
        await flow_of(interaction).command(interaction, "leave")

    @group.command(name=_t("start"), description=_t("Start the game"))
    async def start(interaction: Interaction) -> None:
        await flow_of(interaction).command(interaction, "start")

    @group.command(name=_t("cancel"), description=_t("Close the lobby or stop the game (creator or admin)"))
    async def cancel(interaction: Interaction) -> None:
        await flow_of(interaction).command(interaction, "cancel")

    @group.command(name=_t("stats"), description=_t("The leaderboard of this channel"))
    async def stats(interaction: Interaction) -> None:
        await flow_of(interaction).command(interaction, "stats", public=True)

    @group.command(name=_t("rules"), description=_t("The rules in force"))
    async def rules(interaction: Interaction) -> None:
        await flow_of(interaction).command(interaction, "rules")

    @group.command(
        name=_t("settings"), description=_t("This channel's default rules and language (admins change them)")
    )
    @app_commands.rename(words=_t("words"), language=_t("language"))
    @app_commands.describe(
        words=_t("Rules words, e.g. transfer deck=24"), language=_t("Language of the game messages")
    )
    @app_commands.choices(
        language=[app_commands.Choice(name=LANGUAGE_NAMES[lang], value=lang) for lang in LANGUAGES]
    )
    @app_commands.autocomplete(words=words_autocomplete)
    async def settings(interaction: Interaction, words: str = "", language: str = "") -> None:
        text = f"{words} lang={language}" if language else words
        await flow_of(interaction).command(interaction, "settings", text)

    @group.command(name=_t("help"), description=_t("How to play with this bot"))
    async def help_(interaction: Interaction) -> None:
        await flow_of(interaction).command(interaction, "help", rewrite=discord_help)

    return group


async def install(tree: app_commands.CommandTree[Any]) -> None:
    """Put ``/durak`` and its translator on a tree (the running bot's, or the one `sync` uploads)."""
    await tree.set_translator(CommandTranslator())
    tree.add_command(build_group())

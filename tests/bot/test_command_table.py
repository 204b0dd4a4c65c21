"""One command table (`bot.commands.table`): every command is offered exactly where the table says, on every
platform, and nothing is offered anywhere that the table does not hold."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from adapters.discord.texts import COMMAND_DESCRIPTIONS, COMMAND_NAMES
from adapters.local.reading import SlashCommand, interpret
from adapters.local.terminal import help_text
from bot.commands.handlers import HANDLERS, handler_for
from bot.commands.table import COMMANDS, DISCORD_NAME, CommandSpec, Place, Who, command_named, offered_in
from bot.effects import Effect, Reply
from bot.i18n import LANGUAGES, translator
from bot.inputs import Command, Input, User
from bot.service import GameService
from storage.store import RedisGameStore
from tests.bot.conftest import ANN
from tests.bot.harness import Harness
from tests.discord.table import Table
from tests.fakes.discord_gateway import FakeDiscord, running_fake_discord
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_fixture import telegram_api  # noqa: F401  (the fake Telegram server)
from tests.telegram.world import World

TELEGRAM_LANGUAGES = ("", "ru", "it", "uk", "de", "es", "pl", "cs")  # "": every other language, English


@pytest.fixture
async def world(telegram_api: FakeTelegram, fake_redis: object) -> AsyncIterator[World]:  # noqa: F811
    started = World(telegram_api, fake_redis)
    await started.start()
    yield started
    await started.stop()


@pytest.fixture
async def discord(fake_redis: object) -> AsyncIterator[Table]:
    async with running_fake_discord() as fake:
        table = Table(fake, RedisGameStore(fake_redis))  # type: ignore[arg-type]
        await table.start()
        yield table


def received_commands(service: GameService) -> list[str]:
    """Spy on the service: the names of the commands it is handed, in order."""
    names: list[str] = []
    handle = service.handle

    async def spy(event: Input) -> list[Effect]:
        if isinstance(event, Command):
            names.append(event.name)
        return await handle(event)

    service.handle = spy  # type: ignore[method-assign]
    return names


def reply_text(effects: list[Effect]) -> str:
    return "\n".join(
        "".join(span.text for span in spans)
        for effect in effects
        if isinstance(effect, Reply)
        for spans in effect.message.lines
    )


def test_every_name_and_alias_belongs_to_one_command() -> None:
    names = [name for spec in COMMANDS for name in spec.names]
    assert len(names) == len(set(names))
    for spec in COMMANDS:
        assert all(command_named(name.upper()) is spec for name in spec.names)


def test_a_command_is_a_discord_subcommand_exactly_when_it_shows_on_discord() -> None:
    assert all((Place.DISCORD in spec.places) == (spec.discord is not None) for spec in COMMANDS)
    with pytest.raises(ValueError):
        CommandSpec("dance", "dance", places=frozenset({Place.DISCORD}))


def test_every_command_of_the_table_has_one_handler_and_every_handler_a_command() -> None:
    assert set(HANDLERS) == {spec.name for spec in COMMANDS}
    assert all(handler_for(name.upper()) is HANDLERS[spec.name] for spec in COMMANDS for name in spec.names)


# ---- the service -----------------------------------------------------------------------------------


async def test_the_service_answers_every_name_and_alias_of_the_table_and_no_other(harness: Harness) -> None:
    for spec in COMMANDS:
        for name in spec.names:
            answer = reply_text(await harness.command(ANN, name, private=True))
            assert "Unknown command" not in answer, name
    assert "Unknown command. Try /help." in reply_text(await harness.command(ANN, "tango"))


async def test_help_lists_every_command_of_the_table_that_help_lists_and_nothing_else(
    harness: Harness,
) -> None:
    for lang in LANGUAGES:
        tr = translator(lang)
        help_lines = reply_text(await harness.command(User("1", "Ann", lang), "help")).splitlines()
        listed = [text for text in help_lines if text.startswith("/")]
        assert listed == [f"{spec.usage} — {tr.declared(spec.help)}" for spec in COMMANDS if spec.in_help]


# ---- Telegram ----------------------------------------------------------------------------------------


async def test_telegram_publishes_the_tables_telegram_commands_in_every_language(world: World) -> None:
    for lang in TELEGRAM_LANGUAGES:
        tr = translator(lang or "en")
        menu = [(c["command"], c["description"]) for c in world.fake.commands_for(lang)]
        assert menu == [(spec.name, tr.declared(spec.help)) for spec in offered_in(Place.TELEGRAM)]
    assert {lang for _scope, lang in world.fake.commands} == set(TELEGRAM_LANGUAGES)


async def test_telegram_hands_every_table_command_to_the_service_and_asks_for_admins_only_where_it_says(
    world: World,
) -> None:
    ann = world.person("Ann")
    group = world.fake.add_group("Club", [ann], owner=ann)
    received = received_commands(world.service)
    asked_by: dict[str, int] = {}
    for spec in offered_in(Place.TELEGRAM):
        asked_before = sum(call.method == "getChatMember" for call in world.fake.call_log)
        await world.say(group, ann, f"/{spec.name}")
        assert received[-1:] == [spec.name]
        asked_by[spec.name] = (
            sum(call.method == "getChatMember" for call in world.fake.call_log) - asked_before
        )
    admin_commands = [spec.name for spec in offered_in(Place.TELEGRAM) if spec.who is Who.ADMIN]
    assert admin_commands and asked_by[admin_commands[0]] == 1  # then Ann's status is known for a minute
    assert sum(asked_by.values()) == 1, asked_by  # never for a command anyone may use
    heard = len(received)
    for name in ("tango", "new"):  # not a command, and an alias Telegram never listened to
        await world.say(group, ann, f"/{name}")
    assert len(received) == heard


# ---- Discord -----------------------------------------------------------------------------------------


def synced_subcommands(fake: FakeDiscord) -> dict[str, dict[str, Any]]:
    ((_guild, (durak,)),) = fake.command_syncs
    return {option["name"]: option for option in durak["options"]}


def discord_locales() -> dict[str, str]:
    """Each Discord locale a language we speak serves, and that language: Discord's es-ES and es-419 are both
    Spanish."""
    import discord

    spoken = [lang for lang in LANGUAGES if lang != "en"]
    return {loc.value: loc.value.split("-")[0] for loc in discord.Locale if loc.value.split("-")[0] in spoken}


async def test_discord_syncs_one_subcommand_per_table_command_in_every_language_we_speak(
    discord: Table,
) -> None:
    synced = synced_subcommands(discord.fake)
    forms = [spec.discord for spec in offered_in(Place.DISCORD) if spec.discord is not None]
    assert list(synced) == [form.name for form in forms]
    for form in forms:
        option = synced[form.name]
        assert option["description"] == form.description
        assert option["name_localizations"] == {
            locale: translator(lang).declared_in(DISCORD_NAME, form.name)
            for locale, lang in discord_locales().items()
        }
        assert option["description_localizations"] == {
            locale: translator(lang).declared(form.description) for locale, lang in discord_locales().items()
        }
        assert [o["name"] for o in option.get("options", [])] == list(form.options)


DISCORD_NAME_PATTERN = re.compile(r"^[-_\w]{1,32}$")  # Discord's rule for command and option names


def test_every_name_discord_shows_is_translated_from_the_catalogs_and_valid_in_each_language() -> None:
    names = [*COMMAND_NAMES, *(spec.discord.name for spec in offered_in(Place.DISCORD) if spec.discord)]
    for lang in [lang for lang in LANGUAGES if lang != "en"]:
        for name in names:
            shown = translator(lang).declared_in(DISCORD_NAME, name)
            assert DISCORD_NAME_PATTERN.match(shown) and shown == shown.lower(), f"{lang}: {shown!r}"
        for description in [
            *COMMAND_DESCRIPTIONS,
            *(spec.discord.description for spec in offered_in(Place.DISCORD) if spec.discord),
        ]:
            assert 1 <= len(translator(lang).declared(description)) <= 100
    assert translator("ru").declared_in(DISCORD_NAME, "new") == "новая"  # from the catalog, not the msgid


async def test_every_discord_subcommand_reaches_the_service_as_its_command(discord: Table) -> None:
    assert discord.client is not None
    received = received_commands(discord.client.flow.service)
    ann = discord.fake.add_user("Ann")
    for spec in offered_in(Place.DISCORD):
        assert spec.discord is not None
        await discord.slash(ann, spec.discord.name)
        assert command_named(received[-1]) is spec


# ---- the terminal --------------------------------------------------------------------------------------


def test_the_terminal_help_lists_exactly_the_tables_terminal_commands() -> None:
    for lang in LANGUAGES:
        tr = translator(lang)
        lines = help_text(tr).splitlines()
        listed = [text for text in lines if text.startswith("/")]
        assert listed == [f"{spec.usage} — {tr.declared(spec.help)}" for spec in offered_in(Place.TERMINAL)]


def test_the_terminal_sends_every_typed_command_of_the_table_to_the_service() -> None:
    tr = translator("en")
    for spec in COMMANDS:
        for name in spec.names:
            assert interpret(f"/{name} transfer", [], tr) == SlashCommand(name, "transfer")

"""The ``/durak`` group: synced on request with its names in every language we speak, autocomplete, each
subcommand."""

from __future__ import annotations

import asyncio

import discord

from adapters.discord.__main__ import sync
from adapters.discord.app import DiscordSettings, DurakDiscordClient
from adapters.discord.commands import WORDS, complete
from bot.commands.table import Place, offered_in
from bot.context import ServiceConfig
from bot.i18n import TRANSLATED, normalise_language
from bot.service import GameService
from core import Settings
from storage.store import RedisGameStore
from tests.discord.table import Table, labels_of, text_of
from tests.fakes.discord_gateway import FakeDiscord

SUBCOMMANDS = {spec.discord.name for spec in offered_in(Place.DISCORD) if spec.discord is not None}
# Discord's locales that a language we speak covers: "es-ES" and "es-419" are both Spanish
OUR_LOCALES = {locale.value for locale in discord.Locale if normalise_language(locale.value) in TRANSLATED}


async def test_the_group_is_synced_once_with_every_subcommand_localised_in_every_language_we_speak(
    table: Table,
) -> None:
    ((guild, (durak,)),) = table.fake.command_syncs
    assert guild is None and durak["name"] == "durak"
    assert {"ru", "it", "uk", "de", "es-ES", "es-419", "pl", "cs"} == OUR_LOCALES
    assert set(durak["name_localizations"]) == OUR_LOCALES and durak["name_localizations"]["ru"] == "дурак"
    subcommands = {o["name"]: o for o in durak["options"]}
    assert set(subcommands) == SUBCOMMANDS
    for option in subcommands.values():
        assert set(option["name_localizations"]) == OUR_LOCALES
        assert set(option["description_localizations"]) == OUR_LOCALES
    assert subcommands["new"]["name_localizations"]["ru"] == "новая"
    spanish = subcommands["new"]["description_localizations"]
    assert spanish["es-ES"] == spanish["es-419"] != subcommands["new"]["description"]
    words = subcommands["new"]["options"][0]
    assert words["autocomplete"] and words["name_localizations"]["it"] == "parole"


def test_every_completion_is_a_word_the_rules_accept() -> None:
    assert "transfer" in WORDS and "deck=24" in WORDS and "timer=0" in WORDS
    for word in WORDS:
        Settings.from_words(word)


async def test_autocomplete_completes_the_last_word_and_keeps_the_ones_before(table: Table) -> None:
    ann = table.fake.add_user("Ann")
    typing = table.fake.autocomplete(ann, table.channel, "durak", "new", {"words": "transfer de"}, "words")
    await table.fake.wait_for_callback(typing)
    assert [c["value"] for c in typing.choices] == [
        "transfer deck=24",
        "transfer deck=36",
        "transfer deck=52",
    ]
    assert [c.value for c in complete("deck=24 deck")] == []  # a key already given is not offered again


async def test_a_lobby_is_joined_left_and_started_with_commands_and_answers_are_ephemeral(
    table: Table,
) -> None:
    ann, bob = table.fake.add_user("Ann"), table.fake.add_user("Bob")
    opened = await table.slash(ann, "new", words="deck=24")
    assert opened["data"]["flags"] == 64
    joined = await table.slash(bob, "join")
    assert joined["data"] == {"content": "You joined.", "flags": 64, "tts": False}
    lobby = await table.table_message()
    assert "2 players" in text_of(lobby) and "Bob" in text_of(lobby)
    await table.slash(bob, "leave")
    assert "Bob" not in text_of(await table.table_message())
    await table.slash(bob, "join")
    started = await table.slash(ann, "start")
    assert started["type"] == 4 and "Your cards" in text_of(started["data"])  # the starter's hand
    assert labels_of(await table.table_message()) == ["My hand"]
    assert len(table.fake.public_messages(table.channel)) == 1


async def test_only_an_admin_changes_the_channel_settings_and_the_language_applies_to_the_next_lobby(
    table: Table,
) -> None:
    ann = table.fake.add_user("Ann")
    boss = table.fake.add_user("Boss", admin=True, locale="it")
    refused = await table.slash(ann, "settings", words="transfer")
    assert "admin" in text_of(refused["data"])
    saved = await table.slash(boss, "settings", words="transfer", language="ru")
    assert saved["data"]["flags"] == 64
    await table.slash(ann, "new")
    lobby = text_of(await table.table_message())
    assert "Новая игра" in lobby or "дурак" in lobby.lower()


async def test_help_names_the_discord_commands_in_the_players_language(table: Table) -> None:
    ivan = table.fake.add_user("Ivan", locale="ru")
    answer = await table.slash(ivan, "help")
    text = text_of(answer["data"])
    assert answer["data"]["flags"] == 64 and "/durak new" in text and "/durak join" in text
    assert "/newgame" not in text and "/hint" not in text
    assert "открыть" in text.lower() or "лобби" in text.lower() or "набор" in text.lower()


async def test_rules_and_cancel_and_the_closed_table_has_no_buttons(table: Table) -> None:
    ann, bob = table.fake.add_user("Ann"), table.fake.add_user("Bob")
    await table.slash(ann, "new", words="transfer")
    rules = await table.slash(bob, "rules")
    assert "Transfer" in text_of(rules["data"])
    not_creator = await table.slash(bob, "cancel")
    assert "creator" in text_of(not_creator["data"])
    await table.slash(ann, "cancel")
    closed = await table.table_message()
    assert "cancelled" in text_of(closed) and closed["components"] == []


async def test_every_interaction_is_acknowledged_in_time_even_when_the_service_is_slow(table: Table) -> None:
    assert table.client is not None
    table.client.flow.ack_budget = 0.05
    handle = table.client.flow.service.handle

    async def slow(event: object) -> object:
        await asyncio.sleep(0.3)
        return await handle(event)  # type: ignore[arg-type]

    table.client.flow.service.handle = slow  # type: ignore[method-assign,assignment]
    ann, bob = table.fake.add_user("Ann"), table.fake.add_user("Bob")
    opened = await table.slash(ann, "new")
    assert opened["type"] == 5  # deferred ("thinking"), then answered through the token
    await table.press_label(bob, await table.table_message(), "Join")
    await table.press_label(ann, await table.table_message(), "Start")
    hand = table.hand_of(ann)
    assert hand is not None and "Your cards" in text_of(hand)  # a follow-up after the deferred press
    assert all(i.ack_latency is not None and i.ack_latency < 0.25 for i in table.fake.interactions.values())
    assert table.fake.ephemeral_for(ann)[0]["content"] == "Done."


async def test_the_sync_command_uploads_the_group_without_starting_the_bot(discord_api: FakeDiscord) -> None:
    guild = discord_api.add_guild("Test server")
    assert await sync(discord_api.token, None) == 0
    assert await sync(discord_api.token, int(guild.id)) == 0
    assert [(g, [c["name"] for c in commands]) for g, commands in discord_api.command_syncs] == [
        (None, ["durak"]),
        (guild.id, ["durak"]),
    ]


async def test_discord_sync_uploads_the_commands_at_start_only_when_asked(
    discord_api: FakeDiscord, store: RedisGameStore
) -> None:
    guild = discord_api.add_guild("Test server")
    service = GameService(store, ServiceConfig(ai_delay=0))
    quiet = await discord_api.connect(DurakDiscordClient(service, store, DiscordSettings(_env_file=None)))  # type: ignore[call-arg]
    assert discord_api.command_syncs == []
    await discord_api.disconnect(quiet)
    asked = DiscordSettings(_env_file=None, discord_sync=True, discord_sync_guild=int(guild.id))  # type: ignore[call-arg]
    client = await discord_api.connect(DurakDiscordClient(service, store, asked))
    assert [g for g, _ in discord_api.command_syncs] == [guild.id]
    await discord_api.disconnect(client)


async def test_me_is_shown_to_the_asker_only_and_stats_takes_a_season(table: Table) -> None:
    ann = table.fake.add_user("Ann")
    mine = await table.slash(ann, "me")
    assert mine["data"]["flags"] == 64 and "You have not played here yet." in text_of(mine["data"])
    earlier = await table.slash(ann, "stats", season=1)
    assert "No games played in this chat yet." in text_of(earlier["data"])
    assert not [m for m in table.fake.public_messages(table.channel) if "You have not played" in text_of(m)]

"""The Discord fake drives the real discord.py client: commands, ephemeral replies, persistent buttons, DMs.

The bot here is a tiny example (one ``/durak`` group, one ``DynamicItem`` counter button), not the adapter.
"""

from __future__ import annotations

import re
import time

import discord
import pytest
from discord import app_commands

from tests.fakes.discord_gateway import FakeDiscord


class Counter(discord.ui.DynamicItem[discord.ui.Button], template=r"cnt:(?P<game>\w+):(?P<n>\d+)"):
    """A button that survives restarts: everything it needs is in its custom_id."""

    def __init__(self, game: str, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {n}", custom_id=f"cnt:{game}:{n}"))
        self.game, self.n = game, n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> Counter:
        return cls(match["game"], int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        interaction.client.presses.append((interaction.user.id, self.game, self.n))  # type: ignore[attr-defined]
        if self.game == "slow":  # acknowledge first, then edit the pressed message through the token
            await interaction.response.defer()
            await interaction.edit_original_response(content="slow at 1", view=counter_view("slow", 1))
            return
        await interaction.response.edit_message(
            content=f"{self.game} at {self.n + 1}", view=counter_view(self.game, self.n + 1)
        )


def counter_view(game: str, n: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(Counter(game, n))
    return view


class ExampleBot(discord.Client):
    def __init__(self, intents: discord.Intents | None = None, **options: object) -> None:
        super().__init__(intents=intents or discord.Intents.default(), **options)  # type: ignore[arg-type]
        self.tree = app_commands.CommandTree(self)
        self.seen: list[tuple[str, str]] = []  # (author id, text) of each MESSAGE_CREATE received
        self.presses: list[tuple[int, str, int]] = []
        self.dm_errors: list[discord.HTTPException] = []
        self.command_errors: list[Exception] = []
        self.tree.add_command(durak_group())
        self.tree.error(self.record_error)

    async def record_error(self, interaction: discord.Interaction, error: Exception) -> None:
        self.command_errors.append(error)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Counter)

    async def on_message(self, message: discord.Message) -> None:
        self.seen.append((str(message.author.id), message.content))


def durak_group() -> app_commands.Group:
    group = app_commands.Group(name="durak", description="Play Durak")

    @group.command(name="new", description="Open a table")
    async def new(interaction: discord.Interaction, words: str = "") -> None:
        game = "slow" if words == "slow" else "g1"
        await interaction.response.send_message(f"table {words}".strip(), view=counter_view(game, 0))

    @group.command(name="hand", description="Show my hand")
    async def hand(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your hand: 7H 8S", ephemeral=True, view=counter_view("h", 0))

    @group.command(name="slow", description="Defer, then answer")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.edit_original_response(content="done slowly")

    @group.command(name="later", description="Defer publicly, then follow up")
    async def later(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("first", ephemeral=True)
        await interaction.followup.send("second", ephemeral=True)

    @group.command(name="dm", description="Send me my hand by DM")
    async def dm(interaction: discord.Interaction) -> None:
        try:
            await interaction.user.send("your hand: 9D")
        except discord.Forbidden as error:
            interaction.client.dm_errors.append(error)  # type: ignore[attr-defined]
            await interaction.response.send_message(f"{interaction.user.display_name} does not accept DMs")
        else:
            await interaction.response.send_message("sent", ephemeral=True)

    @new.autocomplete("words")
    async def complete_words(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        words = ["transfer", "deck=24", "deck=52"]
        return [app_commands.Choice(name=w, value=w) for w in words if w.startswith(current)]

    return group


@pytest.fixture
async def bot(discord_api: FakeDiscord) -> ExampleBot:
    discord_api.add_guild("Club", channels=("durak", "other"))
    client = await discord_api.connect(ExampleBot())
    await client.tree.sync()
    return client


def table_channel(fake: FakeDiscord) -> str:
    return next(iter(fake.guilds.values())).channel_ids[0]


async def test_login_reads_the_bot_user_and_application_and_sync_registers_the_group(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    assert bot.user is not None and str(bot.user.id) == discord_api.bot.id
    assert str(bot.application_id) == discord_api.app_id
    assert bot.is_ready() and [g.name for g in bot.guilds] == ["Club"]
    ((guild_id, commands),) = discord_api.command_syncs
    assert guild_id is None and commands[0]["name"] == "durak"
    assert {o["name"] for o in commands[0]["options"]} == {"new", "hand", "slow", "later", "dm"}
    assert discord_api.unhandled == []


async def test_a_slash_command_is_received_and_answered_in_the_channel(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    channel = table_channel(discord_api)
    interaction = discord_api.slash(ann, channel, "durak", "new", {"words": "transfer"})
    callback = await discord_api.wait_for_callback(interaction)
    assert callback["type"] == 4
    (message,) = discord_api.public_messages(channel)
    assert message["content"] == "table transfer"
    assert message["components"][0]["components"][0]["custom_id"] == "cnt:g1:0"
    assert interaction.ack_latency is not None and interaction.ack_latency < 3


async def test_an_ephemeral_reply_is_stored_only_for_the_user_who_asked(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann, bob = discord_api.add_user("Ann"), discord_api.add_user("Bob")
    channel = table_channel(discord_api)
    await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "hand"))
    assert [m["content"] for m in discord_api.ephemeral_for(ann)] == ["your hand: 7H 8S"]
    assert discord_api.ephemeral_for(bob) == []
    assert not any("7H" in text for text in discord_api.channel_texts(channel))


async def test_a_deferred_reply_is_loading_until_the_original_response_is_edited(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    interaction = discord_api.slash(ann, table_channel(discord_api), "durak", "slow")
    assert (await discord_api.wait_for_callback(interaction))["type"] == 5
    await discord_api.wait_idle(quiet=0.05)
    (reply,) = discord_api.ephemeral_for(ann)
    assert reply["content"] == "done slowly" and reply["flags"] == 64


async def test_the_first_follow_up_resolves_a_deferred_reply_and_keeps_its_visibility(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    channel = table_channel(discord_api)
    await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "later"))
    await discord_api.wait_idle(quiet=0.05)
    assert [m["content"] for m in discord_api.public_messages(channel)] == ["first"]
    assert [m["content"] for m in discord_api.ephemeral_for(ann)] == ["second"]


async def test_a_rate_limited_edit_is_waited_out_and_retried_by_discord_py(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    channel = bot.get_channel(int(table_channel(discord_api)))
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("table")
    discord_api.inject_rate_limit("PATCH", r"/channels/\d+/messages/\d+", retry_after=0.05, times=2)
    await sent.edit(content="edited")
    assert len(discord_api.requests_to("PATCH", r"/channels/\d+/messages/\d+")) == 3
    assert [e[2] for e in discord_api.errors] == [429, 429]
    assert discord_api.public_messages(str(channel.id))[0]["content"] == "edited"


async def test_a_dynamic_button_press_reaches_its_callback_and_edits_the_message_in_place(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann, bob = discord_api.add_user("Ann"), discord_api.add_user("Bob")
    channel = table_channel(discord_api)
    await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "new"))
    (table,) = discord_api.public_messages(channel)
    press = discord_api.press(bob, table, "cnt:g1:0")
    assert (await discord_api.wait_for_callback(press))["type"] == 7
    (edited,) = discord_api.public_messages(channel)
    assert edited["id"] == table["id"] and edited["content"] == "g1 at 1"
    assert bot.presses == [(int(bob.id), "g1", 0)]
    assert discord_api.channel_texts(channel) == ["table\nCount 0", "g1 at 1\nCount 1"]
    with pytest.raises(LookupError):
        discord_api.press(bob, edited, "cnt:g1:0")  # that button is gone from the message


async def test_a_button_on_an_ephemeral_hand_edits_that_hand_and_only_its_owner_can_press_it(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann, bob = discord_api.add_user("Ann"), discord_api.add_user("Bob")
    await discord_api.wait_for_callback(discord_api.slash(ann, table_channel(discord_api), "durak", "hand"))
    (hand,) = discord_api.ephemeral_for(ann)
    with pytest.raises(PermissionError):
        discord_api.press(bob, hand, "cnt:h:0")
    assert (await discord_api.wait_for_callback(discord_api.press(ann, hand, "cnt:h:0")))["type"] == 7
    (edited,) = discord_api.ephemeral_for(ann)
    assert edited["id"] == hand["id"] and edited["content"] == "h at 1" and edited["flags"] == 64


async def test_a_deferred_button_press_edits_the_pressed_message_through_the_token(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    channel = table_channel(discord_api)
    await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "new", {"words": "slow"}))
    (table,) = discord_api.public_messages(channel)
    assert (await discord_api.wait_for_callback(discord_api.press(ann, table, "cnt:slow:0")))["type"] == 6
    await discord_api.wait_idle(quiet=0.05)
    (edited,) = discord_api.public_messages(channel)
    assert edited["id"] == table["id"] and edited["content"] == "slow at 1"
    assert len(discord_api.requests_to("PATCH", r"^/webhooks/\d+/[^/]+/messages/@original$")) == 1


async def test_command_localisations_must_use_discord_locales_and_lowercase_names(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    good = {"name": "durak", "description": "Play", "name_localizations": {"ru": "дурак", "it": "durak"}}
    await bot.http.bulk_upsert_global_commands(bot.application_id, [good])  # type: ignore[arg-type]
    for bad in ({"ru": "Дурак"}, {"russian": "дурак"}):
        with pytest.raises(discord.HTTPException) as refused:
            await bot.http.bulk_upsert_global_commands(
                bot.application_id, [good | {"name_localizations": bad}]
            )  # type: ignore[arg-type]
        assert refused.value.code == 50035
    assert discord_api.commands[None][0]["name_localizations"]["ru"] == "дурак"


async def test_a_button_still_works_after_a_restart_with_a_fresh_client(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    channel = table_channel(discord_api)
    await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "new"))
    await discord_api.disconnect(bot)
    restarted = await discord_api.connect(ExampleBot())
    (table,) = discord_api.public_messages(channel)
    await discord_api.wait_for_callback(discord_api.press(ann, table, "cnt:g1:0"))
    assert restarted.presses == [(int(ann.id), "g1", 0)] and bot.presses == []
    assert discord_api.public_messages(channel)[0]["content"] == "g1 at 1"
    assert len(discord_api.command_syncs) == 1  # the restart did not sync again


async def test_a_dm_to_a_user_who_refuses_dms_raises_forbidden_50007(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    shy, open_user = discord_api.add_user("Shy", refuses_dms=True), discord_api.add_user("Open")
    channel = table_channel(discord_api)
    await discord_api.wait_for_callback(discord_api.slash(shy, channel, "durak", "dm"))
    (error,) = bot.dm_errors
    assert isinstance(error, discord.Forbidden) and error.code == 50007 and error.status == 403
    assert discord_api.public_messages(channel)[-1]["content"] == "Shy does not accept DMs"
    await discord_api.wait_for_callback(discord_api.slash(open_user, channel, "durak", "dm"))
    assert [m["content"] for m in discord_api.dms_for(open_user)] == ["your hand: 9D"]
    assert discord_api.dms_for(shy) == []


async def test_autocomplete_answers_with_choices(discord_api: FakeDiscord, bot: ExampleBot) -> None:
    ann = discord_api.add_user("Ann")
    typing = discord_api.autocomplete(
        ann, table_channel(discord_api), "durak", "new", {"words": "de"}, "words"
    )
    callback = await discord_api.wait_for_callback(typing)
    assert callback["type"] == 8 and [c["value"] for c in typing.choices] == ["deck=24", "deck=52"]


async def test_discord_limits_and_errors_reach_the_client_as_discord_exceptions(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    channel = bot.get_channel(int(table_channel(discord_api)))
    assert isinstance(channel, discord.TextChannel)
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="long", custom_id="x" * 101))
    with pytest.raises(discord.HTTPException) as too_long:
        await channel.send("table", view=view)
    assert too_long.value.code == 50035 and "x" * 101 in discord_api.custom_ids()
    assert discord_api.public_messages(str(channel.id)) == []
    discord_api.inject_error("PATCH", r"/channels/\d+/messages/\d+", 404, 10008, "Unknown Message")
    sent = await channel.send("table")
    with pytest.raises(discord.NotFound):
        await sent.edit(content="edited")
    await sent.edit(content="edited")
    assert discord_api.channel_texts(str(channel.id)) == ["table", "edited"]


async def test_a_late_or_second_acknowledgement_is_refused_like_discord(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    channel = table_channel(discord_api)
    discord_api.ack_deadline = 0.0
    late = discord_api.slash(ann, channel, "durak", "hand")
    await discord_api.wait_idle(quiet=0.05)
    assert late.callback is None and discord_api.ephemeral_for(ann) == []
    (error,) = bot.command_errors
    assert isinstance(error.__cause__, discord.NotFound) and error.__cause__.code == 10062
    discord_api.ack_deadline = 3.0
    first = discord_api.slash(ann, channel, "durak", "hand")
    await discord_api.wait_for_callback(first)
    with pytest.raises(discord.HTTPException) as twice:
        await bot.http.request(
            discord.http.Route("POST", f"/interactions/{first.id}/{first.token}/callback"), json={"type": 6}
        )
    assert twice.value.code == 40060


async def test_an_expired_token_cannot_edit_the_ephemeral_hand_any_more(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    interaction = discord_api.slash(ann, table_channel(discord_api), "durak", "hand")
    await discord_api.wait_for_callback(interaction)
    webhook = discord.Webhook.partial(int(discord_api.app_id), interaction.token, client=bot)
    await webhook.edit_message(int(interaction.original_id or 0), content="fresh hand")
    discord_api.expire_tokens()
    with pytest.raises(discord.HTTPException) as expired:
        await webhook.edit_message(int(interaction.original_id or 0), content="stale")
    assert expired.value.code == 50027
    assert [m["content"] for m in discord_api.ephemeral_for(ann)] == ["fresh hand"]


async def test_each_shard_client_receives_only_its_guilds_interactions(discord_api: FakeDiscord) -> None:
    guilds = [discord_api.add_guild(f"Club {n}", shard=(n, 2)) for n in range(2)]
    first = await discord_api.connect(ShardedBot(shard_ids=[0], shard_count=2))
    second = await discord_api.connect(ShardedBot(shard_ids=[1], shard_count=2))
    await first.tree.sync()
    ann = discord_api.add_user("Ann")
    started = time.monotonic()
    for guild in guilds:
        await discord_api.wait_for_callback(discord_api.slash(ann, guild.channel_ids[0], "durak", "hand"))
    assert time.monotonic() - started < 3
    by_shard = {discord_api.shard_of(g.id): g.id for g in guilds}
    assert first.answered == [int(by_shard[0])] and second.answered == [int(by_shard[1])]
    assert {g.id for g in first.guilds} == {int(by_shard[0])}


class ShardedBot(discord.AutoShardedClient):
    def __init__(self, **options: object) -> None:
        super().__init__(intents=discord.Intents.default(), **options)  # type: ignore[arg-type]
        self.tree = app_commands.CommandTree(self)
        self.answered: list[int] = []
        group = app_commands.Group(name="durak", description="Play Durak")

        @group.command(name="hand", description="Show my hand")
        async def hand(interaction: discord.Interaction) -> None:
            self.answered.append(interaction.guild_id or 0)
            await interaction.response.send_message("hand", ephemeral=True)

        self.tree.add_command(group)


async def test_channel_messages_reach_the_client_as_message_create_without_others_text(
    discord_api: FakeDiscord, bot: ExampleBot
) -> None:
    ann = discord_api.add_user("Ann")
    channel = table_channel(discord_api)
    discord_api.user_message(ann, channel, "hello")
    await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "new"))
    await discord_api.wait_for_callback(discord_api.slash(ann, channel, "durak", "hand"))  # ephemeral
    await discord_api.wait_idle(quiet=0.01)
    assert bot.seen == [(ann.id, ""), (discord_api.bot.id, "table")], "no message content intent"


async def test_a_client_without_the_guild_messages_intent_gets_no_message_create(
    discord_api: FakeDiscord,
) -> None:
    discord_api.add_guild("Club", channels=("durak",))
    client = await discord_api.connect(ExampleBot(intents=discord.Intents(guilds=True)))
    discord_api.user_message(discord_api.add_user("Ann"), table_channel(discord_api), "hello")
    await discord_api.wait_idle(quiet=0.01)
    assert isinstance(client, ExampleBot) and client.seen == []

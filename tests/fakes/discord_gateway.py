"""The gateway half of the Discord fake: hand-built events fed straight to a real discord.py client.

No websocket: ``connect`` logs the client in through the fake REST API (``/users/@me``,
``/oauth2/applications/@me``, which also runs ``setup_hook``), then calls the client's own gateway parsers
(``client._connection.parsers["READY"]``, ``"GUILD_CREATE"``, ``"INTERACTION_CREATE"``), exactly what
discord.py's ``DiscordWebSocket.received_message`` does with a decoded event. Interactions are routed to
the client that owns the guild's shard, so several clients can split the shards like several processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from typing import Any

import discord

from tests.fakes.discord_api import EPHEMERAL, FakeDiscordAPI
from tests.fakes.discord_store import FakeUser, Interaction, StoredMessage

OPTION_TYPES = {3: str, 4: int, 5: bool, 10: float}


class FakeDiscord(FakeDiscordAPI):
    """The whole fake: REST app, state, and a driver that plays Discord's gateway to connected clients."""

    def __init__(self, token: str = "fake-bot-token") -> None:
        super().__init__(token)
        self.clients: dict[int, discord.Client] = {}  # shard id -> client owning it
        self.shard_count = 1

    async def close(self) -> None:
        for client in set(self.clients.values()):
            await client.close()
        self.clients.clear()
        await super().close()

    # -- connecting clients --------------------------------------------------------------------------

    async def connect(
        self, client: discord.Client, *, shard_ids: list[int] | None = None, shard_count: int | None = None
    ) -> discord.Client:
        """Log ``client`` in, send it READY and one GUILD_CREATE per guild of its shards, wait for on_ready.

        ``discord.http.Route.BASE`` must already point at ``self.api_base`` (the fixture does it)."""
        if not discord.http.Route.BASE.startswith(self.base_url or "-"):
            raise RuntimeError(
                "discord.http.Route.BASE does not point at the fake; use the discord_api fixture"
            )
        sharded = isinstance(client, discord.AutoShardedClient)
        count = shard_count or getattr(client, "shard_count", None) or 1
        ids = shard_ids or getattr(client, "shard_ids", None) or list(range(count))
        await client.login(self.token)  # GET /users/@me, GET /oauth2/applications/@me, setup_hook()
        state = client._connection
        state.guild_ready_timeout = 0.01  # the time discord.py waits for more GUILD_CREATEs before on_ready
        if sharded:
            client.shard_count = count
            state.shard_count, state.shard_ids = count, ids
        self.shard_count = count
        for shard_id in ids:
            guilds = [g for g in self.guilds.values() if self.shard_of(g.id) == shard_id]
            ready = {
                "v": 10, "user": self.bot_payload(), "guilds": [{"id": g.id, "unavailable": True} for g in guilds],
                "session_id": secrets.token_hex(16), "resume_gateway_url": "wss://gateway.invalid",
                "shard": [shard_id, count], "application": {"id": self.app_id, "flags": 0},
            }  # fmt: skip
            state.parsers["READY"](ready)
            for guild in guilds:
                state.parsers["GUILD_CREATE"](self.guild_payload(guild))
            self.clients[shard_id] = client
        await asyncio.wait_for(client.wait_until_ready(), timeout=5)
        return client

    async def disconnect(self, client: discord.Client) -> None:
        """Stop a client (a bot process going away); its shards get no more events until reconnected."""
        for shard_id in [s for s, c in self.clients.items() if c is client]:
            del self.clients[shard_id]
        await client.close()

    def shard_of(self, guild_id: str | None) -> int:
        return 0 if guild_id is None else (int(guild_id) >> 22) % self.shard_count

    def dispatch(self, event: str, data: dict[str, Any], guild_id: str | None = None) -> None:
        """Deliver one gateway event to the client owning the guild's shard (DMs go to shard 0)."""
        client = self.clients.get(self.shard_of(guild_id))
        if client is None or client.is_closed():
            raise LookupError(f"no connected client runs shard {self.shard_of(guild_id)}")
        client._connection.parsers[event](data)

    # -- interactions ------------------------------------------------------------------------------

    def slash(
        self,
        user: FakeUser,
        channel_id: str,
        command: str,
        subcommand: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> Interaction:
        """A user runs ``/command subcommand option:value`` in a channel (type 2 APPLICATION_COMMAND).

        The command must have been synced to the fake, as Discord only offers synced commands."""
        data = self._command_data(channel_id, command, subcommand, options or {}, focused=None)
        return self._interact(2, user, channel_id, data)

    def autocomplete(
        self,
        user: FakeUser,
        channel_id: str,
        command: str,
        subcommand: str | None,
        options: dict[str, Any],
        focused: str,
    ) -> Interaction:
        """A user typing into option ``focused`` (type 4 APPLICATION_COMMAND_AUTOCOMPLETE)."""
        data = self._command_data(channel_id, command, subcommand, options, focused=focused)
        return self._interact(4, user, channel_id, data)

    def press(
        self, user: FakeUser, message: dict[str, Any] | str, custom_id: str, values: list[str] | None = None
    ) -> Interaction:
        """A user presses a button (or picks ``values`` in a select) on a message as it stands in the fake."""
        message_id = message if isinstance(message, str) else str(message["id"])
        stored = self.messages.get(message_id)
        if stored is None or stored.deleted:
            raise LookupError(f"message {message_id} is not in the fake")
        if stored.ephemeral_user and stored.ephemeral_user != user.id:
            raise PermissionError(f"{user.name} cannot see ephemeral message {message_id}")
        component = _find_component(stored.data.get("components") or [], custom_id)
        if component is None or component.get("disabled"):
            raise LookupError(f"no enabled component {custom_id!r} on message {message_id}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] != 2:
            data["values"] = list(values or [])
        return self._interact(3, user, stored.channel_id, data, message=stored.data)

    async def wait_for_callback(self, interaction: Interaction | str, timeout: float = 3.0) -> dict[str, Any]:
        """Wait until the client POSTed the interaction's callback; return its body (``type``, ``data``)."""
        record = interaction if isinstance(interaction, Interaction) else self.interactions[interaction]
        try:
            await asyncio.wait_for(record.acked.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"interaction {record.id} was not acknowledged within {timeout} s") from None
        assert record.callback is not None
        return record.callback

    def user_message(self, user: FakeUser, channel_id: str, content: str) -> dict[str, Any]:
        """A user writes in a channel: a MESSAGE_CREATE (the bot only sees text with the content intent)."""
        self.channel_payload(channel_id)  # 404 10003 for an unknown channel
        return self.create_message(channel_id, {"content": content}, author=user).data

    def create_message(
        self, channel_id: str, body: dict[str, Any], *, author: FakeUser | None = None, **options: Any
    ) -> StoredMessage:
        """Every message people can see in a channel (a person's, the bot's, a public interaction answer)
        is also a MESSAGE_CREATE, as on Discord; an ephemeral one is not."""
        message = super().create_message(channel_id, body, author=author, **options)
        if not message.ephemeral_user:
            self._message_created(message.data, author or self.bot)
        return message

    def _message_created(self, data: dict[str, Any], author: FakeUser) -> None:
        """MESSAGE_CREATE to the client of the channel's shard, if its intents ask for it (guild_messages,
        dm_messages); without the privileged message_content intent the text of others' messages is blank
        (Discord keeps it only for the bot's own messages, DMs and messages that mention the bot)."""
        guild_id = self.channels.get(data["channel_id"], {}).get("guild_id")
        client = self.clients.get(self.shard_of(guild_id))
        if client is None or client.is_closed():
            return
        intents = client.intents
        if not (intents.guild_messages if guild_id else intents.dm_messages):
            return
        event = dict(data)
        if guild_id:
            event["member"] = {k: v for k, v in self.member_payload(author, guild_id).items() if k != "user"}
        mentioned = any(str(m.get("id")) == self.bot.id for m in data.get("mentions") or [])
        if guild_id and author is not self.bot and not mentioned and not intents.message_content:
            event |= {"content": "", "embeds": [], "attachments": [], "components": []}
        client._connection.parsers["MESSAGE_CREATE"](event)

    def _interact(
        self,
        kind: int,
        user: FakeUser,
        channel_id: str,
        data: dict[str, Any],
        message: dict[str, Any] | None = None,
    ) -> Interaction:
        channel = self.channel_payload(channel_id)
        guild_id = channel.get("guild_id")
        record = Interaction(
            self.snowflake(), "tok_" + secrets.token_urlsafe(24), kind, user, channel_id, guild_id
        )
        payload: dict[str, Any] = {
            "id": record.id, "application_id": self.app_id, "type": kind, "data": data, "token": record.token,
            "version": 1, "channel_id": channel_id, "channel": channel, "locale": user.locale,
            "app_permissions": "2248473465835073", "entitlements": [], "attachment_size_limit": 10 << 20,
            "authorizing_integration_owners": {"0": guild_id} if guild_id else {"1": user.id},
            "context": 0 if guild_id else 1,
        }  # fmt: skip
        if guild_id:
            payload |= {"guild_id": guild_id, "member": self.member_payload(user, guild_id)}
            payload["guild_locale"] = self.guilds[guild_id].locale
            payload["guild"] = {"id": guild_id, "locale": self.guilds[guild_id].locale, "features": []}
        else:
            payload["user"] = user.payload()
        if message is not None:
            record.message_id = str(message["id"])
            payload["message"] = message
        self.interactions[record.id] = record
        self.tokens[record.token] = record
        self.dispatch("INTERACTION_CREATE", payload, guild_id)
        return record

    def _command_data(
        self, channel_id: str, name: str, subcommand: str | None, options: dict[str, Any], focused: str | None
    ) -> dict[str, Any]:
        guild_id = self.channel_payload(channel_id).get("guild_id")
        registered = [c for c in self.commands.get(guild_id, []) if c["name"] == name] if guild_id else []
        registered = registered or [c for c in self.commands.get(None, []) if c["name"] == name]
        if not registered:
            raise LookupError(f"/{name} was never synced to the fake (Discord would not offer it)")
        command = registered[0]
        definitions = command.get("options") or []
        if subcommand is not None:
            sub = next((o for o in definitions if o["name"] == subcommand and o["type"] == 1), None)
            if sub is None:
                raise LookupError(f"/{name} has no subcommand {subcommand!r}")
            definitions = sub.get("options") or []
        given = _option_values(definitions, options, focused)
        if subcommand is not None:
            given = [{"name": subcommand, "type": 1, "options": given}]
        data: dict[str, Any] = {"id": command["id"], "name": name, "type": 1, "options": given}
        if command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        return data


def _option_values(
    definitions: list[dict[str, Any]], values: dict[str, Any], focused: str | None
) -> list[dict[str, Any]]:
    """Typed options as Discord sends them; unknown names, bad types and missing required ones fail."""
    by_name = {d["name"]: d for d in definitions}
    missing = [d["name"] for d in definitions if d.get("required") and d["name"] not in values]
    if missing and focused is None:
        raise ValueError(f"required options missing: {missing}")
    given = []
    for name, value in values.items():
        definition = by_name.get(name)
        if definition is None:
            raise LookupError(f"no option {name!r}; the command has {sorted(by_name)}")
        kind = definition["type"]
        if kind not in OPTION_TYPES:
            raise NotImplementedError(f"option type {kind} is not simulated by the fake")
        if name != focused and not isinstance(value, OPTION_TYPES[kind]):
            raise TypeError(f"option {name!r} wants {OPTION_TYPES[kind].__name__}, got {value!r}")
        option = {"name": name, "type": kind, "value": value}
        if name == focused:
            option["focused"] = True
        given.append(option)
    return given


def _find_component(node: Any, custom_id: str) -> dict[str, Any] | None:
    if isinstance(node, list):
        for child in node:
            found = _find_component(child, custom_id)
            if found is not None:
                return found
    elif isinstance(node, dict):
        if node.get("custom_id") == custom_id:
            return node
        for child in node.values():
            if isinstance(child, list | dict):
                found = _find_component(child, custom_id)
                if found is not None:
                    return found
    return None


__all__ = ["EPHEMERAL", "FakeDiscord", "FakeUser", "Interaction", "running_fake_discord"]


@contextlib.asynccontextmanager
async def running_fake_discord() -> AsyncIterator[FakeDiscord]:
    """Start the fake on loopback and point discord.py's REST base at it for the duration."""
    fake = FakeDiscord()
    await fake.start()
    original = discord.http.Route.BASE
    discord.http.Route.BASE = fake.api_base
    try:
        yield fake
    finally:
        discord.http.Route.BASE = original
        await fake.close()

"""What the Discord fake remembers, and the JSON shapes Discord gives it back in.

Payloads carry the fields discord.py reads without a default (user ``username``/``discriminator``/``avatar``,
message ``type``/``content``/``author``/``flags``, member ``roles``/``flags``...). Message bodies are checked
against the limits Discord enforces (custom_id at most 100 characters, 5 rows of 5 buttons, 2000-character
content...), answering 400/50035 like Discord, so a too-long custom_id fails in the test, not in production.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord

DISCORD_EPOCH_MS = 1420070400000
MEMBER_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31)
ADMIN_PERMISSIONS = MEMBER_PERMISSIONS | (1 << 3) | (1 << 5)
COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
LOCALES = {locale.value for locale in discord.Locale}
TEXT_KEYS = ("content", "title", "description", "name", "value", "text", "label", "placeholder")


class ApiError(Exception):
    """An error answer in Discord's shape: ``{"message": ..., "code": ...}`` with an HTTP status."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors
        self.retry_after: float | None = None

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        if self.retry_after is not None:
            body |= {"retry_after": self.retry_after, "global": False}
        return body

    def headers(self) -> dict[str, str]:
        """A 429 carries Discord's rate-limit headers; discord.py treats one without ``Via`` as a ban."""
        if self.retry_after is None:
            return {}
        reset = f"{self.retry_after:.3f}"
        return {"Via": "1.1 google", "Retry-After": reset, "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": reset, "X-RateLimit-Scope": "user"}  # fmt: skip

    @classmethod
    def rate_limited(cls, retry_after: float) -> ApiError:
        error = cls(429, 0, "You are being rate limited.")
        error.retry_after = retry_after
        return error


@dataclass
class FakeUser:
    id: str
    name: str
    locale: str = "en-US"
    refuses_dms: bool = False
    admin: bool = False

    def payload(self) -> dict[str, Any]:
        return {"id": self.id, "username": self.name, "global_name": self.name, "discriminator": "0",
                "avatar": None, "bot": False, "public_flags": 0}  # fmt: skip


@dataclass
class FakeGuild:
    id: str
    name: str
    channel_ids: list[str] = field(default_factory=list)
    locale: str = "en-US"


@dataclass
class StoredMessage:
    data: dict[str, Any]
    history: list[dict[str, Any]]  # every version shown, oldest first (creation, then each edit)
    ephemeral_user: str = ""  # set for an ephemeral interaction reply: only this user sees it
    deleted: bool = False

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def channel_id(self) -> str:
        return str(self.data["channel_id"])


@dataclass
class Interaction:
    """An interaction the fake sent to the client, and what the client answered."""

    id: str
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user: FakeUser
    channel_id: str
    guild_id: str | None
    message_id: str | None = None  # the message a pressed component sits on
    created: float = field(default_factory=time.monotonic)
    callback: dict[str, Any] | None = None  # the body of the one allowed callback
    acked_at: float | None = None
    acked: asyncio.Event = field(default_factory=asyncio.Event)
    original_id: str | None = None
    followup_ids: list[str] = field(default_factory=list)
    choices: list[dict[str, Any]] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    expired: bool = False

    @property
    def ack_latency(self) -> float | None:
        return None if self.acked_at is None else self.acked_at - self.created


class DiscordState:
    """Users, guilds, channels, messages, commands and interactions, with Discord's payload shapes."""

    def __init__(self) -> None:
        self._sequence = itertools.count(1)
        self._base_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        self.bot = FakeUser(self.snowflake(), "Durak Bot")
        self.app_id = self.bot.id  # a bot's user id is its application id
        self.users: dict[str, FakeUser] = {}
        self.guilds: dict[str, FakeGuild] = {}
        self.channels: dict[str, dict[str, Any]] = {}
        self.dm_channels: dict[str, str] = {}  # user id -> DM channel id
        self.messages: dict[str, StoredMessage] = {}
        self.interactions: dict[str, Interaction] = {}
        self.tokens: dict[str, Interaction] = {}
        self.commands: dict[str | None, list[dict[str, Any]]] = {}  # guild id (None = global) -> commands
        self.sent_custom_ids: list[str] = []

    def snowflake(self) -> str:
        """Real-looking ids; consecutive ids differ in their timestamp part, so guilds spread over shards."""
        n = next(self._sequence)
        return str(((self._base_ms + n) << 22) | n)

    # -- setup ---------------------------------------------------------------------------------------

    def add_user(
        self, name: str, *, locale: str = "en-US", refuses_dms: bool = False, admin: bool = False
    ) -> FakeUser:
        user = FakeUser(self.snowflake(), name, locale, refuses_dms, admin)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str = "Durak club",
        channels: tuple[str, ...] = ("durak",),
        locale: str = "en-US",
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """A guild with text channels; ``shard=(shard_id, shard_count)`` picks an id Discord routes there."""
        guild_id = self.snowflake()
        for _ in range(shard[1] if shard else 0):
            if (int(guild_id) >> 22) % shard[1] == shard[0]:  # type: ignore[index]
                break
            guild_id = self.snowflake()
        guild = FakeGuild(guild_id, name, locale=locale)
        self.guilds[guild.id] = guild
        for position, channel_name in enumerate(channels):
            channel_id = self.snowflake()
            guild.channel_ids.append(channel_id)
            self.channels[channel_id] = {
                "id": channel_id, "type": 0, "guild_id": guild.id, "name": channel_name, "position": position,
                "permission_overwrites": [], "nsfw": False, "parent_id": None, "topic": None,
                "last_message_id": None, "rate_limit_per_user": 0, "flags": 0,
            }  # fmt: skip
        return guild

    def user(self, user_id: str) -> FakeUser:
        if user_id == self.bot.id:
            return self.bot
        if user_id not in self.users:
            raise ApiError(404, 10013, "Unknown User")
        return self.users[user_id]

    def dm_channel_for(self, user: FakeUser) -> str:
        if user.id not in self.dm_channels:
            channel_id = self.snowflake()
            self.dm_channels[user.id] = channel_id
            self.channels[channel_id] = {"id": channel_id, "type": 1, "last_message_id": None, "flags": 0,
                                         "recipients": [user.payload()]}  # fmt: skip
        return self.dm_channels[user.id]

    def dm_recipient(self, channel_id: str) -> FakeUser | None:
        for user_id, dm_id in self.dm_channels.items():
            if dm_id == channel_id:
                return self.users[user_id]
        return None

    # -- payloads --------------------------------------------------------------------------------------

    def bot_payload(self) -> dict[str, Any]:
        return self.bot.payload() | {"bot": True, "verified": True, "mfa_enabled": False, "flags": 0}

    def application_payload(self) -> dict[str, Any]:
        return {
            "id": self.app_id, "name": self.bot.name, "description": "", "icon": None, "bot_public": True,
            "bot_require_code_grant": False, "owner": self.bot.payload(), "verify_key": "0" * 64, "flags": 0,
            "team": None, "rpc_origins": [], "interactions_endpoint_url": None, "redirect_uris": [],
            "approximate_guild_count": len(self.guilds), "bot": self.bot_payload(),
        }  # fmt: skip

    def channel_payload(self, channel_id: str) -> dict[str, Any]:
        if channel_id not in self.channels:
            raise ApiError(404, 10003, "Unknown Channel")
        return dict(self.channels[channel_id])

    def member_payload(self, user: FakeUser, guild_id: str) -> dict[str, Any]:
        permissions = ADMIN_PERMISSIONS if user.admin else MEMBER_PERMISSIONS
        return {"user": user.payload(), "roles": [], "joined_at": _now(), "deaf": False, "mute": False,
                "flags": 0, "pending": False, "nick": None, "avatar": None, "permissions": str(permissions)}  # fmt: skip

    def guild_payload(self, guild: FakeGuild) -> dict[str, Any]:
        """A GUILD_CREATE payload: the guild with its channels and the bot as its only cached member."""
        everyone = {"id": guild.id, "name": "@everyone", "permissions": str(MEMBER_PERMISSIONS), "position": 0,
                    "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}  # fmt: skip
        return {
            "id": guild.id, "name": guild.name, "icon": None, "owner_id": self.bot.id, "roles": [everyone],
            "emojis": [], "stickers": [], "features": [], "member_count": len(self.users) + 1, "large": False,
            "unavailable": False, "joined_at": _now(), "preferred_locale": guild.locale,
            "channels": [self.channels[c] for c in guild.channel_ids], "threads": [], "presences": [],
            "members": [self.member_payload(self.bot, guild.id) | {"user": self.bot_payload()}],
            "voice_states": [], "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
            "verification_level": 0, "mfa_level": 0, "premium_tier": 0, "nsfw_level": 0,
            "system_channel_id": None, "afk_timeout": 300, "default_message_notifications": 0,
        }  # fmt: skip

    # -- messages ------------------------------------------------------------------------------------

    def create_message(
        self,
        channel_id: str,
        body: dict[str, Any],
        *,
        flags: int = 0,
        interaction: Interaction | None = None,
        validate: bool = True,
        author: FakeUser | None = None,
    ) -> StoredMessage:
        """A message in a channel, by the bot unless ``author`` (a person writing) is given."""
        if validate:
            self.check_message_body(body)
        data = {
            "id": self.snowflake(), "channel_id": channel_id, "type": 0, "content": body.get("content") or "",
            "embeds": body.get("embeds") or [], "components": body.get("components") or [],
            "author": author.payload() if author else self.bot_payload(), "flags": flags,
            "timestamp": _now(), "edited_timestamp": None, "attachments": [], "mentions": [], "mention_roles": [],
            "mention_everyone": False, "pinned": False, "tts": bool(body.get("tts")),
        }  # fmt: skip
        guild_id = self.channels.get(channel_id, {}).get("guild_id")
        if guild_id:
            data["guild_id"] = guild_id
        ephemeral_user = ""
        if interaction is not None:
            data["type"] = 20 if interaction.type == 2 else 19
            data["webhook_id"] = data["application_id"] = self.app_id
            data["interaction_metadata"] = {"id": interaction.id, "type": interaction.type,
                                            "user": interaction.user.payload(), "authorizing_integration_owners": {}}  # fmt: skip
            ephemeral_user = interaction.user.id if flags & 64 else ""
        message = StoredMessage(data, [_copy(data)], ephemeral_user)
        self.messages[message.id] = message
        if not ephemeral_user and channel_id in self.channels:
            self.channels[channel_id]["last_message_id"] = message.id
        return message

    def edit_message(self, message: StoredMessage, body: dict[str, Any]) -> StoredMessage:
        self.check_message_body(body)
        for key in ("content", "embeds", "components"):
            if key in body:
                message.data[key] = body[key] if body[key] is not None else ("" if key == "content" else [])
        message.data["flags"] &= ~128  # a deferred "thinking" reply stops loading once edited
        message.data["edited_timestamp"] = _now()
        message.history.append(_copy(message.data))
        return message

    def check_message_body(self, body: dict[str, Any]) -> None:
        """Discord's limits; a body breaking one gets 400/50035 "Invalid Form Body" and is not stored."""
        problems = []
        if len(body.get("content") or "") > 2000:
            problems.append("content: must be 2000 or fewer in length")
        embeds = body.get("embeds") or []
        if len(embeds) > 10:
            problems.append("embeds: must be 10 or fewer in length")
        for embed in embeds:
            if len(embed.get("title") or "") > 256 or len(embed.get("description") or "") > 4096:
                problems.append("embeds: title over 256 or description over 4096 characters")
            if len(embed.get("fields") or []) > 25:
                problems.append("embeds: at most 25 fields")
        rows = body.get("components") or []
        if len(rows) > 5:
            problems.append("components: at most 5 action rows")
        ids = _values_of(rows, "custom_id")
        for row in rows:
            if row.get("type") == 1 and len(row.get("components") or []) > 5:
                problems.append("components: at most 5 buttons in a row")
        problems += [f"custom_id too long ({len(i)} > 100): {i!r}" for i in ids if len(i) > 100]
        problems += [f"label too long: {label!r}" for label in _values_of(rows, "label") if len(label) > 80]
        if len(set(ids)) != len(ids):
            problems.append("components: custom_id values must be unique within a message")
        self.sent_custom_ids.extend(ids)
        if problems:
            raise ApiError(400, 50035, "Invalid Form Body", {"_errors": [{"message": p} for p in problems]})

    # -- commands --------------------------------------------------------------------------------------

    def register_commands(self, bodies: list[dict[str, Any]], guild_id: str | None) -> list[dict[str, Any]]:
        """A bulk overwrite: keeps the id of a command whose name is kept, like Discord."""
        old_ids = {c["name"]: c["id"] for c in self.commands.get(guild_id, [])}
        problems = [
            f"bad name {n!r}" for n in _command_names(bodies) if not COMMAND_NAME.match(n) or n != n.lower()
        ]
        problems += [f"bad description {d!r}" for d in _descriptions(bodies) if not 1 <= len(d) <= 100]
        for locale, text in _localisations(bodies):
            if locale not in LOCALES:
                problems.append(f"unknown locale {locale!r} in a localisation")
            elif not 1 <= len(text) <= 100:
                problems.append(f"localised text {text!r} must be 1 to 100 characters")
        if problems:
            raise ApiError(400, 50035, "Invalid Form Body", {"_errors": [{"message": p} for p in problems]})
        registered = []
        for body in bodies:
            command = {"type": 1, "options": [], "default_member_permissions": None, "nsfw": False} | body
            command |= {"id": old_ids.get(body["name"]) or self.snowflake(), "application_id": self.app_id,
                        "version": self.snowflake()}  # fmt: skip
            if guild_id:
                command["guild_id"] = guild_id
            registered.append(command)
        self.commands[guild_id] = registered
        return registered


def visible_text(message: dict[str, Any]) -> str:
    """All text a reader sees in a message: content, embed parts, button labels, component text."""
    parts: list[str] = []

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            for child_key, child in node.items():
                if child_key not in ("author", "interaction_metadata", "emoji"):
                    walk(child, child_key)
        elif isinstance(node, list):
            for child in node:
                walk(child, key)
        elif isinstance(node, str) and key in TEXT_KEYS and node:
            parts.append(node)

    walk({key: message.get(key) for key in ("content", "embeds", "components")})
    return "\n".join(parts)


def _values_of(node: Any, key: str) -> list[str]:
    """Every string stored under ``key`` anywhere in nested components (custom_id, label...)."""
    if isinstance(node, list):
        return [value for child in node for value in _values_of(child, key)]
    if isinstance(node, dict):
        own = [node[key]] if isinstance(node.get(key), str) else []
        return own + [value for k, child in node.items() if k != key for value in _values_of(child, key)]
    return []


def _command_names(commands: list[dict[str, Any]]) -> list[str]:
    return [n for c in commands for n in [c["name"], *_command_names(c.get("options") or [])]]


def _descriptions(commands: list[dict[str, Any]], top: bool = True) -> list[str]:
    """Slash commands and all their options need a description; context-menu commands have none."""
    found = [c.get("description", "") for c in commands if not top or c.get("type", 1) == 1]
    return found + [d for c in commands for d in _descriptions(c.get("options") or [], top=False)]


def _localisations(nodes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(locale, text) of every name/description localisation; localised names obey the name rules too."""
    found = []
    for node in nodes:
        for locale, name in (node.get("name_localizations") or {}).items():
            found.append((locale, name if COMMAND_NAME.match(name) and name == name.lower() else ""))
        found += list((node.get("description_localizations") or {}).items())
        found += _localisations(node.get("options") or [])
    return found


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _copy(data: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(data)

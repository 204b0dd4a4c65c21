"""Private hands on Discord: an ephemeral message per player, kept editable through interaction tokens.

Discord only lets a bot show a message to one person in answer to that person's interaction, and lets it
edit that message through the interaction's token for 15 minutes. So each press of "My hand" or of a hand
button is remembered here (token, message id, expiry) and the player's hand is edited in place while the
token lives: other players' moves show up without a tap. The hand's text says until when; after that
"My hand" on the table brings a fresh one. A hand whose game is over for its player (the end, or out with
their place) says so instead: nothing will update it. A player who opted in gets the hand by DM instead.

The registry is per process, in memory: a guild's interactions reach the process running its shard, so
its players' tokens are there. After a restart the first tap on "My hand" starts a fresh one. The languages
are kept for the most recently seen users only (`DISCORD_CACHE_USERS`); anyone else's next interaction
brings theirs back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from adapters.discord.render import ButtonSpec, layout, to_embed
from adapters.discord.texts import say
from adapters.discord.views import buttons_view, dm_toggle_spec
from bot.adapter import LRU, OpenHand, ShowHand, payloads

TOKEN_LIFETIME = 15 * 60.0  # seconds Discord keeps an interaction token usable
SAFETY = 30.0  # stop using a token a little before Discord does
PRUNE_ABOVE = 5000  # forget expired tokens once this many hands are remembered
CACHE_USERS = 50_000  # default of DISCORD_CACHE_USERS


@dataclass
class LiveHand:
    webhook: discord.Webhook  # the interaction's follow-up webhook (its token)
    message_id: int
    expires: float  # unix time


class HandRegistry:
    """(channel id, user id) -> the live ephemeral hand; user id -> the language their client reported."""

    def __init__(self, clock: Callable[[], float] = time.time, users: int = CACHE_USERS) -> None:
        self.clock = clock
        self.live: dict[tuple[str, str], LiveHand] = {}
        self.langs: LRU[str, str] = LRU(users)

    def remember(
        self, chat: str, user_id: str, webhook: discord.Webhook, message_id: int, since: float
    ) -> None:
        if len(self.live) > PRUNE_ABOVE:
            now = self.clock()
            self.live = {key: hand for key, hand in self.live.items() if hand.expires > now}
        self.live[(chat, user_id)] = LiveHand(webhook, message_id, since + TOKEN_LIFETIME - SAFETY)

    def get(self, chat: str, user_id: str) -> LiveHand | None:
        hand = self.live.get((chat, user_id))
        if hand is not None and hand.expires <= self.clock():
            del self.live[(chat, user_id)]
            return None
        return hand

    def forget(self, chat: str, user_id: str) -> None:
        self.live.pop((chat, user_id), None)

    def lang(self, user_id: str) -> str:
        return self.langs.get(user_id, "en")


def hand_payload(hand: ShowHand) -> str:
    """The "My hand" payload of this hand's game: what the DM switch hands back to the service."""
    return payloads.Payload(hand.chat, hand.game_id or "0", 0, OpenHand()).encode()


def hand_parts(
    hand: ShowHand, lang: str, *, live_until: float | None, in_dm: bool
) -> tuple[discord.Embed, discord.ui.View | None]:
    """The embed and buttons of a hand: ephemeral (with its freshness line and a "DM me" switch) or DM. A
    final hand (`ShowHand.final`) says the game is over for its player, and offers no switch."""
    extra_lines: tuple[str, ...] = ()
    if hand.final:
        extra_lines = ("🏁 " + say("hand_over", lang),)
    elif live_until is not None:
        stamp = int(live_until)
        extra_lines = ("⏱ " + say("live_until", lang, time=f"<t:{stamp}:t>", relative=f"<t:{stamp}:R>"),)
    switch: tuple[ButtonSpec, ...] = ()
    if hand.game_id and not hand.final:
        label = say("no_dm" if in_dm else "dm_me", lang)
        switch = (dm_toggle_spec(not in_dm, hand_payload(hand), label),)
    return to_embed(hand.message, extra_lines), buttons_view(
        layout(hand.message, switch, say("pick_card", lang))
    )


def is_hand_message(interaction: discord.Interaction[Any]) -> bool:
    """A press on an ephemeral message or in a DM is a press on that player's hand."""
    message = interaction.message
    return message is not None and (message.flags.ephemeral or interaction.guild_id is None)

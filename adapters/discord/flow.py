"""One interaction (a slash command or a button press) through the service and back to the person.

Discord wants every interaction acknowledged within 3 seconds, once. The service usually answers in
milliseconds; when it has not answered within ``ack_budget`` the interaction is deferred first and answered
through its token afterwards. The presser's own effects answer the interaction (their hand as an ephemeral
message, edited in place on a hand button; their alerts as ephemeral notes; a command's reply); everything
else (the table, notices, other players' hands) goes to `Delivery`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import discord

from adapters.discord.delivery import PLATFORM, Delivery, chat_ref, hand_key
from adapters.discord.hands import SAFETY, TOKEN_LIFETIME, HandRegistry, hand_parts, is_hand_message
from adapters.discord.render import layout, to_embed
from adapters.discord.texts import say
from adapters.discord.views import buttons_view
from bot.adapter import (
    Alert,
    Command,
    Effect,
    GameService,
    Input,
    Message,
    Press,
    Reply,
    ShowHand,
    ShowTable,
    StoreUnavailable,
    User,
    normalise_language,
    payloads,
)

log = logging.getLogger("durak.discord.flow")

Interaction = discord.Interaction[Any]


def user_of(interaction: Interaction) -> User:
    locale = getattr(interaction.locale, "value", str(interaction.locale))
    return User(str(interaction.user.id), interaction.user.display_name, normalise_language(locale))


def is_admin(interaction: Interaction) -> bool:
    permissions = interaction.permissions
    return bool(permissions.manage_guild or permissions.manage_channels or permissions.administrator)


def can_post(interaction: Interaction) -> bool:
    permissions = interaction.app_permissions
    return bool(
        permissions.view_channel
        and (permissions.send_messages or permissions.send_messages_in_threads)
        and permissions.embed_links
    )


class InteractionFlow:
    def __init__(
        self,
        service: GameService,
        delivery: Delivery,
        hands: HandRegistry,
        ack_budget: float = 1.5,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.service = service
        self.delivery = delivery
        self.hands = hands
        self.ack_budget = ack_budget
        self.clock = clock
        self.busy = 0

    async def settled(self, timeout: float = 10.0) -> None:
        """Tests: wait until no interaction is being handled and every delivery has finished."""
        async with asyncio.timeout(timeout):
            while self.busy or self.delivery.tasks:
                await self.delivery.settled(timeout)
                await asyncio.sleep(0.005)

    # ---- entry points --------------------------------------------------------------------------------

    async def press(self, interaction: Interaction, payload: str) -> None:
        user = self.user_for(interaction)
        self.busy += 1
        try:
            effects = await self._handle(Press(PLATFORM, user, payload), interaction.response.defer)
            await self._answer(interaction, user, effects, command=False, public=False)
        finally:
            self.busy -= 1

    async def command(
        self,
        interaction: Interaction,
        name: str,
        words: str = "",
        public: bool = False,
        rewrite: Callable[[Message], Message] | None = None,
    ) -> None:
        """``rewrite`` adapts the replies' text to Discord (the help's command names)."""
        user = self.user_for(interaction)
        channel = interaction.channel
        command = Command(
            PLATFORM,
            str(interaction.channel_id),
            user,
            name,
            words.strip(),
            chat_title=str(getattr(channel, "name", "") or ""),
            is_admin=is_admin(interaction),
        )
        self.busy += 1
        try:

            def defer() -> Awaitable[Any]:
                return interaction.response.defer(ephemeral=not public, thinking=True)

            effects = await self._handle(command, defer)
            if rewrite is not None:
                effects = [
                    replace(e, message=rewrite(e.message)) if isinstance(e, Reply) else e for e in effects
                ]
            if any(isinstance(e, ShowTable) for e in effects) and not can_post(interaction):
                await self._send(interaction, True, content=say("cannot_post", user.lang))
            await self._answer(interaction, user, effects, command=True, public=public)
        finally:
            self.busy -= 1

    async def toggle_dm(self, interaction: Interaction, hand_payload: str, on: bool) -> None:
        """The hand's "Send to my DMs" / "Show in the channel" switch (per player, per channel)."""
        user = self.user_for(interaction)
        parsed = payloads.parse(hand_payload)
        self.busy += 1
        try:
            await interaction.response.defer()
            if parsed is None:
                return
            chat = parsed.chat_id
            await self.delivery.set_dm(chat, user.id, on)
            if not on:
                await self.delivery.store.set_messages(chat_ref(chat), {hand_key(user.id): None})
                await interaction.edit_original_response(
                    content=say("dm_off", user.lang), embed=None, view=None
                )
                return
            effects = await self.service.handle(Press(PLATFORM, user, hand_payload))
            hand = next((e for e in effects if isinstance(e, ShowHand) and e.user_id == user.id), None)
            if hand is None or not self.delivery.shown.fresh(hand):
                await self._answer(interaction, user, effects, command=False, public=False)
                return
            await self.delivery.deliver([e for e in effects if e is not hand])  # a woken seat moves the table
            messages = dict((await self.delivery.store.load(chat_ref(chat))).messages)
            if await self.delivery.dm_hand(hand, messages):
                self.hands.forget(chat, user.id)
                await interaction.edit_original_response(
                    content=say("dm_on", user.lang), embed=None, view=None
                )
            else:
                await self._show_own_hand(interaction, hand, user)
        except (discord.HTTPException, StoreUnavailable) as error:
            log.warning("DM switch for %s not answered: %s", user.id, error)
        finally:
            self.busy -= 1

    async def launch(self, interaction: Interaction) -> None:
        """ "Open table": Discord opens the Activity for the presser (LAUNCH_ACTIVITY); where it cannot (the
        application has no Activity, an old client) the presser is told to play with the buttons."""
        try:
            await interaction.response.launch_activity()
        except discord.HTTPException as error:
            log.warning("Activity not launched for interaction %s: %s", interaction.id, error)
            with contextlib.suppress(discord.HTTPException):
                await self._send(
                    interaction, True, content=say("no_activity", self.user_for(interaction).lang)
                )

    # ---- the service ---------------------------------------------------------------------------------

    def user_for(self, interaction: Interaction) -> User:
        user = user_of(interaction)
        self.hands.langs[user.id] = user.lang
        return user

    async def _handle(self, event: Input, defer: Callable[[], Awaitable[Any]]) -> list[Effect]:
        """The service's effects; the interaction is deferred if they take longer than the budget."""
        task = asyncio.ensure_future(self.service.handle(event))
        done, _ = await asyncio.wait({task}, timeout=self.ack_budget)
        if not done:
            try:
                await defer()
            except discord.HTTPException as error:
                log.warning("could not defer a slow interaction: %s", error)
        return await task

    # ---- answering -----------------------------------------------------------------------------------

    async def _answer(
        self, interaction: Interaction, user: User, effects: list[Effect], *, command: bool, public: bool
    ) -> None:
        chat = str(interaction.channel_id)
        own_hand: ShowHand | None = None
        notes: list[str] = []
        replies: list[Reply] = []
        others: list[Effect] = []
        for effect in effects:
            if isinstance(effect, ShowTable):
                self.delivery.show_table(effect)  # queued at once: the table moves before anything else
            elif isinstance(effect, Alert):
                if effect.text and effect.user_id in (user.id, ""):
                    notes.append(effect.text)
            elif isinstance(effect, ShowHand) and effect.user_id == user.id:
                own_hand = effect if self.delivery.shown.fresh(effect) else None  # None: a newer is shown
            elif (
                isinstance(effect, Reply)
                and command
                and effect.chat == chat
                and effect.user_id in ("", user.id)
            ):
                replies.append(effect)
            else:
                others.append(effect)
        try:
            if own_hand is not None:
                await self._show_own_hand(interaction, own_hand, user)
            for reply in replies:
                view = buttons_view(layout(reply.message))
                await self._send(
                    interaction, reply.private or not public, embed=to_embed(reply.message), view=view
                )
            for note in notes:
                await self._send(interaction, True, content=note)
            if command and own_hand is None and not replies and not notes:
                await self._send(interaction, True, content=say("done", user.lang))  # also ends "thinking"
            elif not interaction.response.is_done():
                await interaction.response.defer()
        except discord.HTTPException as error:
            log.warning("interaction %s not fully answered: %s", interaction.id, error)
        await self.delivery.deliver(others)

    async def _send(
        self,
        interaction: Interaction,
        ephemeral: bool,
        content: str | None = None,
        embed: discord.Embed | None = None,
        view: discord.ui.View | None = None,
    ) -> None:
        options: dict[str, Any] = {"ephemeral": ephemeral}
        if embed is not None:
            options["embed"] = embed
        if view is not None:
            options["view"] = view
        if not interaction.response.is_done():
            await interaction.response.send_message(content, **options)
        else:
            await interaction.followup.send(content or discord.utils.MISSING, **options)

    async def _show_own_hand(self, interaction: Interaction, hand: ShowHand, user: User) -> None:
        """On a hand button: edit that message in place. Elsewhere ("My hand", Start): a new ephemeral
        message. Either way the fresh token is remembered so later moves can edit it."""
        now = self.clock()
        in_dm = interaction.guild_id is None
        live_until = None if in_dm else now + TOKEN_LIFETIME - SAFETY
        embed, view = hand_parts(hand, user.lang, live_until=live_until, in_dm=in_dm)
        response = interaction.response
        if is_hand_message(interaction) and interaction.message is not None:
            message_id: int | None = interaction.message.id
            if not response.is_done():
                await response.edit_message(content=None, embed=embed, view=view)
            else:
                await interaction.edit_original_response(content=None, embed=embed, view=view)
        elif not response.is_done():
            sent = await response.send_message(
                embed=embed, view=view or discord.utils.MISSING, ephemeral=True
            )
            message_id = sent.message_id
        else:
            message = await interaction.followup.send(
                embed=embed, view=view or discord.utils.MISSING, ephemeral=True, wait=True
            )
            message_id = message.id
        if not in_dm and message_id is not None:
            self.hands.remember(hand.chat, user.id, interaction.followup, message_id, now)
        self.delivery.marks.note_hand(chat_ref(hand.chat), user.id, hand.version, hand.message)

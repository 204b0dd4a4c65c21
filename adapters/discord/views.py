"""Buttons that survive a restart: everything a press needs is in the custom_id, matched by a template.

discord.py's `DynamicItem` rebuilds the button from the custom_id of any message, sent by this process or
by one that has since restarted, so no view needs to be registered per message. Two kinds:

- ``d:<service payload>``: a game button; the press goes to the service as the payload it carries.
- ``ds:<n>:<first option's payload>``: a select menu of card moves (a big hand); each option's value
  is the service payload of that move.
- ``dm:<hand payload>`` / ``nodm:<hand payload>``: the adapter's own "send my hand by DM" switch.
- ``a:<service payload>``: "Open table" (or "Replay"): the press launches the Activity, which shows the
  channel's game (`adapters.web.discord_pages`); the payload only keeps the custom_id unique.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from adapters.discord.render import ButtonSpec, Row, SelectSpec

SERVICE_PREFIX = "d:"
CUSTOM_ID_LIMIT = 100
_PAYLOAD = r"[-0-9A-Za-z_|:?.]{1,64}"


class PressHandler(Protocol):
    async def press(self, interaction: discord.Interaction[Any], payload: str) -> None: ...

    async def toggle_dm(self, interaction: discord.Interaction[Any], hand_payload: str, on: bool) -> None: ...

    async def launch(self, interaction: discord.Interaction[Any]) -> None: ...


def handler_of(interaction: discord.Interaction[Any]) -> PressHandler:
    return interaction.client.flow  # type: ignore[no-any-return]


def checked(custom_id: str) -> str:
    assert len(custom_id) <= CUSTOM_ID_LIMIT, f"custom_id over {CUSTOM_ID_LIMIT} characters: {custom_id!r}"
    return custom_id


class ServiceButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"d:(?P<payload>{_PAYLOAD})"):
    """A button drawn by the service (lobby, table, hand, result)."""

    def __init__(
        self, payload: str, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary
    ) -> None:
        custom_id = checked(SERVICE_PREFIX + payload)
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        self.payload = payload

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ServiceButton:
        button = item if isinstance(item, discord.ui.Button) else None
        label = button.label if button is not None and button.label else "·"
        style = button.style if button is not None else discord.ButtonStyle.secondary
        return cls(match["payload"], label, style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).press(interaction, self.payload)


class CardSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"ds:(?P<n>\d):(?P<payload>{_PAYLOAD})"
):
    """Card moves as a select menu when there are too many for buttons; the chosen value is the payload."""

    def __init__(self, spec: SelectSpec) -> None:
        custom_id = checked(f"ds:{spec.index}:{spec.options[0][1]}")
        options = [discord.SelectOption(label=label[:100], value=payload) for label, payload in spec.options]
        super().__init__(
            discord.ui.Select(custom_id=custom_id, placeholder=spec.placeholder[:150], options=options)
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CardSelect:
        options = item.options if isinstance(item, discord.ui.Select) else []
        placeholder = item.placeholder if isinstance(item, discord.ui.Select) else None
        pairs = tuple((o.label, o.value) for o in options) or (("·", match["payload"]),)
        return cls(SelectSpec(pairs, placeholder or "…", int(match["n"])))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        values = list(data.get("values") or [])
        if values:
            await handler_of(interaction).press(interaction, str(values[0]))
        else:
            await interaction.response.defer()


class DirectMessageToggle(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"(?P<mode>dm|nodm):(?P<payload>{_PAYLOAD})"
):
    """Opt in to (``dm``) or out of (``nodm``) getting this game's hand by direct message."""

    def __init__(self, on: bool, hand_payload: str, label: str = "·") -> None:
        custom_id = checked(f"{'dm' if on else 'nodm'}:{hand_payload}")
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id)
        )
        self.on, self.hand_payload = on, hand_payload

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DirectMessageToggle:
        label = item.label if isinstance(item, discord.ui.Button) and item.label else "·"
        return cls(match["mode"] == "dm", match["payload"], label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).toggle_dm(interaction, self.hand_payload, self.on)


class ActivityButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"a:(?P<payload>{_PAYLOAD})"):
    """A button whose press answers with LAUNCH_ACTIVITY (interaction callback type 12)."""

    def __init__(self, payload: str, label: str = "·") -> None:
        custom_id = checked("a:" + payload)
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=custom_id)
        )
        self.payload = payload

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ActivityButton:
        label = item.label if isinstance(item, discord.ui.Button) and item.label else "·"
        return cls(match["payload"], label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handler_of(interaction).launch(interaction)


def dm_toggle_spec(on: bool, hand_payload: str, label: str) -> ButtonSpec:
    return ButtonSpec(label, custom_id=checked(f"{'dm' if on else 'nodm'}:{hand_payload}"))


def buttons_view(rows: list[Row]) -> discord.ui.View | None:
    """A view of dynamic items only (nothing to keep per message); None when there are no buttons."""
    if not rows:
        return None
    view = discord.ui.View(timeout=None)
    for row_number, row in enumerate(rows):
        if isinstance(row, SelectSpec):
            select = CardSelect(row)
            select.row = row_number
            view.add_item(select)
            continue
        for spec in row:
            item: discord.ui.Item[Any]
            if spec.url:
                item = discord.ui.Button(label=spec.label, url=spec.url, style=discord.ButtonStyle.link)
            elif spec.launches:
                item = ActivityButton(spec.payload, spec.label)
            elif spec.custom_id:
                mode, _, payload = spec.custom_id.partition(":")
                item = DirectMessageToggle(mode == "dm", payload, spec.label)
            else:
                item = ServiceButton(spec.payload, spec.label, spec.style)
            item.row = row_number
            view.add_item(item)
    return view

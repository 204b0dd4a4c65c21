"""Which chat: the value every layer names a chat by (the service, its renderers, the adapters), and the
store keys each chat's records by (`storage.keys`). The platform ids it carries are declared in
`bot.platforms`; the store takes any id, so a new platform needs nothing here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class ChatRef:
    """One chat on one platform: `ChatRef("tg", "-100123")`, written "tg:-100123"."""

    platform: str
    chat_id: str

    def __post_init__(self) -> None:
        if not self.platform or ":" in self.platform or any(c in self.platform for c in "{}|"):
            raise ValueError(f"bad platform name {self.platform!r}")
        if not self.chat_id or any(c in self.chat_id for c in "{}|"):
            raise ValueError(f"bad chat id {self.chat_id!r}")

    def __str__(self) -> str:
        return f"{self.platform}:{self.chat_id}"

    @classmethod
    def parse(cls, text: str) -> ChatRef:
        """The inverse of `str(ref)`."""
        platform, sep, chat_id = text.partition(":")
        if not sep:
            raise ValueError(f"not a chat reference: {text!r}")
        return cls(platform, chat_id)

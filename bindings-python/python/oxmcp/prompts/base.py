"""Prompt messages as the official SDK spells them (``mcp.server.mcpserver.prompts.base``):
``UserMessage("text")`` and ``AssistantMessage("text")``, returned in a list from a prompt."""

from __future__ import annotations

from typing import Any, Literal

from ..types import ContentBlock, PromptMessage, TextContent


class Message(PromptMessage):
    """A prompt message whose content may be given as text."""

    def __init__(self, content: str | ContentBlock, **fields: Any) -> None:
        if isinstance(content, str):
            content = TextContent(text=content)
        super().__init__(content=content, **fields)


class UserMessage(Message):
    """A message from the user."""

    role: Literal["user"] = "user"


class AssistantMessage(Message):
    """A message from the assistant."""

    role: Literal["assistant"] = "assistant"

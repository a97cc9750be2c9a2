"""Prompts as the official SDK spells them (``mcp.server.mcpserver.prompts.base``): the
messages ``UserMessage("text")`` and ``AssistantMessage("text")``, returned in a list from a
prompt, and :class:`Prompt`, a prompt as an object (``server.add_prompt(prompt)``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

from .._convert import jsonable
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


@dataclasses.dataclass
class Prompt:
    """A prompt as an object: its function and what it is listed with (the official SDK's
    ``Prompt.from_function(fn, ...)``, served by ``server.add_prompt(prompt)``). Its
    arguments are the function's parameters, as for ``@server.prompt()``."""

    fn: Callable[..., Any]
    name: str
    title: str | None = None
    description: str | None = None
    icons: list[dict[str, Any]] | None = None
    meta: dict[str, Any] | None = None

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        context_kwarg: str | None = None,
        *,
        meta: dict[str, Any] | None = None,
    ) -> Prompt:
        """The prompt `fn` renders, named after it unless `name` is given (a ``Context``
        parameter is found by its annotation, so ``context_kwarg`` changes nothing), listed
        with ``meta``."""
        named = name or fn.__name__
        if named == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls(fn, named, title, description, jsonable(icons), meta)

    def listed(self) -> dict[str, Any]:
        """What a server registers for it: the options of ``server.prompt(...)``."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "icons": self.icons,
            "meta": self.meta,
        }

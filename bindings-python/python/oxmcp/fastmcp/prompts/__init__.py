"""FastMCP's ``fastmcp.prompts``: :class:`Message` and :class:`PromptResult`, what a prompt
returns (as well as text, or a list of messages and text), prompts as objects
(``Prompt.from_function``, served by ``mcp.add_prompt``) and the standalone ``@prompt``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar, overload

from ...types import GetPromptResult, PromptMessage
from ..decorators import Marked, mark, named
from ..tools import content_block
from .function_prompt import FunctionPrompt, Prompt

F = TypeVar("F", bound=Callable[..., Any])


class Message(PromptMessage):
    """A message of a prompt, as FastMCP's: ``Message(content, role="user")``, its content
    text, a content block (or media) as it is, or any other value as compact JSON text."""

    def __init__(self, content: Any, role: Literal["user", "assistant"] = "user") -> None:
        super().__init__(role=role, content=content_block(content))


class PromptResult(GetPromptResult):
    """A prompt's whole result, as FastMCP's: its ``messages`` (text is one user message),
    a ``description`` and ``meta``."""

    def __init__(
        self, messages: str | list[Message], description: str | None = None, meta: dict[str, Any] | None = None
    ) -> None:
        if isinstance(messages, str):
            messages = [Message(messages)]
        if not isinstance(messages, list):
            raise TypeError(f"messages must be str or list[Message], got {type(messages).__name__}")
        listed: list[PromptMessage] = list(messages)
        for index, item in enumerate(listed):
            if not isinstance(item, PromptMessage):
                raise TypeError(
                    f"messages[{index}] must be Message, got {type(item).__name__}. "
                    f"Use Message({item!r}) to wrap the value."
                )
        super().__init__(messages=listed, description=description, _meta=meta)


@overload
def prompt(name_or_fn: F, /) -> F: ...


@overload
def prompt(name_or_fn: str | None = None, /, **options: Any) -> Callable[[F], F]: ...


def prompt(name_or_fn: Any = None, /, **options: Any) -> Any:
    """Marks a function as a prompt, with the options ``mcp.prompt`` takes, without
    registering it (a provider does, or ``mcp.prompt(fn)``)."""
    given = named(name_or_fn, options)

    def marked(fn: F) -> F:
        return mark(fn, Marked("prompt", given))

    return marked(name_or_fn) if callable(name_or_fn) else marked


__all__ = ["FunctionPrompt", "Message", "Prompt", "PromptResult", "prompt"]

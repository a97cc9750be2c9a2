"""Prompt helpers under the names the official SDK gives them (``mcp.server.mcpserver.prompts``)."""

from .base import AssistantMessage, Message, Prompt, UserMessage

__all__ = ["AssistantMessage", "Message", "Prompt", "UserMessage"]

"""Prompt helpers under the names the official SDK gives them (``mcp.server.mcpserver.prompts``)."""

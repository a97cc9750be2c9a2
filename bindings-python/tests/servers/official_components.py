"""A server written the way the official SDK's users add resources and prompts as objects:
`TextResource`, `BinaryResource`, `FileResource` (text, and bytes by its MIME type),
`DirectoryResource` and `FunctionResource.from_function` from
`mcp.server.mcpserver.resources`, given to `mcp.add_resource`; `Prompt.from_function` given
to `mcp.add_prompt`. `tests/test_dropin.py` serves it with the official SDK and, with its
imports changed, with oxmcp, and compares what the official client sees."""

import tempfile
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.resources import (
    BinaryResource,
    DirectoryResource,
    FileResource,
    FunctionResource,
    TextResource,
)

mcp = MCPServer("Components")
files = Path(tempfile.mkdtemp())
(files / "readme.md").write_text("# Readme\nHello.")
(files / "logo.png").write_bytes(b"\x89PNG\r\n")
(files / "docs").mkdir()
(files / "docs" / "guide.md").write_text("guide")

mcp.add_resource(TextResource(uri="resource://notice", name="notice", text="Maintenance on Sunday.", meta={"k": 1}))
mcp.add_resource(BinaryResource(uri="resource://magic", data=b"\x00\x01\x02", mime_type="application/octet-stream"))
mcp.add_resource(
    FileResource(
        uri="file:///readme.md",
        path=files / "readme.md",
        name="readme",
        title="Read me",
        description="What this is",
        mime_type="text/markdown",
    )
)
mcp.add_resource(FileResource(uri="file:///logo.png", path=files / "logo.png", mime_type="image/png"))
mcp.add_resource(DirectoryResource(uri="resource://docs", path=files / "docs", name="docs"))


def settings() -> dict:
    """The app's settings."""
    return {"theme": "dark", "beta": True}


mcp.add_resource(FunctionResource.from_function(settings, "config://settings", mime_type="application/json"))


def review(code: str, language: str = "python") -> str:
    """Asks for a review."""
    return f"Review this {language} code:\n{code}"


mcp.add_prompt(Prompt.from_function(review, name="code_review", title="Code review"))

"""Resources and prompts added as objects (``oxmcp.resources``, ``oxmcp.prompts.Prompt``,
FastMCP's ``Progress``): what they refuse when made, and a read that fails, through a real
client of the server. What they read is compared with the official SDK and FastMCP in
``test_dropin.py``."""

from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from oxmcp import Client, McpError, Server
from oxmcp.fastmcp import FastMCP
from oxmcp.fastmcp.dependencies import Progress
from oxmcp.prompts import Prompt
from oxmcp.resources import FileResource, HttpResource, TextResource


class _Latin1(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = "café".encode("latin-1")
        self.send_response(200 if self.path == "/menu" else 404)
        self.send_header("Content-Type", "text/plain; charset=latin-1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering `/menu` in Latin-1, anything else 404."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Latin1)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_what_a_resource_object_refuses_when_made(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="Path must be absolute"):
        FileResource(uri="file:///x", path=Path("relative.txt"))
    with pytest.raises(ValidationError, match="unknown encoding"):
        FileResource(uri="file:///x", path=tmp_path / "x", encoding="no-such-codec")
    with pytest.raises(ValidationError, match="not an http or https URL"):
        HttpResource(uri="web://secrets", url="file:///etc/passwd")
    with pytest.raises(ValidationError, match="extra"):
        TextResource(uri="memo://1", text="hi", body="misspelt")
    assert TextResource(uri="memo://1", text="hi").name == "memo://1"
    assert FileResource(uri="file:///x", path=tmp_path / "x", mime_type="image/png").encoding is None
    assert FileResource(uri="file:///x", path=tmp_path / "x", mime_type="text/csv; charset=cp1252").encoding == "cp1252"


async def test_a_read_that_fails_is_an_error_and_the_server_reads_on(tmp_path: Path, site: str) -> None:
    """A file gone, an HTTP error: the read is answered with an error, and the next read
    (an HTTP body in its charset, a file read as bytes by its MIME type) is answered."""
    (tmp_path / "logo.png").write_bytes(b"\x89PNG")
    server = Server("objects")
    server.add_resource(FileResource(uri="file:///gone.txt", path=tmp_path / "gone.txt"))
    server.add_resource(FileResource(uri="file:///logo.png", path=tmp_path / "logo.png", mime_type="image/png"))
    server.add_resource(HttpResource(uri="web://menu", url=f"{site}/menu", mime_type="text/plain"))
    server.add_resource(HttpResource(uri="web://missing", url=f"{site}/missing"))
    async with Client(server) as client:
        for uri in ("file:///gone.txt", "web://missing"):
            with pytest.raises(McpError):
                await client.read_resource(uri)
        menu = await client.read_resource("web://menu")
        logo = await client.read_resource("file:///logo.png")
    assert menu.contents[0].to_wire() == {"uri": "web://menu", "mimeType": "text/plain", "text": "café"}
    assert logo.contents[0].to_wire() == {"uri": "file:///logo.png", "mimeType": "image/png", "blob": "iVBORw=="}


async def test_a_prompt_object_is_listed_and_rendered_as_its_function_would_be() -> None:
    def review(code: str) -> str:
        """Asks for a review."""
        return f"Review: {code}"

    server = Server("objects")
    server.add_prompt(Prompt.from_function(review, name="code_review", title="Code review"))
    async with Client(server) as client:
        (listed,) = await client.list_prompts()
        rendered = await client.get_prompt("code_review", {"code": "x = 1"})
    assert (listed.name, listed.title, listed.description) == ("code_review", "Code review", "Asks for a review.")
    assert rendered.messages[0].content.text == "Review: x = 1"
    with pytest.raises(ValueError, match="lambda"):
        Prompt.from_function(lambda: "x")


async def test_progress_of_a_task_is_its_status() -> None:
    """A tool run as a task: what its ``Progress`` says it is doing is the task's status
    message, which polling shows."""
    mcp = FastMCP("progress")

    @mcp.tool(task=True)
    async def crunch(progress: Progress = Progress()) -> str:  # noqa: B008 (FastMCP's way)
        await progress.set_total(2)
        await progress.increment()
        await progress.set_message("crunching the second half")
        await asyncio.sleep(30)
        return "crunched"

    async with Client(mcp) as client:
        task = await client.call_tool_as_task("crunch", {})
        for _ in range(200):
            status = await task.status()
            if status is not None and status.status_message is not None:
                break
            await asyncio.sleep(0.02)
        await task.cancel()
    assert status is not None and status.status_message == "crunching the second half"


async def test_progress_is_a_dependency_only_and_counts_forward() -> None:
    """``Progress()`` used outside a call says how to use it; a total below 1 or a step
    below 1 is refused in the call, which fails as a tool error."""
    with pytest.raises(RuntimeError, match="dependency"):
        await Progress().increment()
    mcp = FastMCP("progress")

    @mcp.tool
    async def backwards(progress: Progress = Progress()) -> str:  # noqa: B008 (FastMCP's way)
        await progress.increment(0)
        return "counted"

    async with Client(mcp) as client:
        result = await client.call_tool("backwards", {})
    assert result.is_error and "Amount must be at least 1" in result.content[0].text

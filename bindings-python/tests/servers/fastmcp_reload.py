"""A server FastMCP's users run while writing its components: a `FileSystemProvider` with
`reload=True` over a directory whose files change between requests (a tool rewritten, a
file added, one that fails to import, one removed). `tests/test_dropin.py` runs it with
FastMCP and, with its imports changed, with oxmcp, and compares what a client saw after
each change."""

import asyncio
import os
import tempfile
from pathlib import Path

from fastmcp import Client, FastMCP
from fastmcp.server.providers import FileSystemProvider

GREET = '''
from fastmcp.tools import tool


@tool
def greet(name: str) -> str:
    """Greets someone."""
    return "{greeting}, " + name
'''

PROMPT = '''
from fastmcp.prompts import prompt


@prompt
def review(code: str) -> str:
    """Asks for a review."""
    return "Review this: " + code
'''


def write(path: Path, text: str) -> None:
    path.write_text(text)
    # A later modification time than the last write, however coarse the file system's clock.
    stamp = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


async def seen(client: Client, step: str) -> None:
    tools = [tool.name for tool in await client.list_tools()]
    prompts = [prompt.name for prompt in await client.list_prompts()]
    called = None
    if "greet" in tools:
        called = (await client.call_tool("greet", {"name": "Ada"})).content[0].text
    print(step, tools, prompts, called)


async def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        write(root / "greet.py", GREET.format(greeting="Hello"))
        provider = FileSystemProvider(root, reload=True)
        mcp = FastMCP("Dev", providers=[provider])
        async with Client(mcp) as client:
            await seen(client, "first")
            write(root / "greet.py", GREET.format(greeting="Good morning"))
            await seen(client, "rewritten")
            write(root / "review.py", PROMPT)
            await seen(client, "added")
            write(root / "broken.py", "import no_such_module\n")
            await seen(client, "broken")
            print("failed", sorted(path.name for path in provider.failed_files))
            (root / "greet.py").unlink()
            await seen(client, "removed")


if __name__ == "__main__":
    asyncio.run(main())

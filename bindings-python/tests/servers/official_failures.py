"""A server written with the official SDK whose tools, resources and prompts fail the ways
its users' do: a `ToolError` and a `ResourceError` meant for the client, an `MCPError`, and
exceptions nobody meant, whose text must stay on the server. `tests/test_dropin.py` has the
official client call it on the official SDK and, with its imports changed, on oxmcp, and
compares what the client reads."""

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError

mcp = MCPServer("Failures")


@mcp.tool()
def withdraw(amount: int) -> str:
    """Withdraws money, refusing more than there is."""
    if amount > 100:
        raise ToolError(f"only 100 left, {amount} asked")
    if amount < 0:
        raise MCPError(-32099, "a negative amount", {"amount": amount})
    # A crash: the key in its text must not reach the client.
    raise KeyError("vault key 1234")


@mcp.resource("ledger://current")
def ledger() -> str:
    """The ledger, whose store is down."""
    raise ConnectionError("db at 10.0.0.7:5432 refused")


@mcp.resource("ledger://archived")
def archived() -> str:
    """An archived ledger, not served."""
    raise ResourceError("the ledger was archived")


@mcp.resource("ledger://day/{day}")
def by_day(day: str) -> str:
    """A day's ledger, whose parser breaks."""
    return str(int(day) // 0)


@mcp.prompt()
def audit(account: str) -> str:
    """An audit prompt, whose template is missing."""
    raise FileNotFoundError(f"/srv/templates/{account}.txt")


if __name__ == "__main__":
    mcp.run()

"""A FastMCP server whose tools, resources and prompts fail the ways its users' do: with
FastMCP's errors, meant for the client, and with exceptions nobody meant, served as they
are and with ``mask_error_details`` (given, and left to the environment's
``FASTMCP_MASK_ERROR_DETAILS``). `tests/test_dropin.py` runs it with FastMCP and with its
imports changed, and compares what its client prints."""

import asyncio
import os

# Before FastMCP reads its settings from the environment, at its import.
os.environ["FASTMCP_MASK_ERROR_DETAILS"] = "true"

from fastmcp import Client, FastMCP
from fastmcp.exceptions import PromptError, ResourceError, ToolError


def server(masked: bool | None) -> FastMCP:
    mcp = FastMCP("Failures", mask_error_details=masked)

    @mcp.tool
    def withdraw(amount: int) -> str:
        """Withdraws money, refusing more than there is."""
        if amount > 100:
            raise ToolError(f"only 100 left, {amount} asked")
        raise KeyError("vault key 1234")

    @mcp.resource("ledger://current")
    def ledger() -> str:
        raise ConnectionError("db at 10.0.0.7:5432 refused")

    @mcp.resource("ledger://archived")
    def archived() -> str:
        raise ResourceError("the ledger was archived")

    @mcp.resource("ledger://day/{day}")
    def by_day(day: str) -> str:
        return str(int(day) // 0)

    @mcp.prompt
    def audit(account: str) -> str:
        if account == "closed":
            raise PromptError("the account is closed")
        raise FileNotFoundError(f"/srv/templates/{account}.txt")

    return mcp


async def main() -> None:
    for masked in (False, True, None):
        async with Client(server(masked)) as client:
            for amount in (500, 5):
                result = await client.call_tool("withdraw", {"amount": amount}, raise_on_error=False)
                print(masked, "withdraw", amount, result.is_error, result.content[0].text)
            for uri in ("ledger://current", "ledger://archived", "ledger://day/3"):
                try:
                    await client.read_resource(uri)
                except Exception as error:
                    print(masked, uri, type(error).__name__, error)
            for account in ("closed", "acme"):
                try:
                    await client.get_prompt("audit", {"account": account})
                except Exception as error:
                    print(masked, "audit", account, type(error).__name__, error)


if __name__ == "__main__":
    asyncio.run(main())

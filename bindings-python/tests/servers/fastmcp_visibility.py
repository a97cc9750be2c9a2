"""A server written the way FastMCP's users hide and show what it offers: by tag, by name
and by kind for every client (`mcp.disable`, `mcp.enable`), and for one session from a
tool (`ctx.enable_components`, `ctx.disable_components`, `ctx.reset_visibility`)."""

from fastmcp import Context, FastMCP

mcp = FastMCP("Visibility")


@mcp.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool(tags={"internal"})
def purge() -> str:
    """Purges the caches."""
    return "purged"


@mcp.tool(tags={"beta"})
def preview() -> str:
    """Previews what comes next."""
    return "soon"


@mcp.resource("notes://public")
def public_notes() -> str:
    return "public"


@mcp.resource("notes://secret", tags={"internal"})
def secret_notes() -> str:
    return "secret"


@mcp.resource("users://{user_id}/profile", tags={"beta"})
def profile(user_id: str) -> str:
    return f"profile of {user_id}"


@mcp.resource("files://{name}")
def file(name: str) -> str:
    return f"file {name}"


@mcp.prompt
def greet(name: str) -> str:
    return f"Hello {name}"


@mcp.prompt(tags={"internal"})
def audit(scope: str) -> str:
    return f"Audit {scope}"


@mcp.tool
async def show_internal(ctx: Context) -> str:
    """Shows the internal tools to this session."""
    await ctx.enable_components(tags={"internal"}, components={"tool"})
    return "shown"


@mcp.tool
async def hide_add(ctx: Context) -> str:
    """Hides `add` from this session."""
    await ctx.disable_components(names={"add"})
    return "hidden"


@mcp.tool
async def reset(ctx: Context) -> str:
    """Back to what the server shows everyone."""
    await ctx.reset_visibility()
    return "reset"


mcp.disable(tags={"internal", "beta"})
mcp.enable(names={"preview"})
mcp.disable(names={"files://{name}"})


if __name__ == "__main__":
    mcp.run()

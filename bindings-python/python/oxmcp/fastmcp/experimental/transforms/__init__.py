"""FastMCP's ``fastmcp.experimental.transforms``: :mod:`.code_mode`."""

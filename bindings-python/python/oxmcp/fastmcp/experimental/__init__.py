"""FastMCP's ``fastmcp.experimental``: :mod:`.transforms.code_mode`."""

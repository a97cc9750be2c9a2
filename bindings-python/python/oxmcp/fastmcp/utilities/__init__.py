"""FastMCP's ``fastmcp.utilities``."""

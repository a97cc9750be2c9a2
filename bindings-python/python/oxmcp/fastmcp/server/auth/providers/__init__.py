"""FastMCP's ``fastmcp.server.auth.providers``: the token verifiers a server is given."""

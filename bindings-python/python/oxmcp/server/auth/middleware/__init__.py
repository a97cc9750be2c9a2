"""The official SDK's ``mcp.server.auth.middleware``: what a handler reads of the caller's
token (:mod:`.auth_context`). Checking tokens is the core's, on every HTTP request."""

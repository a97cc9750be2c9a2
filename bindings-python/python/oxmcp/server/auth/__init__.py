"""The official SDK's ``mcp.server.auth`` as a resource server ported from it imports it
(``oxmcp.server.auth.provider``, ``oxmcp.server.auth.settings``): its ``TokenVerifier``,
``AccessToken`` and ``AuthSettings``, which :class:`~oxmcp.Server` takes as
``token_verifier=`` and ``auth=``. The tokens are checked in the Rust core as those of any
oxmcp verifier. An authorization server of the server's own is not there."""

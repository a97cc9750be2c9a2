"""FastMCP's ``fastmcp.skills.client``: a client's opting in to the skills extension."""

from __future__ import annotations

#: The skills extension's identifier (SEP-2640).
SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills"


class SkillsClientExtension:
    """Given to FastMCP's client (``Client(server, extensions=[SkillsClientExtension()])``),
    lets it list and get skills with the extension's requests (``skills/list``,
    ``skills/get``) when the server offers them; without it, ``read_skill`` reads a
    skill's ``_manifest``."""

    identifier = SKILLS_EXTENSION_ID

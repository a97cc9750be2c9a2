"""FastMCP's ``fastmcp.skills``: Agent Skills served with the skills extension (SEP-2640).
:class:`~oxmcp.fastmcp.skills.provider.SkillsDirectoryProvider` serves the skill folders
under directories, through the core's skills extension."""

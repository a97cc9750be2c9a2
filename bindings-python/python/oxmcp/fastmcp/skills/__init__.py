"""FastMCP's ``fastmcp.skills``: Agent Skills (the skills extension, SEP-2640).
:class:`~oxmcp.fastmcp.skills.provider.SkillsDirectoryProvider` serves the skill folders
under directories, through the core's skills extension; FastMCP's client lists, gets and
reads skills (``read_skill`` gives a :class:`Skill`, every file checked against the size
and digest the server lists) once given :class:`SkillsClientExtension`."""

from .client import SkillsClientExtension
from .skill import MCPSkill, Skill, SkillFile, SkillFrontmatter, SkillManifest, SkillResource

__all__ = [
    "MCPSkill",
    "Skill",
    "SkillFile",
    "SkillFrontmatter",
    "SkillManifest",
    "SkillResource",
    "SkillsClientExtension",
]

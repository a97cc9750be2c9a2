"""Skills made in code, the way FastMCP's users serve them: `Skill.from_files` and
`Skill(name=, description=, instructions=)`, given to a `SkillCatalogProvider` in a list and
at a path of their own, read back by FastMCP's client with the skills extension and without
it, and served by a server that mounts theirs. `tests/test_dropin.py` runs it with FastMCP
and, with its imports changed, with oxmcp, and compares what it printed."""

import asyncio
import json

from fastmcp import Client, FastMCP
from fastmcp.skills import Skill, SkillsClientExtension
from fastmcp.skills.provider import SkillCatalogProvider

REVIEW = Skill.from_files(
    {
        "SKILL.md": "---\nname: review\ndescription: Review a change\nlicense: MIT\n---\n# Review\nRead the diff.\n",
        "checklist.md": "- Tests\n- Names\n",
        "scripts/lint.py": "print('lint')\n",
    }
)
DEPLOY = Skill(
    name="deploy",
    description="Ship it — safely",
    instructions="Steps.\n",
    files={"logo.png": b"\x89PNG"},
    frontmatter={"metadata": {"team": "ops"}},
)

mcp = FastMCP("skills", providers=[SkillCatalogProvider([REVIEW]), SkillCatalogProvider({"ops/deploy": DEPLOY})])
# A server that mounts it serves its skills under the namespace.
team = FastMCP("team")
team.mount(mcp, "team")


async def main() -> None:
    async with Client(mcp, extensions=[SkillsClientExtension()]) as client:
        for resource in await client.list_resources():
            print(resource.model_dump(mode="json", by_alias=True, exclude_none=True))
        for entry in await client.list_skills():
            print(entry.model_dump(mode="json", by_alias=True, exclude_none=True))
            skill = await client.read_skill(entry.uri)
            print(entry.frontmatter.name, skill.description, list(skill.files), skill in (REVIEW, DEPLOY))
        print(json.loads((await client.read_resource("skill://ops/deploy/_manifest"))[0].text))
    async with Client(mcp) as client:
        print((await client.read_skill("skill://review/SKILL.md")).frontmatter)
    async with Client(team, extensions=[SkillsClientExtension()]) as client:
        print([(resource.name, str(resource.uri)) for resource in await client.list_resources()])
        print([entry.uri for entry in await client.list_skills()])
        print(list((await client.read_skill("skill://team/ops/deploy/SKILL.md")).files))


if __name__ == "__main__":
    asyncio.run(main())

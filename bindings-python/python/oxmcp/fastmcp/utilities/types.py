"""FastMCP's ``fastmcp.utilities.types``: the media a tool returns, as oxmcp's."""

from ...content import Audio, File, Image

__all__ = ["Audio", "File", "Image"]

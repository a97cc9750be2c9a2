"""The version of the oxmcp Python package."""

__version__ = "0.1.0"

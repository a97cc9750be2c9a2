"""The ``oxmcp`` command the package installs: the core's command line (``oxmcp --help``)."""

from __future__ import annotations

import signal
import sys

from . import _native


def main() -> None:
    """Runs ``oxmcp`` with this process's arguments and exits with its code."""
    # Ctrl-C stops the command at once, as it would the native binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_native.run_cli(["oxmcp", *sys.argv[1:]]))

"""Drives a server over stdio with echo calls run as tasks, or the same echo called plainly,
through oxmcp's Python client: what `costs.py` measures a task run with, against a plain
call made by the same driver. A task run is the call that creates the task, then what
reading its result takes: a `tasks/get` that finds it ended, and `tasks/result` in
2025-11-25 (in 2026-07-28 that `tasks/get` carries the result).

    python task_driver.py --era legacy --calls 1000 --warmup 200 --mode task -- SERVER...

Prints one JSON line: ``{"calls": n, "errors": n}``; a failed call counts as an error."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from oxmcp import Client

TEXT = "x" * 64


async def call(client: Client, mode: str) -> bool:
    """One call; whether it answered the echo."""
    if mode == "plain":
        result = await client.call_tool("echo", {"text": TEXT})
    else:
        task = await client.call_tool_as_task("echo_task", {"text": TEXT})
        if task.id is None:
            return False
        result = await task.result()
    return not result.is_error and result.structured_content is None and TEXT in str(result.content)


async def drive(command: list[str], era: str, mode: str, calls: int, in_flight: int) -> int:
    """Makes `calls` calls with `in_flight` outstanding; returns how many failed."""
    failed = 0
    queue = iter(range(calls))

    async def worker(client: Client) -> None:
        nonlocal failed
        for _ in queue:
            try:
                answered = await call(client, mode)
            except Exception as error:  # a failed call is counted, not fatal
                print(f"task_driver: a call failed: {error!r}", file=sys.stderr)
                answered = False
            failed += not answered

    async with Client.stdio(command, era=era) as client:
        await asyncio.gather(*(worker(client) for _ in range(in_flight)))
    return failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=["legacy", "modern"], required=True)
    parser.add_argument("--mode", choices=["plain", "task"], required=True)
    parser.add_argument("--calls", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--in-flight", type=int, default=32)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    total = args.warmup + args.calls
    errors = asyncio.run(drive(args.command, args.era, args.mode, total, args.in_flight))
    print(json.dumps({"calls": total, "errors": errors}))


if __name__ == "__main__":
    main()

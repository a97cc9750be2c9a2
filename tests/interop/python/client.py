"""A client written with the official Python SDK (`mcp`, pinned in the Makefile) that runs
every feature against an MCP server over Streamable HTTP and prints what it saw, as one JSON
object on the last line of stdout, for core/tests/http_official_clients.rs to check.

    python client.py URL --mode legacy|2026-07-28 [--no-stream]

The server is the interop server of core/tests/common/mod.rs. `--no-stream` skips what needs
the server to send messages before a legacy answer (progress, server requests, logs): a
server that answers with plain JSON cannot. In the 2026-07-28 era elicitation and sampling
travel in `input_required` results, so they run in every mode.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import warnings
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.client.context import ClientRequestContext

# The SDK marks legacy-only methods (logging/setLevel) deprecated; this client uses them on purpose.
warnings.simplefilter("ignore")


def text_of(result: types.CallToolResult | types.GetPromptResult) -> str:
    blocks = result.content if isinstance(result, types.CallToolResult) else [m.content for m in result.messages]
    return "".join(block.text for block in blocks if isinstance(block, types.TextContent))


async def run(url: str, mode: str, stream: bool) -> dict[str, Any]:
    seen: dict[str, Any] = {"elicitations": [], "samplings": [], "logs": []}

    async def on_elicit(_ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen["elicitations"].append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def on_sample(
        _ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        seen["samplings"].append(text_of_message(params.messages[0]))
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(text="Paris"), model="python-peer-model"
        )

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen["logs"].append({"level": params.level, "logger": params.logger, "data": params.data})

    client = Client(
        url,
        mode=mode,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        logging_callback=on_log,
        # 2026-07-28: log messages come only for requests that opt in with a level.
        log_level="info",
        client_info=types.Implementation(name="python-peer-client", version="1.0.0"),
        read_timeout_seconds=30,
        cache=None,
    )
    async with client:
        out: dict[str, Any] = {
            "protocol_version": client.protocol_version,
            "server_name": client.server_info.name if client.server_info else None,
        }
        out["tools"] = sorted(tool.name for tool in (await client.list_tools()).tools)
        out["echo"] = text_of(await client.call_tool("echo", {"text": "hi there"}))
        added = await client.call_tool("add", {"a": 2, "b": 40})
        out["add"] = {"structured": added.structured_content, "text": text_of(added)}
        failed = await client.call_tool("fail", {})
        out["fail"] = {"is_error": failed.is_error, "text": text_of(failed)}

        out["resources"] = sorted(r.uri for r in (await client.list_resources()).resources)
        out["templates"] = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        for key, uri in [("read", "greeting://world"), ("read_template", "greeting://people/Zoë")]:
            contents = (await client.read_resource(uri)).contents
            out[key] = [c.text for c in contents if isinstance(c, types.TextResourceContents)]
        out["prompts"] = [p.name for p in (await client.list_prompts()).prompts]
        out["prompt"] = text_of(await client.get_prompt("review", {"code": "x = 1"}))

        if stream or mode != "legacy":
            # A server request (legacy) or an input_required round (2026-07-28), answered above.
            out["confirm"] = text_of(await client.call_tool("confirm", {}))
            out["ask_llm"] = text_of(await client.call_tool("ask_llm", {}))
        if stream:
            progress: list[list[Any]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append([value, total, message])

            out["slow"] = text_of(await client.call_tool("slow", {"steps": 3}, progress_callback=on_progress))
            out["progress"] = progress
            if mode == "legacy":
                await client.set_logging_level("info")
            out["log"] = text_of(await client.call_tool("log", {}))
        out.update(seen)
    return out


def text_of_message(message: types.SamplingMessage) -> str:
    content = message.content
    blocks = content if isinstance(content, list) else [content]
    return "".join(block.text for block in blocks if isinstance(block, types.TextContent))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--no-stream", action="store_true")
    args = parser.parse_args()
    out = asyncio.run(run(args.url, args.mode, not args.no_stream))
    print(json.dumps(out, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    sys.exit(main())

// A client written with the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json; `make node-peers` installs it) that runs every feature against an MCP server over
// Streamable HTTP and prints what it saw, as one JSON object on the last line of stdout, for
// core/tests/http_official_clients.rs to check. The same report as ../python/client.py.
//
//     node client.mjs URL [--no-stream]
//
// SDK v1 speaks only the legacy era (initialize handshake). `--no-stream` skips what needs the
// server to send messages before an answer (progress, server requests, logs): a server that
// answers with plain JSON cannot.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [url, ...flags] = process.argv.slice(2);
const stream = !flags.includes("--no-stream");

const textOf = (blocks) =>
  blocks
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");

const seen = { elicitations: [], samplings: [], logs: [] };
const client = new Client(
  { name: "typescript-peer-client", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} }, sampling: {} } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  seen.elicitations.push(request.params.message);
  return { action: "accept", content: { name: "Ada" } };
});
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  seen.samplings.push(textOf([request.params.messages[0].content].flat()));
  return { role: "assistant", content: { type: "text", text: "Paris" }, model: "typescript-peer-model" };
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  const { level, logger, data } = notification.params;
  seen.logs.push({ level, logger: logger ?? null, data });
});

const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const out = {
  protocol_version: transport.protocolVersion ?? null,
  server_name: client.getServerVersion()?.name ?? null,
  session: transport.sessionId !== undefined,
};
const call = async (name, args, options) => client.callTool({ name, arguments: args }, undefined, options);

out.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
out.echo = textOf((await call("echo", { text: "hi there" })).content);
const added = await call("add", { a: 2, b: 40 });
out.add = { structured: added.structuredContent ?? null, text: textOf(added.content) };
const failed = await call("fail", {});
out.fail = { is_error: failed.isError ?? false, text: textOf(failed.content) };

out.resources = (await client.listResources()).resources.map((resource) => resource.uri).sort();
out.templates = (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
for (const [key, uri] of [
  ["read", "greeting://world"],
  ["read_template", "greeting://people/Zoë"],
]) {
  out[key] = (await client.readResource({ uri })).contents.filter((c) => "text" in c).map((c) => c.text);
}
out.prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
const prompt = await client.getPrompt({ name: "review", arguments: { code: "x = 1" } });
out.prompt = textOf(prompt.messages.map((message) => message.content));

if (stream) {
  out.confirm = textOf((await call("confirm", {})).content);
  out.ask_llm = textOf((await call("ask_llm", {})).content);
  const progress = [];
  const onprogress = ({ progress: value, total, message }) => progress.push([value, total ?? null, message ?? null]);
  out.slow = textOf((await call("slow", { steps: 3 }, { onprogress })).content);
  out.progress = progress;
  await client.setLoggingLevel("info");
  out.log = textOf((await call("log", {})).content);
}
Object.assign(out, seen);

// Ends the session (DELETE) as a well-behaved client does, then closes.
if (out.session) await transport.terminateSession();
await client.close();
console.log(JSON.stringify(out));

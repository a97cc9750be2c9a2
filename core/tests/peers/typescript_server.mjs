// A small MCP server written with the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json; `make node-peers` installs it), for core/tests/http_client_typescript.rs: McpServer
// and StreamableHTTPServerTransport on node:http. The same tools and resources as python_server.py.
//
//     node typescript_server.mjs [--json-response] [--stateless]
//
// It binds 127.0.0.1 on a free port and prints `LISTENING <port>` on stdout once it accepts
// connections. The MCP endpoint is /mcp.

import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const flags = process.argv.slice(2);
const jsonResponse = flags.includes("--json-response");
const stateless = flags.includes("--stateless");

// Sessions the clients ended with DELETE, for the `sessions_closed` tool.
let sessionsClosed = 0;

const text = (value) => ({ content: [{ type: "text", text: value }] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function build() {
  const server = new McpServer({ name: "typescript-peer", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Returns its input.", inputSchema: { text: z.string() } },
    async ({ text: value }) => text(value),
  );
  server.registerTool(
    "slow",
    {
      description: "Reports progress `steps` times, `delay` seconds apart.",
      inputSchema: { steps: z.number().int(), delay: z.number() },
    },
    async ({ steps, delay }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: step, total: steps, message: `step ${step}` },
          });
        }
        await sleep(delay * 1000);
      }
      return text(`done after ${steps} steps`);
    },
  );
  server.registerTool("greet", { description: "Asks the user for a name (elicitation/create)." }, async (extra) => {
    const answer = await extra.sendRequest(
      {
        method: "elicitation/create",
        params: {
          message: "What is your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
      ElicitResultSchema,
    );
    return text(`Hello, ${answer.content?.name}!`);
  });
  server.registerTool("fail", { description: "Fails, as a tool execution error." }, async () => ({
    ...text("failed on purpose"),
    isError: true,
  }));
  server.registerTool("sessions_closed", { description: "How many sessions were ended by DELETE." }, async () =>
    text(String(sessionsClosed)),
  );
  server.registerResource("world", "greeting://world", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "Hello, world" }],
  }));
  server.registerResource(
    "person",
    new ResourceTemplate("greeting://people/{name}", { list: undefined }),
    { mimeType: "text/plain" },
    async (uri, { name }) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: `Hello, ${decodeURIComponent(name)}` }],
    }),
  );
  server.registerPrompt("review", { argsSchema: { code: z.string() } }, async ({ code }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Please review: ${code}` } }],
  }));
  return server;
}

// Stateful: one transport (and server) per session, found by Mcp-Session-Id.
const transports = new Map();

async function transportFor(request, body) {
  if (stateless) {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: jsonResponse });
    await build().connect(transport);
    return transport;
  }
  const id = request.headers["mcp-session-id"];
  if (id !== undefined) return transports.get(id);
  if (body?.method !== "initialize") return undefined;
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: jsonResponse,
    onsessioninitialized: (sessionId) => transports.set(sessionId, transport),
    onsessionclosed: (sessionId) => {
      transports.delete(sessionId);
      sessionsClosed += 1;
    },
  });
  await build().connect(transport);
  return transport;
}

const http = createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString();
  let body;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = undefined;
  }
  const transport = await transportFor(request, body);
  if (transport === undefined) {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
    return;
  }
  await transport.handleRequest(request, response, body);
});

http.listen(0, "127.0.0.1", () => {
  console.log(`LISTENING ${http.address().port}`);
});

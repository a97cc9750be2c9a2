// Servers written for the official TypeScript SDK, ported by changing their imports: the
// SDK's own examples (read from the pinned package at run time, not copied into the
// repository), over stdio and Streamable HTTP, run once as published and once with `oxmcp`
// in place of the SDK's server modules, and the official client must get the same lists
// and results from both.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';

import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { connect as connectSocket, createServer } from 'node:net';
import { PassThrough, Writable } from 'node:stream';

import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as OfficialMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport as OfficialStdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  McpError as OfficialMcpError,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

import { nextEvent } from './helpers.mjs';

import {
  McpServer,
  ResourceTemplate,
  Server,
  SSEServerTransport,
  StdioServerTransport,
  StreamableHTTPServerTransport,
  WebStandardStreamableHTTPServerTransport,
} from 'oxmcp';
import { InMemoryTaskStore, McpError, UrlElicitationRequiredError } from 'oxmcp/sdk';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const EXAMPLES = join(
  dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/sdk/server/mcp.js'))),
  '..',
  'examples',
  'server',
);
// Inside the repository, so that the port resolves `oxmcp` and zod as the tests do.
const PORTS = join(ROOT, 'target', 'dropin-node');

/**
 * The example `name` with its SDK server imports replaced by `oxmcp` (and its imports of
 * the examples' own helpers made to reach them from where the port is); the path of the port.
 */
function portExample(name, replacement = "from 'oxmcp'") {
  const modules = /from '\.\.\/\.\.\/(server\/[\w/]+|types|experimental\/[\w/-]+)\.js'/g;
  const path = port(join(EXAMPLES, `${name}.js`), modules, replacement);
  // The examples' own helpers sit beside them in the SDK's package (`../<dir>/<helper>.js`,
  // `./<helper>.js`).
  const published = pathToFileURL(dirname(EXAMPLES)).href;
  const helpers = readFileSync(path, 'utf8')
    .replace(/from '\.\.\/(\w+\/[\w.-]+\.js)'/g, `from '${published}/$1'`)
    .replace(/from '\.\/([\w.-]+\.js)'/g, `from '${published}/server/$1'`);
  writeFileSync(path, helpers);
  return path;
}

/** The server at `path` with the imports `imports` matches made `replacement`; the path of the port. */
function port(path, imports, replacement) {
  const original = readFileSync(path, 'utf8');
  const name = basename(path).replace(/\.m?js$/, '');
  assert.ok(imports.test(original), `${name} imports the SDK's server modules`);
  const ported = original.replace(imports, replacement);
  const changed = ported.split('\n').filter((line, i) => line !== original.split('\n')[i]);
  assert.ok(changed.every((line) => /^(import |} from )/.test(line)), `only imports changed: ${changed}`);
  mkdirSync(PORTS, { recursive: true });
  const target = join(PORTS, `${name}.mjs`);
  writeFileSync(target, ported);
  return target;
}

/** A port nothing listens on now. */
async function freePort() {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port: free } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

/**
 * The official client; with `capabilities.sampling` it answers sampling with a summary, with
 * `capabilities.elicitation` it accepts each form filled in (see `filledIn`).
 */
function officialClient(capabilities = {}) {
  const client = new OfficialClient({ name: 'dropin-test', version: '1.0.0' }, { capabilities });
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: `summary of ${request.params.messages[0].content.text.length} chars` },
    }));
  }
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async ({ params }) => ({
      action: 'accept',
      content: filledIn(params.requestedSchema),
    }));
  }
  return client;
}

/** A user's answer to a form: the first choice of each field, else a value its type and bounds allow. */
function filledIn(schema) {
  const texts = { email: 'ada@example.com', date: '2024-12-27', 'date-time': '2024-12-27T19:00:00Z' };
  const answer = (field) => {
    const choices = field.enum ?? field.oneOf?.map((choice) => choice.const);
    if (choices) return choices[0];
    switch (field.type) {
      case 'boolean':
        return true;
      case 'integer':
      case 'number':
        return field.minimum ?? 30;
      case 'array':
        return [answer(field.items)];
      default:
        return texts[field.format] ?? 'a'.repeat(Math.min(Math.max(field.minLength ?? 0, 8), field.maxLength ?? 8));
    }
  };
  return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, field]) => [name, answer(field)]));
}

/**
 * Runs `use(client)` with the official client (of `capabilities`) connected to `node path`
 * serving on `port` (given as `MCP_PORT` and `PORT`; the examples without either use 3000)
 * through `transport` (Streamable HTTP at `/mcp` unless given), then stops it.
 */
async function withHttpServer(path, port, use, capabilities, transport = streamableAt('/mcp')) {
  const env = { ...process.env, MCP_PORT: String(port), PORT: String(port) };
  const child = spawn(process.execPath, [path], { env, stdio: 'ignore' });
  try {
    for (let tries = 0; ; tries++) {
      const client = officialClient(capabilities);
      try {
        await client.connect(transport(port));
      } catch (error) {
        // A refused HTTP+SSE stream would otherwise retry on its own for ever.
        await client.close();
        if (tries > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      try {
        return await use(client);
      } finally {
        await client.close();
      }
    }
  } finally {
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** The official Streamable HTTP client transport to `path` of the server on a port. */
function streamableAt(path) {
  return (port) => new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${path}`));
}

/** The official HTTP+SSE (2024-11-05) client transport, its stream at `path` of the server on a port. */
function sseAt(path) {
  return (port) => new SSEClientTransport(new URL(`http://127.0.0.1:${port}${path}`));
}

/**
 * The result the official client's `callToolStream` ends with for a call of tool `name` run
 * as a task, which it follows with `tasks/get` and `tasks/result` (the task's id, which
 * tags the result, made `<task>`).
 */
async function resultOfTask(client, name, args) {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  let created;
  for await (const message of stream) {
    if (message.type === 'error') throw message.error;
    created ??= message.task?.taskId;
    if (message.type === 'result') {
      assert.ok(created, `${name} ran as a task`);
      const related = message.result._meta?.[RELATED_TASK];
      assert.equal(related?.taskId, created);
      return { ...message.result, _meta: { ...message.result._meta, [RELATED_TASK]: { taskId: '<task>' } } };
    }
  }
  assert.fail(`${name}'s stream ended without a result`);
}

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * What the official client sees of `elicitationUrlExample` at `path`, behind the SDK's demo
 * OAuth server it starts: the client authorizes through the code flow, gets the URL
 * elicitations two tools require, and hears each one completed, the payment once confirmed
 * through the example's form, the third-party sign-in by the example's own timer. (The
 * example asks for an API key once the app's `handleRequest` of the client's GET stream
 * has returned, which the official transport does when the stream ends: no client hears it.)
 */
async function urlElicitations(path) {
  const [port, authPort] = [await freePort(), await freePort()];
  const env = { ...process.env, MCP_PORT: String(port), MCP_AUTH_PORT: String(authPort) };
  const child = spawn(process.execPath, [path], { env, stdio: 'ignore' });
  // The example names itself `localhost` in its URLs and its protected resource metadata.
  const endpoint = new URL(`http://localhost:${port}/mcp`);
  const redirect = 'http://localhost/callback';
  const store = {};
  const provider = {
    redirectUrl: redirect,
    clientMetadata: { client_name: 'dropin', redirect_uris: [redirect], token_endpoint_auth_method: 'none' },
    clientInformation: () => store.client,
    saveClientInformation: (client) => void (store.client = client),
    tokens: () => store.tokens,
    saveTokens: (tokens) => void (store.tokens = tokens),
    saveCodeVerifier: (verifier) => void (store.verifier = verifier),
    codeVerifier: () => store.verifier,
    // The demo server authorizes at once: the user only follows its redirect back.
    async redirectToAuthorization(url) {
      const answer = await fetch(url, { redirect: 'manual' });
      await answer.body?.cancel();
      store.code = new URL(answer.headers.get('location')).searchParams.get('code');
    },
  };
  const asked = [];
  const completed = new Set();
  const connected = async () => {
    const client = new OfficialClient({ name: 'dropin-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async ({ params }) => {
      asked.push(params);
      return { action: 'accept' };
    });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => void completed.add(params.elicitationId));
    const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    try {
      await client.connect(transport);
      return client;
    } catch (error) {
      await client.close();
      if (!(error instanceof UnauthorizedError)) throw error;
      await transport.finishAuth(store.code);
      return connected();
    }
  };
  const completion = async (id) => {
    for (let tries = 0; !completed.has(id); tries++) {
      assert.ok(tries < 500, `elicitation ${id} completed`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const required = async (client, name, args) => {
    const error = await client.callTool({ name, arguments: args }).then(
      (result) => assert.fail(`${name} answered ${JSON.stringify(result)}`),
      (error) => error,
    );
    return { code: error.code, elicitations: error.elicitations };
  };
  try {
    let client;
    for (let tries = 0; client === undefined; tries++) {
      client = await connected().catch(async (error) => {
        if (tries > 100 || !/fetch failed|ECONNREFUSED/.test(`${error} ${error.cause}`)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      });
    }
    try {
      const sessionId = client.transport.sessionId;
      const payment = await required(client, 'payment-confirm', { cartId: 'cart 7' });
      // What the user's browser posts, with the cookie of the example's demo sign-in.
      const [{ elicitationId }] = payment.elicitations;
      const confirmed = await fetch(new URL('/confirm-payment', endpoint), {
        method: 'POST',
        headers: { cookie: `demo_session=${encodeURIComponent(JSON.stringify({ name: 'Ada' }))}` },
        body: new URLSearchParams({ session: sessionId, elicitation: elicitationId, cartId: 'cart 7', action: 'confirm' }),
      });
      assert.equal(confirmed.status, 200, await confirmed.text());
      await completion(elicitationId);
      const signIn = await required(client, 'third-party-auth', { param1: 'x' });
      await completion(signIn.elicitations[0].elicitationId);
      const tools = (await client.listTools()).tools;
      // The port, the session and the elicitations' ids differ from run to run: ids are named by first use.
      const ids = new Map([[sessionId, '<session>']]);
      const name = (id) => ids.get(id) ?? (ids.set(id, `<id ${ids.size}>`), ids.get(id));
      const named = (value) =>
        JSON.parse(JSON.stringify(value).replaceAll(endpoint.host, 'localhost:<port>').replace(/[\w-]{32,36}/g, name));
      return named({ tools, asked, payment, signIn, completed: [...completed] });
    } finally {
      await client.close();
    }
  } finally {
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** What `use` gets from the published HTTP example and from its port, one after the other. */
async function bothWaysOverHttp(name, port, use, capabilities, transport) {
  const published = await withHttpServer(join(EXAMPLES, `${name}.js`), port, use, capabilities, transport);
  const ported = await withHttpServer(portExample(name), port, use, capabilities, transport);
  return { published, ported };
}

/**
 * Lists the tools and calls `start-notification-stream` (the HTTP+SSE examples' tool) for
 * `count` messages, with the log messages it sent meanwhile, their times made `<time>`.
 */
async function notificationStream(client, count) {
  const logs = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) =>
    logs.push({ ...params, data: params.data.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/, '<time>') }),
  );
  const tools = (await client.listTools()).tools;
  const result = await client.callTool({ name: 'start-notification-stream', arguments: { interval: 10, count } });
  return { tools, result, logs };
}

/** Runs `use(client)` with the official client connected over stdio to `node path`. */
async function withServer(path, use, capabilities) {
  const client = officialClient(capabilities);
  // The sampling example writes a line of its own on stdout; the client reports it and goes on.
  client.onerror = () => {};
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path], stderr: 'ignore' }));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** What `use` gets from the published example and from its port, side by side. */
async function bothWays(name, use, capabilities) {
  const published = await withServer(join(EXAMPLES, `${name}.js`), use, capabilities);
  const ported = await withServer(portExample(name), use, capabilities);
  return { published, ported };
}

/**
 * `tools` without `execution: { taskSupport: 'forbidden' }`, which the SDK lists on every
 * tool and oxmcp leaves out: the spec's default, so both say the same.
 */
function withoutDefaults(tools) {
  return tools.map(({ execution, ...tool }) =>
    execution?.taskSupport === 'forbidden' && Object.keys(execution).length === 1 ? tool : { ...tool, execution },
  );
}

describe('servers of the official TypeScript SDK with their imports changed', () => {
  it('mcpServerOutputSchema: the same tool, and structured results of the same shape', async () => {
    const { published, ported } = await bothWays('mcpServerOutputSchema', async (client) => {
      const { tools } = await client.listTools();
      const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo', country: 'NO' } });
      return { tools, result };
    });
    assert.deepEqual(ported.tools, withoutDefaults(published.tools));
    // The weather is random: the members and their types must match.
    const shape = (value) =>
      value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([key, member]) => [key, shape(member)]))
        : typeof value;
    assert.deepEqual(shape(ported.result.structuredContent), shape(published.result.structuredContent));
    assert.deepEqual(JSON.parse(ported.result.content[0].text), ported.result.structuredContent);
    assert.equal(ported.result.isError, published.result.isError);
  });

  it('progressExample: the same progress notifications and result', async () => {
    const { published, ported } = await bothWays('progressExample', async (client) => {
      const progress = [];
      const result = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, {
        onprogress: ({ progress: done, total, message }) => progress.push({ done, total, message }),
      });
      const invalid = await client.callTool({ name: 'count', arguments: { n: 0 } });
      return { tools: (await client.listTools()).tools, progress, result, invalid: invalid.isError };
    });
    assert.deepEqual(ported.tools, withoutDefaults(published.tools));
    assert.deepEqual(ported.progress, published.progress);
    assert.equal(ported.progress.length, 3);
    assert.deepEqual(ported.result, published.result);
    assert.equal(ported.invalid, true);
    assert.equal(ported.invalid, published.invalid);
  });

  it('toolWithSampleServer: mcpServer.server.createMessage asks the client within the call', async () => {
    const { published, ported } = await bothWays(
      'toolWithSampleServer',
      async (client) => ({
        tools: (await client.listTools()).tools,
        result: await client.callTool({ name: 'summarize', arguments: { text: 'a long text' } }),
      }),
      { sampling: {} },
    );
    assert.deepEqual(ported.tools, withoutDefaults(published.tools));
    assert.deepEqual(ported.result, published.result);
    assert.match(ported.result.content[0].text, /summary of \d+ chars/);
  });

  it('honoWebStandardStreamableHttp: a web-standard transport per request inside a Hono app', async () => {
    const { published, ported } = await bothWaysOverHttp('honoWebStandardStreamableHttp', await freePort(), async (client) => ({
      tools: (await client.listTools()).tools,
      result: await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }),
    }));
    assert.deepEqual(ported.tools, withoutDefaults(published.tools));
    assert.deepEqual(ported.result, published.result);
    assert.match(ported.result.content[0].text, /Hello, Ada!/);
  });

  // These two listen on port 3000, as published.
  it('jsonResponseStreamableHttp: sessions routed by the app to their transports, JSON answers', async () => {
    const { published, ported } = await bothWaysOverHttp('jsonResponseStreamableHttp', 3000, async (client) => ({
      session: typeof client.transport.sessionId,
      tools: (await client.listTools()).tools,
      result: await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }),
    }));
    assert.equal(ported.session, 'string');
    assert.deepEqual(ported, { ...published, tools: withoutDefaults(published.tools) });
  });

  it('simpleStatelessStreamableHttp: a server per request, zod defaults applied, log messages', async () => {
    const { published, ported } = await bothWaysOverHttp('simpleStatelessStreamableHttp', 3000, async (client) => {
      const logs = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => logs.push(params.level));
      // `count` is left out: its zod default (10) applies (without it, no message is sent).
      const result = await client.callTool({ name: 'start-notification-stream', arguments: { interval: 5 } });
      return {
        tools: (await client.listTools()).tools,
        prompts: (await client.listPrompts()).prompts,
        prompt: await client.getPrompt({ name: 'greeting-template', arguments: { name: 'Ada' } }),
        resource: await client.readResource({ uri: 'https://example.com/greetings/default' }),
        result,
        logs,
      };
    });
    // Two differences, both oxmcp's doing more: the log messages reach the client on the
    // call's own stream (the SDK's stateless transport has no stream to send them on and drops
    // them), and the rendered prompt keeps the prompt's description.
    assert.deepEqual(ported.logs, Array(10).fill('info'));
    assert.deepEqual(published.logs, []);
    assert.equal(ported.prompt.description, 'A simple greeting prompt template');
    const same = ({ logs, prompt: { description, ...prompt }, ...rest }) => ({ ...rest, prompt });
    assert.deepEqual(same(ported), same({ ...published, tools: withoutDefaults(published.tools) }));
  });

  it('elicitationFormExample: forms asked of the user within calls, answered the same', async () => {
    const calls = ['register_user', 'create_event', 'update_shipping_address'];
    const { published, ported } = await bothWaysOverHttp(
      'elicitationFormExample',
      await freePort(),
      async (client) => ({
        tools: (await client.listTools()).tools,
        results: await Promise.all(calls.map((name) => client.callTool({ name, arguments: {} }))),
      }),
      { elicitation: {} },
    );
    assert.deepEqual(ported.tools, withoutDefaults(published.tools));
    assert.deepEqual(ported.results, published.results);
    assert.ok(ported.results.every((result) => !result.isError), JSON.stringify(ported.results));
  });

  it('simpleStreamableHttp (imports from oxmcp/sdk): sessions, log messages, resources, prompts, its task tools and auth middleware', async () => {
    const use = async (client) => {
      const logs = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void logs.push(params));
      return {
        tools: (await client.listTools()).tools,
        prompts: (await client.listPrompts()).prompts,
        resources: (await client.listResources()).resources,
        greet: await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }),
        multi: await client.callTool({ name: 'multi-greet', arguments: { name: 'Ada' } }),
        files: await client.callTool({ name: 'list-files', arguments: { includeDescriptions: true } }),
        prompt: await client.getPrompt({ name: 'greeting-template', arguments: { name: 'Ada' } }),
        read: await client.readResource({ uri: 'https://example.com/greetings/default' }),
        // A task whose work, after `createTask` returned, asks the user (`elicitInputStream`)
        // and stores its result in the server's own `InMemoryTaskStore`.
        infoTask: await resultOfTask(client, 'collect-user-info-task', { infoType: 'contact' }),
        delayTask: await resultOfTask(client, 'delay', { duration: 10 }),
        logs,
      };
    };
    const at = await freePort();
    const asks = { elicitation: { form: {} } };
    const published = await withHttpServer(join(EXAMPLES, 'simpleStreamableHttp.js'), at, use, asks);
    const ported = await withHttpServer(portExample('simpleStreamableHttp', "from 'oxmcp/sdk'"), at, use, asks);
    assert.deepEqual(ported.tools, withoutDefaults(published.tools));
    // A rendered prompt keeps its description on oxmcp (see the README).
    delete ported.prompt.description;
    assert.deepEqual({ ...ported, tools: [] }, { ...published, tools: [] });
    // What the comparison rests on: the task tools are listed and answer, the log messages came.
    assert.ok(ported.tools.some((tool) => tool.name === 'delay' && tool.execution?.taskSupport === 'required'));
    assert.deepEqual(ported.infoTask.content, [
      { type: 'text', text: 'Collected contact info: {\n  "name": "aaaaaaaa",\n  "email": "aaaaaaaa"\n}' },
    ]);
    assert.deepEqual(
      ported.logs.map((log) => log.level),
      ['debug', 'info', 'info'],
    );
  });

  it('simpleTaskInteractive (imports from oxmcp/sdk): a low-level server keeping its own tasks, which ask the user and the model from tasks/result', async () => {
    const use = async (client) => ({
      tools: (await client.listTools()).tools,
      confirm: await resultOfTask(client, 'confirm_delete', { filename: 'important.txt' }),
      haiku: await resultOfTask(client, 'write_haiku', { topic: 'autumn leaves' }),
    });
    const at = await freePort();
    const asks = { elicitation: { form: {} }, sampling: {} };
    const published = await withHttpServer(join(EXAMPLES, 'simpleTaskInteractive.js'), at, use, asks);
    const ported = await withHttpServer(portExample('simpleTaskInteractive', "from 'oxmcp/sdk'"), at, use, asks);
    assert.deepEqual(ported, published);
    assert.deepEqual(ported.confirm.content, [{ type: 'text', text: "Deleted 'important.txt'" }]);
    assert.match(ported.haiku.content[0].text, /^Haiku:\nsummary of \d+ chars$/);
  });

  it('elicitationUrlExample: behind its OAuth server, URL elicitations required by tools and completed later', async () => {
    const published = await urlElicitations(join(EXAMPLES, 'elicitationUrlExample.js'));
    const ported = await urlElicitations(portExample('elicitationUrlExample'));
    assert.deepEqual(ported, { ...published, tools: withoutDefaults(published.tools) });
    assert.equal(ported.payment.code, -32042);
    assert.match(ported.payment.elicitations[0].url, /\/confirm-payment\?session=<session>&elicitation=<id 1>&cartId=cart%207$/);
    assert.deepEqual(ported.completed, ['<id 1>', '<id 2>']);
  });

  it('standaloneSseWithGetStreamableHttp: resources added while a client listens on its GET stream', async () => {
    const { published, ported } = await bothWaysOverHttp('standaloneSseWithGetStreamableHttp', 3000, async (client) => {
      const changed = new Promise((resolve) => client.setNotificationHandler(ResourceListChangedNotificationSchema, resolve));
      const before = (await client.listResources()).resources;
      const read = await client.readResource({ uri: before[0].uri });
      // The example adds a resource every 5 s and tells the listening clients.
      await changed;
      const after = (await client.listResources()).resources;
      return { before, read, grown: after.length > before.length };
    });
    assert.deepEqual(ported, published);
    assert.equal(ported.grown, true);
  });

  it("ssePollingExample: the server ends a call's stream mid-call, and the client resumes the rest", async () => {
    // The client's resumptions: GETs that name the last event they saw.
    let resumed = 0;
    const counting = (port) =>
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        fetch: (url, init) => {
          resumed += Number(init?.method === 'GET' && new Headers(init.headers).has('last-event-id'));
          return fetch(url, init);
        },
      });
    const use = async (client) => {
      resumed = 0;
      const logs = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => logs.push(params.data));
      const result = await client.callTool({ name: 'long-task', arguments: {} });
      return { tools: (await client.listTools()).tools, result, logs, resumed };
    };
    const { published, ported } = await bothWaysOverHttp('ssePollingExample', 3001, use, {}, counting);
    assert.deepEqual(ported, { ...published, tools: withoutDefaults(published.tools) });
    assert.equal(ported.logs.length, 4);
    assert.equal(ported.resumed, 1);
  });

  it('simpleSseServer: an SSEServerTransport per GET stream, its messages routed by session id', async () => {
    const { published, ported } = await bothWaysOverHttp(
      'simpleSseServer',
      3000,
      (client) => notificationStream(client, 3),
      {},
      sseAt('/mcp'),
    );
    assert.deepEqual(ported, { ...published, tools: withoutDefaults(published.tools) });
    assert.equal(ported.logs.length, 4);
    assert.equal(ported.logs[3].data, 'Notification #3 at <time>');
  });

  it('sseAndStreamableHttpCompatibleServer: HTTP+SSE and Streamable HTTP clients of one app', async () => {
    for (const transport of [sseAt('/sse'), streamableAt('/mcp')]) {
      const { published, ported } = await bothWaysOverHttp(
        'sseAndStreamableHttpCompatibleServer',
        3000,
        (client) => notificationStream(client, 2),
        {},
        transport,
      );
      assert.deepEqual(ported, { ...published, tools: withoutDefaults(published.tools) });
      assert.equal(ported.logs.length, 2);
    }
  });

  it('an SSEServerTransport names its session before it connects, and ends with its stream', async () => {
    const server = new McpServer({ name: 'sse', version: '1.0.0' });
    server.registerTool('ping', {}, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    const transports = new Map();
    const closed = [];
    const http = createHttpServer(async (req, res) => {
      const url = new URL(req.url, 'http://localhost');
      if (req.method === 'GET') {
        const transport = new SSEServerTransport('/rpc?tenant=a', res);
        transports.set(transport.sessionId, transport);
        transport.onclose = () => closed.push(transport.sessionId);
        await server.connect(transport);
      } else {
        await transports.get(url.searchParams.get('sessionId')).handlePostMessage(req, res);
      }
    });
    await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const client = new OfficialClient({ name: 'dropin-test', version: '1.0.0' });
      const clientTransport = new SSEClientTransport(new URL(`http://127.0.0.1:${http.address().port}/events`));
      const posted = [];
      const send = clientTransport.send.bind(clientTransport);
      clientTransport.send = (message) => {
        posted.push(clientTransport._endpoint.href);
        return send(message);
      };
      await client.connect(clientTransport);
      const [id] = transports.keys();
      assert.match(id, /^[0-9a-f-]{36}$/, 'a UUID, as the official transport makes');
      assert.ok(posted.every((href) => href.endsWith(`/rpc?tenant=a&sessionId=${id}`)), posted);
      assert.equal((await client.callTool({ name: 'ping', arguments: {} })).content[0].text, 'pong');
      await client.close();
      for (let tries = 0; closed.length === 0 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.deepEqual(closed, [id]);
      // The session ended with its stream: its id no longer reaches it.
      const late = await fetch(`http://127.0.0.1:${http.address().port}/rpc?sessionId=${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
      });
      assert.equal(late.status, 404);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await server.close();
    }
  });

  it("a StreamableHTTPServerTransport tells its callbacks a session's id and its end", async () => {
    const events = [];
    const server = new McpServer({ name: 'sessions', version: '1.0.0' });
    server.registerTool('ping', {}, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => 'ignored: oxmcp makes the ids',
      onsessioninitialized: (id) => events.push(['initialized', id]),
      onsessionclosed: (id) => events.push(['closed', id]),
    });
    transport.onclose = () => events.push(['onclose']);
    await server.connect(transport);
    const http = createHttpServer((req, res) => void transport.handleRequest(req, res));
    await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const client = new OfficialClient({ name: 'dropin-test', version: '1.0.0' });
      const clientTransport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.address().port}/mcp`));
      await client.connect(clientTransport);
      const id = clientTransport.sessionId;
      assert.match(id, /^[0-9a-f]{32}$/);
      assert.equal(transport.sessionId, id);
      assert.equal((await client.callTool({ name: 'ping', arguments: {} })).content[0].text, 'pong');
      await clientTransport.terminateSession();
      await client.close();
      assert.deepEqual(events, [['initialized', id], ['closed', id], ['onclose']]);
    } finally {
      await new Promise((resolve) => http.close(resolve));
      await server.close();
    }
  });

  it('a tool that throws UrlElicitationRequiredError answers -32042 with its elicitations', async () => {
    const server = new McpServer({ name: 'consent', version: '1.0.0' });
    const elicitation = { mode: 'url', message: 'Sign in', url: 'https://drive.example/consent', elicitationId: 'c-1' };
    server.registerTool('connect', {}, async () => {
      throw new UrlElicitationRequiredError([elicitation]);
    });
    await inProcess(server, async (client) => {
      await assert.rejects(client.callTool({ name: 'connect', arguments: {} }), (error) => {
        assert.equal(error.code, -32042);
        assert.deepEqual(error.data, { elicitations: [elicitation] });
        return true;
      });
    });
  });

  it('mcpServer.server.createElicitationCompletionNotifier tells the client once the user is done, after the call', async () => {
    const server = new McpServer({ name: 'consent', version: '1.0.0' });
    const notifiers = [];
    server.registerTool('connect', {}, async () => {
      notifiers.push(server.server.createElicitationCompletionNotifier('c-2'));
      throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Sign in', url: 'https://drive.example/consent', elicitationId: 'c-2' }]);
    });
    const { Client } = await import('oxmcp');
    for (const elicitationUrl of [true, false]) {
      const client = await Client.connectInProcess(server.oxmcp, { elicitation: async () => ({ action: 'cancel' }), elicitationUrl, era: 'legacy' });
      try {
        const refused = await client.callTool({ name: 'connect', arguments: {} }).catch((error) => error);
        if (elicitationUrl) {
          assert.equal(refused.code, -32042);
          const completed = nextEvent(client, 'notifications/elicitation/complete');
          await notifiers.pop()();
          assert.deepEqual(await completed, { elicitationId: 'c-2' });
        } else {
          // The SDK's refusal, thrown in the handler: a tool error (see the README).
          assert.equal(refused.isError, true);
          assert.match(refused.content[0].text, /does not support URL elicitation/);
        }
      } finally {
        await client.close();
      }
    }
  });

  it("experimental.tasks.registerToolTask: createTask runs as the task, and its stored result is the call's", async () => {
    const store = new InMemoryTaskStore();
    const server = new McpServer({ name: 'tasked', version: '1.0.0' }, { taskStore: store });
    const statuses = [];
    server.experimental.tasks.registerToolTask(
      'research',
      { description: 'Researches a topic', inputSchema: { topic: z.string() }, execution: { taskSupport: 'optional' } },
      {
        createTask: async ({ topic }, extra) => {
          const task = await extra.taskStore.createTask({ ttl: 60_000 });
          // The work goes on after createTask returns, as the SDK's examples write it.
          setTimeout(async () => {
            await extra.taskStore.updateTaskStatus(task.taskId, 'working', 'reading');
            statuses.push((await extra.taskStore.getTask(task.taskId)).status);
            await extra.taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `${topic}: done` }] });
          }, 50);
          return { task };
        },
        getTask: async () => assert.fail('the core answers tasks/get'),
        getTaskResult: async () => assert.fail('the core answers tasks/result'),
      },
    );
    server.experimental.tasks.registerToolTask(
      'doomed',
      { inputSchema: {} },
      {
        createTask: async (_args, extra) => {
          const task = await extra.taskStore.createTask();
          setTimeout(() => extra.taskStore.updateTaskStatus(task.taskId, 'failed', 'no sources'), 10);
          return { task };
        },
      },
    );
    await inProcess(server, async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => [tool.name, tool.execution?.taskSupport]),
        [['research', 'optional'], ['doomed', 'required']],
      );
      // A 2026-07-28 client with the tasks extension follows the task to its result.
      const result = await client.callTool({ name: 'research', arguments: { topic: 'bees' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'bees: done' }]);
      const failed = await client.callTool({ name: 'doomed', arguments: {} });
      assert.equal(failed.isError, true);
      assert.match(failed.content[0].text, /no sources/);
    });
    assert.deepEqual(statuses, ['working']);
    // The server's store held them while they ran; of those ended, it keeps the one made
    // with a time to live (the core answers for the other).
    assert.deepEqual(
      store.getAllTasks().map(({ status, ttl }) => [status, ttl]),
      [['completed', 60_000]],
    );
    store.cleanup();
  });

  it('the older tool(), resource() and prompt() forms and an empty parameters object', async () => {
    const server = new McpServer({ name: 'older-forms', version: '1.0.0' });
    server.tool('ping', async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    server.tool('boom', 'Fails on purpose', {}, async () => {
      throw new Error('boom');
    });
    server.tool('add', 'Adds', { a: z.number(), b: z.number() }, { readOnlyHint: true }, async ({ a, b }, extra) => ({
      content: [{ type: 'text', text: `${a + b} (request ${extra.requestId})` }],
    }));
    server.resource('config', 'config://app', async (uri) => ({ contents: [{ uri: uri.href, text: '{}' }] }));
    server.resource('user', new ResourceTemplate('users://{id}', { list: undefined }), async (uri, { id }) => ({
      contents: [{ uri: uri.href, text: `user ${id}` }],
    }));
    server.prompt('greet', 'Greets', { name: z.string() }, ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
    }));
    const { tools } = await inProcess(server, (client) => client.listTools());
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    assert.deepEqual(byName.ping.inputSchema, { type: 'object', properties: {} });
    assert.equal(byName.boom.inputSchema.type, 'object');
    assert.deepEqual(byName.add.annotations, { readOnlyHint: true });
    await inProcess(server, async (client) => {
      const boom = await client.callTool({ name: 'boom', arguments: {} });
      assert.equal(boom.isError, true);
      assert.match(boom.content[0].text, /boom/);
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.match(sum.content[0].text, /^5 \(request \d+\)$/);
      assert.equal((await client.readResource({ uri: 'users://7' })).contents[0].text, 'user 7');
      assert.equal((await client.readResource({ uri: 'config://app' })).contents[0].text, '{}');
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      assert.equal(prompt.messages[0].content.text, 'Hello Ada');
    });
    // The reported case, on oxmcp's own Server too: `{}` is an empty parameters object.
    new Server({ name: 'plain', version: '1' }).registerTool('boom', { description: 'Fails', inputSchema: {} }, () => 'ok');
    await assert.rejects(server.connect({}), /StdioServerTransport/);
  });

  it("an official Client connected through InMemoryTransport, as a port's tests connect it, gets what it gets from the original (experimental capabilities too)", async () => {
    const seen = async (Made, Refusal) => {
      const experimental = { 'acme/flags': { beta: true } };
      const server = new Made({ name: 'in-memory', version: '1.0.0' }, { capabilities: { experimental } });
      server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
      }));
      server.registerTool('boom', { inputSchema: {} }, async () => {
        throw new Error('the disk is full');
      });
      server.registerTool('refused', { inputSchema: {} }, async () => {
        throw new Refusal(-32099, 'not for you', { why: 'policy' });
      });
      // The port's core notices the end of the messages' stream a moment after the client
      // closes; the official server is told at once.
      const closed = new Promise((resolve) => {
        server.server.onclose = () => resolve(true);
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new OfficialClient({ name: 'test', version: '1.0.0' });
      await client.connect(clientSide);
      const answers = {
        experimental: client.getServerCapabilities()?.experimental,
        tools: (await client.listTools()).tools.map((tool) => tool.name),
      };
      for (const [name, args] of [['add', { a: 2, b: 3 }], ['boom', {}], ['refused', {}]]) {
        answers[name] = await client.callTool({ name, arguments: args });
      }
      await client.close();
      const gaveUp = new Promise((resolve) => setTimeout(resolve, 10_000, false).unref());
      return { ...answers, closed: await Promise.race([closed, gaveUp]) };
    };
    const published = await seen(OfficialMcpServer, OfficialMcpError);
    assert.deepEqual(await seen(McpServer, McpError), published);
    assert.deepEqual(published.refused, { content: [{ type: 'text', text: 'MCP error -32099: not for you' }], isError: true });
    assert.equal(published.closed, true);
    assert.deepEqual(published.experimental, { 'acme/flags': { beta: true } });
  });
});

describe("a StdioServerTransport given streams of the caller's, as the official one takes them", () => {
  /** The official client's end of a socket: a Transport as the official SDK defines one. */
  class SocketClientTransport {
    #buffer = new ReadBuffer();
    constructor(socket) {
      this.socket = socket;
    }
    async start() {
      this.socket.on('data', (chunk) => {
        this.#buffer.append(chunk);
        for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) {
          this.onmessage?.(message);
        }
      });
      this.socket.on('close', () => this.onclose?.());
    }
    async send(message) {
      this.socket.write(serializeMessage(message));
    }
    async close() {
      this.socket.end();
    }
  }

  /** Serves each connection of a TCP listener with a server of its own, as a user serving MCP on a socket writes it. */
  async function socketsServed(McpServerClass, StdioTransport) {
    const listener = createServer((socket) => {
      const server = new McpServerClass({ name: 'socket', version: '1.0.0' });
      server.registerTool('echo', { description: 'Echoes', inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: 'text', text }],
      }));
      socket.on('close', () => server.close());
      server.connect(new StdioTransport(socket, socket));
    });
    await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
    return listener;
  }

  async function visit(listener) {
    const clients = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const socket = connectSocket(listener.address().port, '127.0.0.1');
        await nextEvent(socket, 'connect');
        const client = new OfficialClient({ name, version: '1' });
        await client.connect(new SocketClientTransport(socket));
        return client;
      }),
    );
    try {
      return await Promise.all(
        clients.map(async (client, index) => ({
          tools: (await client.listTools()).tools,
          echo: await client.callTool({ name: 'echo', arguments: { text: `to ${index}` } }),
        })),
      );
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await new Promise((resolve) => listener.close(resolve));
    }
  }

  it("stops serving the streams when the transport is closed, as the official one's close() does", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const server = new McpServer({ name: 'closed', version: '1.0.0' });
    const transport = new StdioServerTransport(input, output);
    const told = [];
    transport.onclose = () => told.push('transport');
    server.server.onclose = () => told.push('server');
    await server.connect(transport);
    await transport.close();
    assert.deepEqual(told, ['transport', 'server']);
    assert.equal(server.isConnected(), false);
  });

  it('serves a connection on each socket and answers as the official SDK does', async () => {
    const published = await visit(await socketsServed(OfficialMcpServer, OfficialStdioServerTransport));
    const ported = await visit(await socketsServed(McpServer, StdioServerTransport));
    assert.deepEqual(ported.map(({ echo }) => echo.content[0].text), ['to 0', 'to 1']);
    assert.deepEqual(ported.map(({ echo }) => echo.content), published.map(({ echo }) => echo.content));
    assert.deepEqual(ported[0].tools, withoutDefaults(published[0].tools));
  });

  it("waits for a stream's 'drain' before writing more to it, and loses nothing", async () => {
    const input = new PassThrough();
    const writes = [];
    let waitedWrongly = 0;
    // A slow reader: a tiny buffer, each chunk taken on a later turn of the event loop.
    const output = new Writable({
      highWaterMark: 64,
      write(chunk, _encoding, done) {
        writes.push(chunk);
        setImmediate(done);
      },
    });
    const write = output.write.bind(output);
    output.write = (chunk, ...rest) => {
      if (output.writableNeedDrain) {
        waitedWrongly += 1;
      }
      return write(chunk, ...rest);
    };
    const server = new McpServer({ name: 'slow-reader', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StdioServerTransport(input, output);
    const closed = new Promise((resolve) => {
      transport.onclose = resolve;
    });
    await server.connect(transport);
    const line = (message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
    input.write(
      line({
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }) + line({ method: 'notifications/initialized' }),
    );
    const text = 'x'.repeat(1000);
    for (let id = 1; id <= 20; id += 1) {
      input.write(line({ id, method: 'tools/call', params: { name: 'echo', arguments: { text: `${id} ${text}` } } }));
    }
    const answers = () => Buffer.concat(writes).toString().split('\n').filter((answer) => answer !== '').map((answer) => JSON.parse(answer));
    while (answers().length < 21) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The input ending ends the serving, which the transport's `onclose` is told.
    input.end();
    await closed;
    assert.equal(server.isConnected(), false);
    const calls = answers().slice(1);
    assert.deepEqual(calls.map(({ id }) => id).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
    for (const { id, result } of calls) {
      assert.equal(result.content[0].text, `${id} ${text}`);
    }
    assert.equal(waitedWrongly, 0, "written to while it asked to wait for 'drain'");
  });
});

describe('a low-level server of the official TypeScript SDK with its imports changed to oxmcp/sdk', () => {
  /** What a client sees of the notes server (`fixtures/lowlevel-notes.mjs`), in the calls both eras have. */
  async function browse(client) {
    const first = await client.listTools();
    const second = await client.listTools({ cursor: first.nextCursor });
    return {
      tools: [...first.tools, ...second.tools],
      unknownTool: await client.callTool({ name: 'nope', arguments: {} }).catch((error) => error.code),
      resources: (await client.listResources()).resources,
      templates: (await client.listResourceTemplates()).resourceTemplates,
      read: await client.readResource({ uri: 'note:///todo' }),
      missing: await client.readResource({ uri: 'note:///none' }).catch((error) => error.code),
      prompts: (await client.listPrompts()).prompts,
      prompt: await client.getPrompt({ name: 'summarize', arguments: { note: 'groceries' } }),
      promptCompletion: (await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'note', value: 'g' } }))
        .completion,
      templateCompletion: (
        await client.complete({ ref: { type: 'ref/resource', uri: 'note:///{name}' }, argument: { name: 'name', value: 't' } })
      ).completion,
    };
  }

  /** The notes server's subscriptions and log level, as the official client (legacy era) drives them. */
  async function subscribeAndAdd(client) {
    const updates = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => void updates.push(params.uri));
    await client.subscribeResource({ uri: 'note:///todo' });
    await client.setLoggingLevel('warning');
    const added = await client.callTool({ name: 'add_note', arguments: { name: 'todo', text: 'ship it' } });
    const status = (await client.callTool({ name: 'status', arguments: {} })).structuredContent;
    await client.unsubscribeResource({ uri: 'note:///todo' });
    const unsubscribed = (await client.callTool({ name: 'status', arguments: {} })).structuredContent;
    for (let tries = 0; updates.length === 0 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { added, status, unsubscribed, updates, read: await client.readResource({ uri: 'note:///todo' }) };
  }

  const original = join(FIXTURES, 'lowlevel-notes.mjs');
  const ported = () => port(original, /from '@modelcontextprotocol\/sdk\/(server\/[a-zA-Z]+|types)\.js'/g, "from 'oxmcp/sdk'");

  it('the official client gets the same lists, results, errors and completions', async () => {
    const use = async (client) => ({ ...(await browse(client)), ...(await subscribeAndAdd(client)) });
    const published = await withServer(original, use);
    const port = await withServer(ported(), use);
    assert.deepEqual(port, published);
    // What the comparison rests on.
    assert.deepEqual(port.tools.map((tool) => tool.name), ['add_note', 'status']);
    assert.equal(port.unknownTool, -32602);
    assert.equal(port.missing, -32602);
    assert.deepEqual(port.promptCompletion.values, ['groceries']);
    assert.deepEqual(port.templateCompletion.values, ['todo']);
    assert.deepEqual(port.status, { count: 2, subscribed: ['note:///todo'], level: 'warning', greeted: 'dropin-test', met: 'dropin-test' });
    assert.deepEqual(port.unsubscribed.subscribed, []);
    assert.deepEqual(port.updates, ['note:///todo']);
    assert.equal(port.read.contents[0].text, 'ship it');
  });

  it('a 2026-07-28 client gets what the official client gets from the original', async () => {
    const published = await withServer(original, browse);
    const { Client } = await import('oxmcp');
    const client = await Client.connectStdio({ command: process.execPath, args: [ported()], era: 'modern' });
    try {
      const modern = await browse(client);
      assert.deepEqual({ ...modern, read: unstamped(modern.read), prompt: unstamped(modern.prompt) }, published);
    } finally {
      await client.close();
    }
  });
});

describe("resource templates that list their resources, written for the official SDK, its imports changed to oxmcp/sdk", () => {
  it('lists what the templates list after the registered resources, with the template metadata', async () => {
    const original = join(FIXTURES, 'listed-templates.mjs');
    const ported = port(original, /from '@modelcontextprotocol\/sdk\/server\/[\w/]+\.js'/g, "from 'oxmcp/sdk'");
    const browse = async (client) => ({
      resources: (await client.listResources()).resources,
      templates: (await client.listResourceTemplates()).resourceTemplates,
      read: (await client.readResource({ uri: 'notes://2' })).contents,
    });
    const published = await withServer(original, browse);
    assert.deepEqual(published.resources.map((resource) => resource.uri), ['docs://readme', 'notes://1', 'notes://2']);
    assert.deepEqual(await withServer(ported, browse), published);
  });
});

describe("an Express app protected with the official SDK's bearer middleware, its imports changed to oxmcp/sdk", () => {
  const original = join(FIXTURES, 'bearer-notes.mjs');
  const ported = () => port(original, /from '@modelcontextprotocol\/sdk\/(server\/[\w/]+|types)\.js'/g, "from 'oxmcp/sdk'");
  const as = (token) => (at) =>
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${at}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}`, 'X-Tenant': `${token.split('-')[0]}-team` } },
    });

  /** A request's status, the headers a client reads, and its body. */
  async function answer(url, init = {}) {
    const response = await fetch(url, init);
    const pick = ['www-authenticate', 'access-control-allow-origin', 'allow', 'content-type'];
    return {
      status: response.status,
      headers: Object.fromEntries(pick.map((name) => [name, response.headers.get(name)])),
      body: await response.text(),
    };
  }

  /** What callers with each token, and without one, get; and the metadata documents. */
  async function browse(at) {
    const mcp = `http://127.0.0.1:${at}/mcp`;
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const post = (authorization) => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...authorization },
      body: initialize,
    });
    const bob = new OfficialClient({ name: 'bob', version: '1' });
    await bob.connect(as('bob-token')(at));
    try {
      return {
        bob: {
          whoami: await bob.callTool({ name: 'whoami', arguments: {} }),
          add: await bob.callTool({ name: 'add_note', arguments: { text: 'no' } }),
        },
        refused: {
          none: await answer(mcp, post({})),
          scheme: await answer(mcp, post({ Authorization: 'Basic YWxpY2U6cHc=' })),
          unknown: await answer(mcp, post({ Authorization: 'Bearer nobody-token' })),
          stale: await answer(mcp, post({ Authorization: 'Bearer stale-token' })),
          scope: await answer(mcp, post({ Authorization: 'Bearer carol-token' })),
        },
        metadata: {
          resource: await answer(`http://127.0.0.1:${at}/.well-known/oauth-protected-resource/mcp`),
          server: await answer(`http://127.0.0.1:${at}/.well-known/oauth-authorization-server`),
          posted: await answer(`http://127.0.0.1:${at}/.well-known/oauth-protected-resource/mcp`, { method: 'POST' }),
        },
      };
    } finally {
      await bob.close();
    }
  }

  it('the same refusals, challenges and metadata, and the handlers see the caller as extra.authInfo and its headers as extra.requestInfo', async () => {
    const at = await freePort();
    const use = async (client) => ({
      alice: {
        tools: (await client.listTools()).tools,
        whoami: await client.callTool({ name: 'whoami', arguments: {} }),
        add: await client.callTool({ name: 'add_note', arguments: { text: 'ship it' } }),
      },
      ...(await browse(at)),
    });
    const published = await withHttpServer(original, at, use, {}, as('alice-token'));
    const port = await withHttpServer(ported(), at, use, {}, as('alice-token'));
    assert.deepEqual(port.alice.tools, withoutDefaults(published.alice.tools));
    assert.deepEqual({ ...port, alice: { ...port.alice, tools: [] } }, { ...published, alice: { ...published.alice, tools: [] } });
    // What the comparison rests on.
    assert.deepEqual(JSON.parse(port.alice.whoami.content[0].text), {
      clientId: 'alice',
      scopes: ['notes:read', 'notes:write'],
      resource: `http://127.0.0.1:${at}/mcp`,
      team: 'docs',
      expires: 'number',
      tenant: 'alice-team',
      path: '/mcp',
    });
    assert.equal(port.alice.add.content[0].text, 'added: ship it');
    assert.equal(JSON.parse(port.bob.whoami.content[0].text).clientId, 'bob');
    assert.equal(port.bob.add.isError, true);
    assert.equal(port.refused.none.status, 401);
    assert.match(port.refused.none.headers['www-authenticate'], /^Bearer error="invalid_token", .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
    assert.equal(JSON.parse(port.refused.stale.body).error_description, 'Token has expired');
    assert.equal(port.refused.scope.status, 403);
    assert.equal(JSON.parse(port.metadata.resource.body).resource, `http://127.0.0.1:${at}/mcp`);
    assert.equal(port.metadata.posted.status, 405);
  });

  it('a web-standard app hands the caller it authenticated to handleRequest as authInfo', async () => {
    const server = new McpServer({ name: 'web', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who is calling' }, async (extra) => ({
      content: [{ type: 'text', text: `${extra.authInfo?.clientId} ${extra.authInfo?.scopes.join(',')}` }],
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const call = async (authInfo) => {
      const request = new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
      return (await (await transport.handleRequest(request, { authInfo })).json()).result.content[0].text;
    };
    try {
      assert.equal(await call({ token: 't-1', clientId: 'app', scopes: ['notes:read', 'notes:write'], expiresAt: 1e10 }), 'app notes:read,notes:write');
      assert.equal(await call(undefined), 'undefined undefined');
    } finally {
      await server.close();
    }
  });
});

describe("the SDK's published reference server (@modelcontextprotocol/server-everything) with its imports changed", () => {
  const published = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist');

  /** The whole server, every import of the SDK's server modules made `oxmcp/sdk`. */
  function portEverything() {
    const target = join(PORTS, 'everything');
    rmSync(target, { recursive: true, force: true });
    cpSync(published, target, { recursive: true, filter: (source) => !source.includes('__tests__') });
    const imports = /from "@modelcontextprotocol\/sdk\/(server\/[a-zA-Z]+\.js|types\.js|experimental\/tasks)"/g;
    let changed = 0;
    for (const file of readdirSync(target, { recursive: true }).filter((name) => name.endsWith('.js'))) {
      const original = readFileSync(join(target, file), 'utf8');
      const ported = original.replace(imports, 'from "oxmcp/sdk"');
      const lines = ported.split('\n').filter((line, i) => line !== original.split('\n')[i]);
      assert.ok(lines.every((line) => /^(import |} from )/.test(line)), `${file}: only imports changed: ${lines}`);
      changed += lines.length;
      writeFileSync(join(target, file), ported);
    }
    assert.ok(changed > 10, `${changed} imports changed`);
    return join(target, 'index.js');
  }

  it('lists and answers the same to the official client, tools registered once it knows the client among them', async () => {
    const use = async (client) => ({
      tools: (await client.listTools()).tools,
      prompts: (await client.listPrompts()).prompts,
      resources: (await client.listResources()).resources,
      templates: (await client.listResourceTemplates()).resourceTemplates,
      echo: await client.callTool({ name: 'echo', arguments: { message: 'hi' } }),
      sum: await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
      weather: await client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } }),
      annotated: await client.callTool({ name: 'get-annotated-message', arguments: { messageType: 'success' } }),
      reference: await client.callTool({ name: 'get-resource-reference', arguments: {} }),
      image: await client.callTool({ name: 'get-tiny-image', arguments: {} }),
      links: await client.callTool({ name: 'get-resource-links', arguments: { count: 2 } }),
      simple: await client.getPrompt({ name: 'simple-prompt' }),
      city: await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } }),
      departments: await client.complete({
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'department', value: 'E' },
      }),
      document: await client.readResource({ uri: 'demo://resource/static/document/architecture.md' }),
    });
    const capabilities = { roots: {}, sampling: {}, elicitation: {} };
    // Its dynamic resources say when they were made.
    const settled = (seen) => JSON.parse(JSON.stringify(seen).replace(/\d{1,2}:\d{2}:\d{2} [AP]M/g, '<time>'));
    const theirs = settled(await withServer(join(published, 'index.js'), use, capabilities));
    const ours = settled(await withServer(portEverything(), use, capabilities));
    assert.deepEqual(ours.tools, withoutDefaults(theirs.tools));
    // A rendered prompt keeps its description on oxmcp (see the README).
    for (const prompt of [ours.simple, ours.city]) {
      delete prompt.description;
    }
    for (const key of Object.keys(theirs).filter((key) => key !== 'tools')) {
      assert.deepEqual(ours[key], theirs[key], key);
    }
    // The tools it registers in `oninitialized`, for a client that can answer them.
    assert.ok(ours.tools.some((tool) => tool.name === 'trigger-sampling-request'));
    assert.ok(ours.tools.some((tool) => tool.name === 'simulate-research-query'));
  });
});

/**
 * A 2026-07-28 result without what that era adds: `resultType` and the server's info in
 * `_meta` on every result, the caching fields on lists and reads.
 */
function unstamped({ resultType: _resultType, ttlMs: _ttlMs, cacheScope: _cacheScope, _meta: { 'io.modelcontextprotocol/serverInfo': _info, ...meta } = {}, ...result }) {
  return Object.keys(meta).length === 0 ? result : { ...result, _meta: meta };
}

/** Runs `use` with oxmcp's in-process client of `server`'s oxmcp server. */
async function inProcess(server, use) {
  const { Client } = await import('oxmcp');
  const client = await Client.connectInProcess(server.oxmcp);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

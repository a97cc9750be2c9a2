/**
 * The server fixture of the official MCP conformance suite, written in TypeScript with
 * oxmcp's Node package: the same tools, resources, prompts and completions as the Rust
 * fixture (`tests/conformance/src/bin/conformance-server.rs`), for both protocol eras on
 * one Streamable HTTP endpoint bound to 127.0.0.1.
 *
 * Usage: `node server.ts [--port N]` with Node 22 (which strips the types), else `PORT`,
 * else any free port. The endpoint's URL is the first line on stdout. SIGINT or SIGTERM
 * stops it. Needs the package built (`npm run build` at the repository root).
 */

import { fileURLToPath } from 'node:url';

import * as z from 'zod';

// The built ES module entry of the package at the repository root (a self-import of
// 'oxmcp' does not resolve from here: tests/conformance has a package.json of its own).
import {
  completable,
  InputRequired,
  McpError,
  ResourceTemplate,
  Server,
  type ContentBlock,
  type Context,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type InputRequest,
  type InputResponses,
  type JsonSchema,
  type ListRootsResult,
  type PromptMessage,
  type RegisteredPrompt,
  type RegisteredTool,
  type ToolReturn,
} from '../../../bindings-node/esm/index.mjs';

/** A 1x1 red PNG. */
const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV file. */
const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const LOGGER = 'conformance-test-server';

const server = new Server(
  { name: 'oxmcp-conformance-server', version: '0.1.0' },
  {
    instructions: 'The oxmcp fixture of the MCP conformance suite.',
    skills: fileURLToPath(new URL('../../skills', import.meta.url)),
  },
);

// --- helpers ---------------------------------------------------------------------------

/** An empty object schema. */
const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {} };

/** An object schema with one required string argument. */
function oneString(name: string, description: string): JsonSchema {
  return { type: 'object', properties: { [name]: { type: 'string', description } }, required: [name] };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function embedded(uri: string, mimeType: string, text: string): ContentBlock {
  return { type: 'resource', resource: { uri, mimeType, text } };
}

function form(message: string, requestedSchema: JsonSchema): ElicitRequestParams {
  return { message, requestedSchema };
}

function sampling(prompt: string, maxTokens: number): CreateMessageRequestParams {
  return { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens };
}

/** The text of a sampling answer. */
function sampledText(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') {
      return block.text;
    }
  }
  return 'No response';
}

/** A tool whose answer is `text`. */
function textTool(name: string, description: string, text: string): RegisteredTool {
  return server.registerTool(name, { description, inputSchema: NO_ARGUMENTS }, () => text);
}

/** A tool without arguments whose handler gets the request context. */
function contextTool(
  name: string,
  description: string,
  handler: (ctx: Context) => ToolReturn<undefined> | Promise<ToolReturn<undefined>>,
): RegisteredTool {
  return server.registerTool(name, { description, inputSchema: NO_ARGUMENTS }, (_args, ctx) => handler(ctx));
}

/**
 * Elicits, and reports the user's answer as text (or why there is none). A JSON-RPC
 * failure (such as a missing capability in the 2026-07-28 era) is passed on.
 */
async function elicitationSummary(ctx: Context, params: ElicitRequestParams, label: string): Promise<string> {
  let answer: ElicitResult;
  try {
    answer = await ctx.elicit(params);
  } catch (error) {
    if (error instanceof McpError) {
      throw error;
    }
    return `Elicitation not supported or error: ${String((error as Error).message)}`;
  }
  return `${label}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

// --- tools of both eras ------------------------------------------------------------------

textTool('test_simple_text', 'Tests simple text content response', 'This is a simple text response for testing.');

contextTool('test_image_content', 'Tests image content response', async () => ({
  content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }],
}));

contextTool('test_audio_content', 'Tests audio content response', async () => ({
  content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }],
}));

contextTool('test_embedded_resource', 'Tests embedded resource content response', async () => ({
  content: [embedded('test://embedded-resource', 'text/plain', 'This is an embedded resource content.')],
}));

contextTool(
  'test_multiple_content_types',
  'Tests response with multiple content types (text, image, resource)',
  async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
      embedded('test://mixed-content-resource', 'application/json', JSON.stringify({ test: 'data', value: 123 })),
    ],
  }),
);

contextTool('test_tool_with_logging', 'Tests tool that emits log messages during execution', async (ctx) => {
  const steps = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
  for (const [i, step] of steps.entries()) {
    if (i > 0) {
      await sleep(50);
    }
    await ctx.log('info', step, LOGGER);
  }
  return 'Tool with logging executed successfully';
});

contextTool('test_tool_with_progress', 'Tests tool that reports progress notifications', async (ctx) => {
  for (const [i, step] of [0, 50, 100].entries()) {
    if (i > 0) {
      await sleep(50);
    }
    await ctx.progress(step, 100, `Completed step ${step} of 100`);
  }
  // The result names the progress token the request carried.
  const token = ctx.meta?.progressToken;
  return token === undefined ? 'no progress token' : String(token);
});

contextTool('test_error_handling', 'Tests error response handling', async () => {
  throw new Error('This tool intentionally returns an error for testing');
});

contextTool(
  'test_reconnection',
  'Tests SSE stream disconnection and client reconnection (SEP-1699)',
  async (ctx) => {
    // A message before the result makes the answer a (resumable) SSE stream.
    await ctx.log('info', 'Reconnection test started', LOGGER);
    await sleep(100);
    return 'Reconnection test completed successfully.';
  },
);

server.registerTool(
  'test_sampling',
  {
    description: 'Tests server-initiated sampling (LLM completion request)',
    inputSchema: oneString('prompt', 'The prompt to send to the LLM'),
  },
  async (args, ctx) => {
    try {
      const answer = await ctx.sample(sampling(String(args.prompt ?? ''), 100));
      return `LLM response: ${sampledText(answer)}`;
    } catch (error) {
      if (error instanceof McpError) {
        throw error;
      }
      return `Sampling not supported or error: ${String((error as Error).message)}`;
    }
  },
);

server.registerTool(
  'test_elicitation',
  {
    description: 'Tests server-initiated elicitation (user input request)',
    inputSchema: oneString('message', 'The message to show the user'),
  },
  (args, ctx) =>
    elicitationSummary(ctx, form(String(args.message ?? ''), oneString('response', "User's response")), 'User response'),
);

contextTool('test_elicitation_sep1034_defaults', 'Tests elicitation with default values per SEP-1034', (ctx) =>
  elicitationSummary(
    ctx,
    form('Please review and update the form fields with defaults', {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: {
          type: 'string',
          description: 'User status',
          enum: ['active', 'inactive', 'pending'],
          default: 'active',
        },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    }),
    'Elicitation completed',
  ),
);

/** The choices of the SEP-1330 enum forms, as `{ const, title }` items. */
function titled(prefix: string): { const: string; title: string }[] {
  return ['First', 'Second', 'Third'].map((ordinal, i) => ({ const: `value${i + 1}`, title: `${ordinal} ${prefix}` }));
}

contextTool('test_elicitation_sep1330_enums', 'Tests elicitation with enum schema improvements per SEP-1330', (ctx) =>
  elicitationSummary(
    ctx,
    form('Please select options from the enum fields', {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
        titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled('Option') },
        legacyEnum: {
          type: 'string',
          description: 'Select one option (legacy)',
          enum: ['opt1', 'opt2', 'opt3'],
          enumNames: ['Option One', 'Option Two', 'Option Three'],
        },
        untitledMulti: {
          type: 'array',
          description: 'Select multiple options',
          minItems: 1,
          maxItems: 3,
          items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        },
        titledMulti: {
          type: 'array',
          description: 'Select multiple options with titles',
          minItems: 1,
          maxItems: 3,
          items: { anyOf: titled('Choice') },
        },
      },
      required: [],
    }),
    'Elicitation completed',
  ),
);

server.registerTool(
  'json_schema_2020_12_tool',
  {
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  },
  (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
);

server.registerTool(
  'test_header_param',
  {
    description: 'Echoes a region sent both in the arguments and as an Mcp-Param header (SEP-2243)',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', description: 'A region', 'x-mcp-header': 'Region' } },
      required: ['region'],
    },
  },
  (args) => `Region: ${String(args.region ?? '')}`,
);

// 2026-07-28 diagnostics of the `server-stateless` scenario.
contextTool(
  'test_missing_capability',
  'Test tool requiring sampling: fails with -32021 when the client lacks it',
  async (ctx) => `Success: ${sampledText(await ctx.sample(sampling('Say hello', 20)))}`,
);

contextTool('test_streaming_elicitation', 'Diagnostic tool validating response progress streams', async (ctx) => {
  await ctx.progress(50, 100, 'Half way');
  await ctx.log('info', 'Streaming', LOGGER);
  return 'Streaming complete';
});

contextTool('test_logging_tool', 'Diagnostic logging validator tool', async (ctx) => {
  await ctx.log('info', 'Diagnostic trace logging activated', LOGGER);
  return 'Logging evaluated';
});

let dynamicTool: RegisteredTool | undefined;
let dynamicPrompt: RegisteredPrompt | undefined;

contextTool(
  'test_trigger_tool_change',
  'Adds or removes the tool test_dynamic_tool, so the tool list changes',
  async () => {
    if (dynamicTool === undefined) {
      dynamicTool = textTool('test_dynamic_tool', 'A tool added at runtime', 'This is a dynamically added tool.');
    } else {
      dynamicTool.remove();
      dynamicTool = undefined;
    }
    return 'Mutation triggered';
  },
);

contextTool(
  'test_trigger_prompt_change',
  'Adds or removes the prompt test_dynamic_prompt, so the prompt list changes',
  async () => {
    if (dynamicPrompt === undefined) {
      dynamicPrompt = server.registerPrompt(
        'test_dynamic_prompt',
        { description: 'A prompt added at runtime' },
        () => 'This is a dynamically added prompt.',
      );
    } else {
      dynamicPrompt.remove();
      dynamicPrompt = undefined;
    }
    return 'Mutation triggered';
  },
);

// --- the 2026-07-28 multi round-trip tools (explicit style) ---------------------------------

/** The text field `field` of an accepted elicitation answer. */
function elicitedText(answer: InputResponses[string] | undefined, field: string): string | undefined {
  const value = (answer as ElicitResult | undefined)?.content?.[field];
  return typeof value === 'string' ? value : undefined;
}

function elicit(message: string, field: string, kind: string): InputRequest {
  return {
    method: 'elicitation/create',
    params: form(message, { type: 'object', properties: { [field]: { type: kind } }, required: [field] }),
  };
}

const ROOTS: InputRequest = { method: 'roots/list' };

function sample(prompt: string, maxTokens: number): InputRequest {
  return { method: 'sampling/createMessage', params: sampling(prompt, maxTokens) };
}

/** Whether an answer is a sampling result. */
function isSampling(answer: InputResponses[string] | undefined): answer is CreateMessageResult {
  return answer !== undefined && 'model' in answer;
}

/** Whether an answer is a roots result. */
function isRoots(answer: InputResponses[string] | undefined): answer is ListRootsResult {
  return answer !== undefined && Array.isArray((answer as ListRootsResult).roots);
}

contextTool(
  'test_input_required_result_elicitation',
  'MRTR: returns InputRequiredResult with elicitation request',
  async (ctx) => {
    const name = elicitedText(ctx.inputResponses?.user_name, 'name');
    if (name === undefined) {
      throw new InputRequired({ user_name: elicit('What is your name?', 'name', 'string') });
    }
    return `Hello, ${name}!`;
  },
);

contextTool('test_input_required_result_sampling', 'MRTR: returns InputRequiredResult with sampling request', async (ctx) => {
  const answer = ctx.inputResponses?.capital_question;
  if (!isSampling(answer)) {
    throw new InputRequired({ capital_question: sample('What is the capital of France?', 100) });
  }
  return `Sampling result: ${sampledText(answer)}`;
});

contextTool(
  'test_input_required_result_list_roots',
  'MRTR: returns InputRequiredResult with roots/list request',
  async (ctx) => {
    const answer = ctx.inputResponses?.client_roots;
    if (!isRoots(answer)) {
      throw new InputRequired({ client_roots: ROOTS });
    }
    return `Found ${answer.roots.length} root(s): ${answer.roots.map((root) => root.uri).join(', ')}`;
  },
);

contextTool(
  'test_input_required_result_request_state',
  'MRTR: returns InputRequiredResult with requestState',
  async (ctx) => {
    const answer = ctx.inputResponses?.confirm as ElicitResult | undefined;
    if (answer?.content?.ok === true && ctx.requestState === 'request-state') {
      return 'state-ok: requestState validated';
    }
    throw new InputRequired({ confirm: elicit('Please confirm', 'ok', 'boolean') }, 'request-state');
  },
);

contextTool(
  'test_input_required_result_multiple_inputs',
  'MRTR: returns InputRequiredResult with multiple input requests',
  async (ctx) => {
    const responses = ctx.inputResponses;
    const name = elicitedText(responses?.user_name, 'name');
    const greeting = responses?.greeting;
    const roots = responses?.client_roots;
    if (name !== undefined && isSampling(greeting) && isRoots(roots) && ctx.requestState !== undefined) {
      return `Name: ${name}; Greeting: ${sampledText(greeting)}; Roots: ${roots.roots.length}`;
    }
    throw new InputRequired(
      {
        user_name: elicit('What is your name?', 'name', 'string'),
        greeting: sample('Generate a greeting', 50),
        client_roots: ROOTS,
      },
      'multiple-inputs',
    );
  },
);

contextTool('test_input_required_result_multi_round', 'MRTR: multi-round InputRequiredResult workflow', async (ctx) => {
  const responses = ctx.inputResponses;
  const state = JSON.parse(ctx.requestState ?? 'null') as { round?: number; name?: string } | null;
  const step1 = new InputRequired(
    { step1: elicit('Step 1: What is your name?', 'name', 'string') },
    JSON.stringify({ round: 1 }),
  );
  if (state?.round === 1) {
    const name = elicitedText(responses?.step1, 'name');
    if (name === undefined) {
      throw step1;
    }
    throw new InputRequired(
      { step2: elicit('Step 2: What is your favorite color?', 'color', 'string') },
      JSON.stringify({ round: 2, name }),
    );
  }
  if (state?.round === 2) {
    const color = elicitedText(responses?.step2, 'color');
    if (color === undefined) {
      throw step1;
    }
    return `Multi-round complete for ${state.name ?? 'friend'} who likes ${color}`;
  }
  throw step1;
});

contextTool(
  'test_input_required_result_tampered_state',
  'MRTR: integrity-protected requestState (the core seals and checks it)',
  async (ctx) => {
    if (ctx.inputResponses?.confirm !== undefined && ctx.requestState === 'tamper-test') {
      return 'integrity-ok: state verified';
    }
    throw new InputRequired({ confirm: elicit('Please confirm', 'ok', 'boolean') }, 'tamper-test');
  },
);

contextTool(
  'test_input_required_result_capabilities',
  'MRTR: respects client capabilities in inputRequests',
  async (ctx) => {
    const received = Object.keys(ctx.inputResponses ?? {});
    if (received.length > 0) {
      return `capabilities-ok: received ${received.join(',')}`;
    }
    const { elicitation, sampling: canSample } = ctx.clientCapabilities;
    const requests: Record<string, InputRequest> = {};
    if (elicitation !== undefined) {
      requests.elicit_input = elicit('Elicitation input', 'value', 'string');
    }
    if (canSample !== undefined) {
      requests.sample_input = sample('Sample request', 50);
    }
    if (Object.keys(requests).length === 0) {
      return 'No supported capabilities declared';
    }
    throw new InputRequired(requests, 'capabilities-test');
  },
);

// --- resources --------------------------------------------------------------------------

server.registerResource(
  'static-text',
  'test://static-text',
  { title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' },
  () => 'This is the content of the static text resource.',
);

server.registerResource(
  'static-binary',
  'test://static-binary',
  { title: 'Static Binary Resource', description: 'A static binary resource (image) for testing', mimeType: 'image/png' },
  () => ({ blob: TEST_IMAGE_BASE64 }),
);

server.registerResource(
  'watched-resource',
  'test://watched-resource',
  { title: 'Watched Resource', description: 'A resource that can be subscribed to', mimeType: 'text/plain' },
  () => 'Watched resource content',
);

server.registerResource(
  'template',
  new ResourceTemplate('test://template/{id}/data', { complete: { id: () => ['123'] } }),
  {
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
  },
  (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
);

// --- prompts ----------------------------------------------------------------------------

/** Completes from a fixed list, by prefix. */
function completeFrom(values: string[]): (prefix: string) => string[] {
  return (prefix) => values.filter((value) => value.startsWith(prefix));
}

server.registerPrompt(
  'test_simple_prompt',
  { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
  () => 'This is a simple prompt for testing.',
);

server.registerPrompt(
  'test_prompt_with_arguments',
  {
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    // A zod object rather than a raw shape: zod here is tests/conformance's own copy, and
    // an object converts itself to JSON Schema, whichever zod the package finds.
    argsSchema: z.object({
      arg1: completable(
        z.string().describe('First test argument'),
        completeFrom(['paris', 'park', 'party', 'test', 'testing']),
      ),
      arg2: completable(z.string().describe('Second test argument'), completeFrom(['world', 'wide', 'web'])),
    }),
  },
  ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
);

server.registerPrompt(
  'test_prompt_with_embedded_resource',
  {
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
  },
  ({ resourceUri }): PromptMessage[] => [
    { role: 'user', content: embedded(resourceUri, 'text/plain', 'Embedded resource content for testing.') },
    { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
  ],
);

server.registerPrompt(
  'test_prompt_with_image',
  { title: 'Prompt With Image', description: 'A prompt that includes image content' },
  (): PromptMessage[] => [
    { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ],
);

server.registerPrompt(
  'test_input_required_result_prompt',
  { description: 'MRTR: prompt that requires elicitation input' },
  (ctx) => {
    const context = elicitedText(ctx.inputResponses?.user_context, 'context');
    if (context === undefined) {
      throw new InputRequired({
        user_context: elicit('What context should the prompt use?', 'context', 'string'),
      });
    }
    return `Prompt with context: ${context}`;
  },
);

// --- serving ----------------------------------------------------------------------------

// The tools of the tasks extension's scenarios (tasks-*): one that never runs as a task, one
// that may, and some that must (failing as a tool, failing as a request, asking once, asking
// twice at once).
const confirmSchema = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } as const;

server.registerTool(
  'greet',
  { description: 'Greets someone, always in place', inputSchema: { name: z.string() } },
  ({ name }) => `Hello, ${name}!`,
);
server.registerTool(
  'slow_compute',
  {
    description: 'Computes for `seconds`: as a task for clients that support tasks',
    inputSchema: { seconds: z.number().int().min(0).optional(), label: z.string().optional() },
    task: 'optional',
  },
  async ({ seconds = 0, label = '' }) => {
    await sleep(seconds * 1000);
    return `Computation "${label}" completed after ${seconds} seconds. Result: 42.`;
  },
);
server.registerTool('failing_job', { description: 'Fails as a tool after a second', task: 'required' }, async () => {
  await sleep(1000);
  throw new Error('the job failed');
});
server.registerTool('protocol_error_job', { description: 'Fails as a request', task: 'required' }, async () => {
  await sleep(500);
  throw new McpError(-32603, 'the job broke');
});
server.registerTool(
  'confirm_delete',
  { description: 'Deletes a file once the user confirms', inputSchema: { filename: z.string() }, task: 'required' },
  async ({ filename }, ctx) => {
    const answer = await ctx.elicit({ message: `Delete '${filename}'?`, requestedSchema: confirmSchema });
    return answer.content?.confirm ? `deleted '${filename}'` : `kept '${filename}'`;
  },
);
server.registerTool(
  'multi_input',
  { description: 'Asks for a name and a confirmation at once', task: 'required' },
  async (ctx) => {
    const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
    const [name] = await Promise.all([
      ctx.elicit({ message: 'Your name?', requestedSchema: nameSchema }),
      ctx.elicit({ message: 'Go ahead?', requestedSchema: confirmSchema }),
    ]);
    return `done for ${String(name.content?.name ?? '')}`;
  },
);
server.registerTool(
  'test_tool_with_task',
  { description: 'Asks for a name in place, then greets as a task', task: 'required', asksBeforeTask: true },
  async (ctx) => {
    const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: nameSchema });
    await ctx.beginTask();
    return `Hello, ${String(answer.content?.name ?? '')}!`;
  },
);

/** `--port N` (or `--port=N`), else `PORT`, else 0 (any free port). */
function port(args: string[]): number {
  let text = process.env.PORT;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--port') {
      text = args[++i];
      if (text === undefined) {
        throw new Error('--port needs a value');
      }
    } else if (arg.startsWith('--port=')) {
      text = arg.slice('--port='.length);
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)}; usage: server.ts [--port N]`);
    }
  }
  const value = Number(text ?? 0);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new Error(`invalid port ${JSON.stringify(text)}`);
  }
  return value;
}

let chosen: number;
try {
  chosen = port(process.argv.slice(2));
} catch (error) {
  console.error(`conformance-server: ${(error as Error).message}`);
  process.exit(2);
}
const { url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: chosen });
console.log(url);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close());
}

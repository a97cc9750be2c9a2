/**
 * The client fixture of the official MCP conformance suite, written in TypeScript with
 * oxmcp's Node package: the same client as the Rust fixture
 * (`tests/conformance/src/bin/conformance-client.rs`), answering sampling, elicitation and
 * roots requests, and signing in with `OAuth` in the `auth/*` scenarios.
 *
 * Usage: `node client.ts <server-url>` with Node 22 (which strips the types), the scenario
 * in `MCP_CONFORMANCE_SCENARIO`, the protocol version to speak in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and the scenario's credentials, if any, in
 * `MCP_CONFORMANCE_CONTEXT`. Exits 0 when the scenario's steps succeed, 1 otherwise.
 */

import {
  Client,
  OAuth,
  requestIdJag,
  type AssertionTarget,
  type ClientHandlers,
  type ClientOptions,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type Tool,
} from '../../../bindings-node/esm/index.mjs';

/** The redirect URI the client registers; nothing listens there (see `approve`). */
const REDIRECT_URI = 'http://localhost:3000/callback';
/** The client ID metadata document URL the suite expects (`auth/basic-cimd`). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const LEGACY_VERSIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);

type Context = Record<string, string | undefined>;

/** The era of `MCP_CONFORMANCE_PROTOCOL_VERSION`: the suite says which to speak. */
function era(): ClientOptions['era'] {
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  if (version === undefined) return 'auto';
  return LEGACY_VERSIONS.has(version) ? 'legacy' : 'modern';
}

/**
 * The user's part of the code flow: the suite's authorization server approves at once, so
 * the redirect it answers with is the callback.
 */
async function approve(url: string): Promise<string> {
  const answer = await fetch(url, { redirect: 'manual' });
  await answer.body?.cancel();
  const location = answer.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered ${answer.status} without a redirect`);
  return new URL(location, url).href;
}

/**
 * The first authorization server the MCP server names (the suite gives no issuer with some
 * credentials; an app would configure the issuer it registered with).
 */
async function firstAuthorizationServer(url: string): Promise<string> {
  const server = new URL(url);
  const path = server.pathname.replace(/\/$/, '');
  for (const candidate of [`/.well-known/oauth-protected-resource${path}`, '/.well-known/oauth-protected-resource']) {
    const answer = await fetch(new URL(candidate, server));
    if (answer.ok) {
      const metadata = (await answer.json()) as { authorization_servers?: string[] };
      const [first] = metadata.authorization_servers ?? [];
      if (first) return first;
    } else {
      await answer.body?.cancel();
    }
  }
  throw new Error("the scenario's MCP server names no authorization server");
}

/** The OAuth client of the scenario, with the credentials of its context. */
async function oauth(scenario: string, url: string, context: Context): Promise<OAuth> {
  const issuer = context.issuer ?? (context.client_id ? await firstAuthorizationServer(url) : undefined);
  const clientId = context.client_id ?? '';
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return OAuth.clientCredentials({ issuer: issuer ?? '', clientId, clientSecret: context.client_secret });
    case 'auth/client-credentials-jwt':
      return OAuth.clientCredentials({ issuer: issuer ?? '', clientId, privateKeyPem: context.private_key_pem });
    case 'auth/wif-jwt-bearer': {
      const jwt = context.valid_jwt ?? '';
      return OAuth.jwtBearer({ issuer: issuer ?? '', clientId, clientSecret: context.client_secret, assertion: () => jwt });
    }
    case 'auth/enterprise-managed-authorization':
      return OAuth.jwtBearer({
        issuer: issuer ?? '',
        clientId,
        clientSecret: context.client_secret,
        assertion: (target: AssertionTarget) =>
          requestIdJag({
            tokenEndpoint: context.idp_token_endpoint ?? '',
            clientId: context.idp_client_id ?? '',
            idToken: context.idp_id_token ?? '',
            target,
          }),
      });
    default:
      // DPoP is used with the authorization servers that offer it (auth/dpop*).
      return new OAuth({
        clientName: 'oxmcp-conformance-client',
        authorize: approve,
        redirectUri: REDIRECT_URI,
        clientMetadataUrl: CLIENT_METADATA_URL,
        issuer,
        clientId: context.client_id,
        clientSecret: context.client_secret,
        dpop: true,
      });
  }
}

function sampleValue(schema: Record<string, unknown>, name: string): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  switch (schema.type) {
    case 'number':
    case 'integer':
      return name === 'b' ? 3 : 2;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'test';
  }
}

/** A value of the right type for each required property of the tool's input schema. */
function argumentsFor(tool: Tool): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = (tool.inputSchema.required ?? []) as string[];
  return Object.fromEntries(required.map((name) => [name, sampleValue(properties[name] ?? {}, name)]));
}

/** A fixed answer that quotes the last message's text. */
function sampling(params: CreateMessageRequestParams): CreateMessageResult {
  const content = params.messages.at(-1)?.content;
  const blocks = Array.isArray(content) ? content : content ? [content] : [];
  const asked = blocks.find((block) => block.type === 'text');
  const text = asked && 'text' in asked ? asked.text : '';
  return {
    role: 'assistant',
    content: { type: 'text', text: `A test answer to: ${text}` },
    model: 'test-model',
    stopReason: 'endTurn',
  };
}

/**
 * A user who accepts a form as the server pre-filled it (SEP-1034), filling in what it
 * requires without a default.
 */
function elicitation(params: ElicitRequestParams): ElicitResult {
  if (!('requestedSchema' in params)) return { action: 'decline' };
  const properties = (params.requestedSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties)) {
    if ('default' in field) content[name] = field.default;
  }
  for (const name of (params.requestedSchema.required ?? []) as string[]) {
    if (!(name in content)) content[name] = sampleValue(properties[name] ?? {}, name);
  }
  return { action: 'accept', content: content as ElicitResult['content'] };
}

const handlers: ClientHandlers = {
  sampling,
  elicitation,
  roots: () => ({ roots: [{ uri: 'file:///tmp/oxmcp-conformance', name: 'Conformance root' }] }),
};

/** Calls the tools the scenario's context names, else every tool with arguments made from its schema. */
async function callTools(client: Client, context: Context): Promise<void> {
  const { tools } = await client.listTools();
  const calls = (context as { toolCalls?: { name: string; arguments?: Record<string, unknown> }[] }).toolCalls;
  if (calls) {
    for (const call of calls) await client.callTool({ name: call.name, arguments: call.arguments ?? {} });
    return;
  }
  for (const tool of tools) await client.callTool({ name: tool.name, arguments: argumentsFor(tool) });
}

/** Does what the scenario asks, as the Rust fixture does. */
async function run(scenario: string, url: string, context: Context): Promise<void> {
  const auth = scenario.startsWith('auth/') ? await oauth(scenario, url, context) : undefined;
  const client = await Client.connectHttp(url, { era: era(), timeout: 20_000, auth, ...handlers });
  try {
    switch (scenario) {
      case 'initialize':
      case 'json-schema-ref-no-deref':
        await client.listTools();
        return;
      case 'json-schema-2020-12-preservation': {
        const focal = (await client.listTools()).tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
        if (!focal) throw new Error('the focal tool json_schema_2020_12_tool is not listed');
        await client.callTool({ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } });
        return;
      }
      case 'elicitation-sep1034-client-defaults':
      case 'elicitation-defaults':
        await callTools(client, context);
        return;
      case 'sep-2640-client-no-prefetch':
        await client.listSkills();
        return;
      case 'sep-2640-client-verify-digest':
      case 'sep-2640-client-verify-size':
      case 'sep-2640-client-verify-frontmatter':
        await useSkills(client);
        return;
      default:
        await exerciseEverything(client, context);
    }
  } finally {
    await client.close();
  }
}

/**
 * Loads each skill the server lists, then reads its other files, each checked against the
 * skill's entry; a skill that fails a check is dropped unread.
 */
async function useSkills(client: Client): Promise<void> {
  for (const skill of await client.listSkills()) {
    try {
      await client.loadSkill(skill);
    } catch (refused) {
      console.error(`conformance-client (node): refused ${skill.uri}: ${String(refused)}`);
      continue;
    }
    if (Array.isArray(skill.resources)) {
      for (const file of skill.resources.filter((file) => file.uri !== skill.uri)) {
        await client.readSkillFile(skill, file.uri);
      }
    }
  }
}

/** Calls each tool, reads each resource, gets each prompt the server offers. */
async function exerciseEverything(client: Client, context: Context): Promise<void> {
  const capabilities = client.getServerCapabilities();
  if (capabilities.tools) {
    await callTools(client, context);
  }
  if (capabilities.resources) {
    for (const resource of (await client.listResources()).resources) {
      await client.readResource({ uri: resource.uri });
    }
  }
  if (capabilities.prompts) {
    for (const prompt of (await client.listPrompts()).prompts) {
      const required = (prompt.arguments ?? []).filter((argument) => argument.required);
      await client.getPrompt({ name: prompt.name, arguments: Object.fromEntries(required.map((a) => [a.name, 'test'])) });
    }
  }
}

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const url = process.argv[2];
if (!url) {
  console.error('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node client.ts <server-url>');
  process.exit(2);
}
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}') as Context;
const timer = setTimeout(() => {
  console.error(`conformance-client (node): ${scenario}: timed out`);
  process.exit(1);
}, 25_000);
try {
  await run(scenario, url, context);
  console.error(`conformance-client (node): ${scenario}: done`);
  clearTimeout(timer);
} catch (error) {
  console.error(`conformance-client (node): ${scenario}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

// The protocol's messages beyond listing and calling, in both eras, in process and over
// Streamable HTTP: a missing resource, URL elicitation and its completion notice, roots
// that change, custom methods, and skills (the skills extension).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client, McpError, ResourceNotFoundError, ResourceTemplate, Server } from 'oxmcp';

import { nextEvent } from './helpers.mjs';

const ERAS = ['legacy', 'modern'];
const TRANSPORTS = ['memory', 'http'];

/** Runs `use(client)` with a client of `server` in `era` over `transport`, then closes both ends. */
async function withClient(server, transport, era, options, use) {
  let listener;
  let client;
  if (transport === 'memory') {
    client = await Client.connectInProcess(server, { era, ...options });
  } else {
    listener = await server.listen({ transport: 'http', port: 0 });
    client = await Client.connectHttp(listener.url, { era, ...options });
  }
  try {
    await use(client);
  } finally {
    await client.close();
    await server.close();
  }
}

/** Resolves with the next value put, or rejects after `ms`. */
function mailbox() {
  const waiting = [];
  const values = [];
  return {
    put(value) {
      const next = waiting.shift();
      next ? next(value) : values.push(value);
    },
    take(ms = 5000) {
      if (values.length > 0) return Promise.resolve(values.shift());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms);
        waiting.push((value) => {
          clearTimeout(timer);
          resolve(value);
        });
      });
    },
    get empty() {
      return values.length === 0;
    },
  };
}

describe('protocol messages', () => {
  for (const transport of TRANSPORTS) {
    for (const era of ERAS) {
      it(`a missing resource rejects with ResourceNotFoundError (${era}, ${transport})`, async () => {
        const server = new Server({ name: 'files', version: '1' });
        server.registerResource('file', new ResourceTemplate('file:///{name}'), {}, (uri, { name }) => {
          if (name !== 'here') throw new ResourceNotFoundError(uri.href);
          return 'present';
        });
        await withClient(server, transport, era, {}, async (client) => {
          for (const uri of ['file:///gone', 'other:///unknown']) {
            await assert.rejects(client.readResource({ uri }), (error) => {
              assert.ok(error instanceof ResourceNotFoundError && error instanceof McpError, String(error));
              assert.equal(error.uri, uri);
              assert.equal(error.code, era === 'legacy' ? -32002 : -32602);
              assert.deepEqual(error.data, { uri });
              return true;
            });
          }
          assert.equal((await client.readResource({ uri: 'file:///here' })).contents[0].text, 'present');
        });
      });

      it(`capabilities say what is registered, and what is declared ahead (${era}, ${transport})`, async () => {
        const server = new Server({ name: 'tools-only', version: '1' });
        server.registerTool('echo', {}, () => 'ok');
        await withClient(server, transport, era, {}, async (client) => {
          const capabilities = client.getServerCapabilities();
          assert.ok(capabilities.tools && capabilities.logging, JSON.stringify(capabilities));
          assert.equal(capabilities.prompts, undefined);
          assert.equal(capabilities.resources, undefined);
          assert.equal(capabilities.completions, undefined);
          if (era === 'modern') {
            const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
            assert.deepEqual(subscription.acknowledged, { toolsListChanged: true });
            subscription.close();
          }
        });
        const declaring = new Server({ name: 'declaring', version: '1' }, { declare: ['prompts'] });
        await withClient(declaring, transport, era, {}, async (client) => {
          const capabilities = client.getServerCapabilities();
          assert.deepEqual(capabilities.prompts, { listChanged: true });
          assert.equal(capabilities.tools, undefined);
        });
        assert.throws(() => new Server({ name: 'bad', version: '1' }, { declare: ['logging'] }), /not a capability/);
      });

      it(`resources not known up front are listed page by page (${era}, ${transport})`, async () => {
        const server = new Server({ name: 'files', version: '1' });
        const names = [1, 2, 3, 4, 5].map((i) => `file${i}.txt`);
        server.registerResource('config', 'config://app', {}, () => '{}');
        server.setResourceLister((cursor) => {
          const start = Number(cursor ?? 0);
          const end = Math.min(start + 2, names.length);
          const resources = names.slice(start, end).map((name) => ({ uri: `file:///${name}`, name }));
          return { resources, nextCursor: end < names.length ? String(end) : undefined };
        });
        // A template's own list comes on the first page, after the lister's, with the template's metadata.
        const listed = new ResourceTemplate('file:///{name}', { list: () => ({ resources: [{ uri: 'file:///notes.md', name: 'notes.md' }] }) });
        server.registerResource('file', listed, { mimeType: 'text/plain' }, (_uri, { name }) => `contents of ${name}`);
        await withClient(server, transport, era, {}, async (client) => {
          const first = await client.listResources();
          assert.deepEqual(first.resources.map((r) => r.name), ['config', 'file1.txt', 'file2.txt', 'notes.md']);
          assert.equal(first.resources.at(-1).mimeType, 'text/plain');
          const rest = [];
          for (let cursor = first.nextCursor; cursor !== undefined; ) {
            const page = await client.listResources({ cursor });
            rest.push(...page.resources.map((r) => r.name));
            cursor = page.nextCursor;
          }
          assert.deepEqual(rest, ['file3.txt', 'file4.txt', 'file5.txt']);
          assert.equal((await client.readResource({ uri: 'file:///file5.txt' })).contents[0].text, 'contents of file5.txt');
        });
      });

      it(`a catalog lists and serves what is not registered (${era}, ${transport})`, async () => {
        const server = new Server({ name: 'low-level', version: '1' });
        server.registerTool('echo', {}, () => 'registered');
        server.setCatalog({
          listTools: (cursor) =>
            cursor === undefined
              ? { tools: [{ name: 'shout', inputSchema: { type: 'object' } }], nextCursor: 'page 2' }
              : { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] },
          callTool: async ({ name, arguments: args }, ctx) => {
            if (name === 'shout') {
              return { content: [{ type: 'text', text: String(args.text).toUpperCase() }] };
            }
            if (name === 'ask') {
              const answer = await ctx.elicit({
                message: 'Name?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
              });
              return { content: [{ type: 'text', text: `hello ${answer.content?.name}` }] };
            }
            throw new Error(`no tool ${name}`);
          },
          listPrompts: () => ({ prompts: [{ name: 'greet' }] }),
          getPrompt: ({ arguments: args }) => ({
            messages: [{ role: 'user', content: { type: 'text', text: `Greet ${args.who}` } }],
          }),
          listResourceTemplates: () => ({ resourceTemplates: [{ uriTemplate: 'note:///{id}', name: 'note' }] }),
          readResource: ({ uri }) => ({ contents: [{ uri, text: `note ${uri.slice('note:///'.length)}` }] }),
        });
        const elicitation = () => ({ action: 'accept', content: { name: 'Ada' } });
        await withClient(server, transport, era, { elicitation }, async (client) => {
          const capabilities = client.getServerCapabilities();
          assert.ok(capabilities.tools && capabilities.prompts && capabilities.resources, JSON.stringify(capabilities));
          const first = await client.listTools();
          assert.deepEqual(first.tools.map((t) => t.name), ['echo', 'shout']);
          const second = await client.listTools({ cursor: first.nextCursor });
          assert.deepEqual(second.tools.map((t) => t.name), ['ask']);
          const text = async (name) => (await client.callTool({ name, arguments: { text: 'hi' } })).content[0].text;
          assert.equal(await text('echo'), 'registered');
          assert.equal(await text('shout'), 'HI');
          assert.equal(await text('ask'), 'hello Ada');
          const unknown = await client.callTool({ name: 'nothing' });
          assert.equal(unknown.isError, true);
          assert.equal((await client.listPrompts()).prompts[0].name, 'greet');
          const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
          assert.equal(prompt.messages[0].content.text, 'Greet Ada');
          const templates = await client.listResourceTemplates();
          assert.equal(templates.resourceTemplates[0].uriTemplate, 'note:///{id}');
          assert.equal((await client.readResource({ uri: 'note:///7' })).contents[0].text, 'note 7');
        });
      });

      it(`custom methods and an extension (${era}, ${transport})`, async () => {
        const server = new Server({ name: 'extended', version: '1' });
        const heard = mailbox();
        server.setRequestHandler('weather/forecast', (params, ctx) => ({ city: params?.city, era: ctx.protocolVersion }));
        server.setNotificationHandler('notifications/weather/seen', (params) => heard.put(params?.city));
        server.declareExtension('com.example/weather', { units: ['metric'] });
        assert.throws(() => server.setRequestHandler('tools/call', () => ({})), /served by the core/);
        await withClient(server, transport, era, {}, async (client) => {
          const answer = await client.request({ method: 'weather/forecast', params: { city: 'Oslo' } });
          assert.equal(answer.city, 'Oslo');
          assert.equal(answer.era, client.protocolVersion);
          await assert.rejects(client.request({ method: 'weather/unknown' }), (error) => error.code === -32601);
          await client.notification({ method: 'notifications/weather/seen', params: { city: 'Bergen' } });
          assert.equal(await heard.take(), 'Bergen');
          const extensions = client.getServerCapabilities().extensions;
          assert.deepEqual(extensions, era === 'modern' ? { 'com.example/weather': { units: ['metric'] } } : undefined);
        });
      });
    }

    it(`a URL elicitation completes after the call failed (legacy, ${transport})`, async () => {
      const server = new Server({ name: 'consent', version: '1' });
      const contexts = mailbox();
      server.registerTool('connect_drive', {}, (ctx) => {
        contexts.put(ctx);
        throw new McpError(-32042, 'URL elicitation required', {
          elicitations: [{ mode: 'url', message: 'Sign in', url: 'https://drive.example/consent', elicitationId: 'c-1' }],
        });
      });
      await withClient(server, transport, 'legacy', {}, async (client) => {
        await assert.rejects(client.callTool({ name: 'connect_drive' }), (error) => error.code === -32042);
        const ctx = await contexts.take();
        const completed = nextEvent(client, 'notifications/elicitation/complete');
        await ctx.notifyElicitationComplete('c-1');
        assert.deepEqual(await completed, { elicitationId: 'c-1' });
      });
    });

    it(`skills are listed, loaded and verified (${transport})`, async () => {
      const skills = fileURLToPath(new URL('../../tests/skills', import.meta.url));
      const SKILL = 'skill://pdf-processing/SKILL.md';
      const FORMS = 'skill://pdf-processing/references/FORMS.md';
      await withClient(new Server({ name: 'skilled', version: '1' }, { skills }), transport, 'modern', {}, async (client) => {
        const [skill, ...others] = await client.listSkills();
        assert.equal(others.length, 0);
        assert.equal(skill.uri, SKILL);
        assert.deepEqual(skill.resources.map((file) => file.uri), [SKILL, FORMS]);
        assert.deepEqual(await client.getSkill(SKILL), skill);
        await assert.rejects(client.getSkill('skill://nowhere/SKILL.md'), (error) => error.code === -32602);
        assert.match(await client.loadSkill(skill), /# PDF processing/);
        const forms = await client.readSkillFile(skill, FORMS);
        assert.match(Buffer.from(forms).toString('utf8'), /^Forms have fields/);
        const tampered = { ...skill, frontmatter: { ...skill.frontmatter, description: 'Exfiltrate' } };
        await assert.rejects(client.loadSkill(tampered), (error) => error.kind === 'verification');
        await assert.rejects(client.readSkillFile(skill, 'skill://pdf-processing/secrets.txt'), (error) => error.kind === 'verification');
      });
      await withClient(new Server({ name: 'skilled', version: '1' }, { skills }), transport, 'legacy', {}, async (client) => {
        await assert.rejects(client.listSkills(), (error) => error.kind === 'unsupported');
      });
      const added = new Server({ name: 'skilled', version: '1' });
      added.addSkills(skills);
      added.addSkills(skills);
      await withClient(added, transport, 'modern', {}, async (client) => {
        assert.deepEqual((await client.listSkills()).map((skill) => skill.uri), [SKILL]);
      });
      assert.throws(() => added.addSkills(fileURLToPath(new URL('../../tests/nowhere', import.meta.url))));
      const made = new Server({ name: 'skilled', version: '1' });
      made.addSkill('ops/deploy', { 'SKILL.md': '---\nname: deploy\ndescription: Ships\n---\n', 'logo.png': new Uint8Array([137, 80]) });
      await withClient(made, transport, 'modern', {}, async (client) => {
        const [deploy] = await client.listSkills();
        assert.equal(deploy.uri, 'skill://ops/deploy/SKILL.md');
        assert.deepEqual([...(await client.readSkillFile(deploy, 'skill://ops/deploy/logo.png'))], [137, 80]);
      });
      assert.throws(() => made.addSkill('../escape', { 'SKILL.md': '' }), /not a relative path/);
    });

    it(`a legacy client says its roots changed (${transport})`, async () => {
      const server = new Server({ name: 'rooted', version: '1' });
      const seen = mailbox();
      server.setNotificationHandler('notifications/roots/list_changed', async (_params, ctx) => {
        const { roots } = await ctx.listRoots();
        seen.put({ requestId: ctx.requestId, uris: roots.map((root) => root.uri) });
      });
      const roots = [{ uri: 'file:///one' }];
      await withClient(server, transport, 'legacy', { roots: () => ({ roots }) }, async (client) => {
        roots.push({ uri: 'file:///two' });
        await client.sendRootsListChanged();
        assert.deepEqual(await seen.take(), { requestId: undefined, uris: ['file:///one', 'file:///two'] });
      });
      const modernServer = new Server({ name: 'rooted', version: '1' });
      modernServer.setNotificationHandler('notifications/roots/list_changed', () => seen.put('heard'));
      await withClient(modernServer, transport, 'modern', { roots: () => ({ roots }) }, async (client) => {
        await client.sendRootsListChanged();
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok(seen.empty, '2026-07-28 has no such notification');
      });
    });
  }
});

// A Node server as an OAuth resource server, against a real authorization server
// (oidc-provider from npm, tests/auth/provider.mjs, started and stopped by each test): JWT
// and introspected tokens, scopes per tool, resource and prompt, the caller in
// `ctx.accessToken`, refusals with their challenges, a verifier written in JavaScript, and
// the official TypeScript SDK's OAuth client completing the code flow, with a step-up,
// against the server; and the oxmcp Node client's own OAuth (`OAuth`): the code flow through
// the browser and back to its loopback listener, a step-up, a refresh, tokens kept in a file
// across runs, and a machine client.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, IntrospectionVerifier, JwtVerifier, McpError, OAuth, Server } from 'oxmcp';
import * as z from 'zod';

import { startAuthorizationServer, textOf } from './helpers.mjs';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** `whoami` says who called; writing, the secret and the summary need `notes:write`. */
function notesServer(auth) {
  const server = new Server({ name: 'notes', version: '1.0.0' }, { auth });
  server.registerTool('whoami', {}, (ctx) => {
    const token = ctx.accessToken;
    return token ? `${token.subject ?? token.clientId} ${token.scopes.join(',')}` : 'nobody';
  });
  server.registerTool('write_note', { inputSchema: { text: z.string() }, scopes: ['notes:write'] }, ({ text }) => `written: ${text}`);
  server.registerResource('secret', 'notes://secret', { scopes: ['notes:write'] }, () => 'the secret');
  server.registerPrompt('summarize', { scopes: ['notes:write'] }, () => 'Summarize my notes.');
  return server;
}

/** Runs `use(url)` while the notes server listens, protected by `auth`. */
async function withProtected(auth, use, options = {}) {
  const server = notesServer(auth);
  const { url } = await server.listen({ transport: 'http', port: 0, requiredScopes: ['notes:read'], ...options });
  try {
    await use(url);
  } finally {
    await server.close();
  }
}

async function withAuthority(env, use) {
  const authority = await startAuthorizationServer(env);
  try {
    await use(authority);
  } finally {
    await authority.stop();
  }
}

/** A client credentials token of the pre-registered client `svc` for `resource`. */
async function serviceToken(metadata, resource, scope) {
  const answer = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('svc:svc-secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
  });
  return (await answer.json()).access_token;
}

/** The status and `WWW-Authenticate` of a bare POST with `token`. */
async function refusal(url, token) {
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await answer.body?.cancel();
  return [answer.status, answer.headers.get('www-authenticate') ?? ''];
}

const bearer = (token) => ({ token: () => token });

describe('a Node server as an OAuth resource server', () => {
  it('lets JWT tokens reach handlers and enforces every scope', async () => {
    await withAuthority({}, async ({ issuer, metadata }) => {
      await withProtected(new JwtVerifier({ jwksUri: metadata.jwks_uri, issuer }), async (url) => {
        const metadataUrl = url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
        assert.deepEqual(await refusal(url), [401, `Bearer scope="notes:read", resource_metadata="${metadataUrl}"`]);
        const [status, challenge] = await refusal(url, 'forged');
        assert.equal(status, 401);
        assert.match(challenge, /error="invalid_token"/);
        const document = await (await fetch(metadataUrl)).json();
        assert.deepEqual(document.authorization_servers, [issuer]);
        assert.deepEqual(document.scopes_supported, ['notes:read', 'notes:write']);

        const reader = await serviceToken(metadata, url, 'notes:read');
        for (const era of ['legacy', 'modern']) {
          const client = await Client.connectHttp(url, { era, ...bearer(reader) });
          try {
            assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'svc notes:read');
            for (const forbidden of [
              () => client.callTool({ name: 'write_note', arguments: { text: 'x' } }),
              () => client.readResource({ uri: 'notes://secret' }),
              () => client.getPrompt({ name: 'summarize' }),
            ]) {
              await assert.rejects(forbidden(), McpError);
            }
          } finally {
            await client.close();
          }
        }
        const writer = await serviceToken(metadata, url, 'notes:read notes:write');
        const client = await Client.connectHttp(url, bearer(writer));
        try {
          assert.equal(textOf(await client.callTool({ name: 'write_note', arguments: { text: 'x' } })), 'written: x');
          assert.equal((await client.readResource({ uri: 'notes://secret' })).contents[0].text, 'the secret');
          await client.getPrompt({ name: 'summarize' });
        } finally {
          await client.close();
        }
      });
    });
  });

  it('introspects opaque tokens', async () => {
    await withAuthority({ ACCESS_TOKEN_FORMAT: 'opaque' }, async ({ issuer, metadata }) => {
      const verifier = new IntrospectionVerifier({
        endpoint: metadata.introspection_endpoint,
        clientId: 'svc',
        clientSecret: 'svc-secret',
        issuer,
      });
      await withProtected(verifier, async (url) => {
        const client = await Client.connectHttp(url, bearer(await serviceToken(metadata, url, 'notes:read')));
        try {
          assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'svc notes:read');
        } finally {
          await client.close();
        }
        assert.equal((await refusal(url, 'not-a-token'))[0], 401);
      });
    });
  });

  it('takes a verifier written in JavaScript; in process there are no tokens', async () => {
    const verifier = {
      url: '',
      async verify(token) {
        return token === 'let-me-in'
          ? { token, subject: 'carol', scopes: ['notes:read'], audience: [this.url], claims: { x: 1 } }
          : null;
      },
    };
    await withProtected(
      verifier,
      async (url) => {
        verifier.url = url;
        const client = await Client.connectHttp(url, bearer('let-me-in'));
        try {
          assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'carol notes:read');
        } finally {
          await client.close();
        }
        const [status, challenge] = await refusal(url, 'guess');
        assert.equal(status, 401);
        assert.match(challenge, /the token is not valid/);
      },
      { authorizationServers: ['https://as.example'] },
    );
    const server = notesServer(verifier);
    const client = await Client.connectInProcess(server);
    try {
      assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'nobody');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('can list only what each caller may use', async () => {
    const scopes = { 'let-me-in': ['notes:read'], 'all-notes': ['notes:read', 'notes'] };
    const verifier = {
      url: '',
      verify(token) {
        return scopes[token] ? { token, subject: 'carol', scopes: scopes[token], audience: [this.url] } : null;
      },
    };
    const options = {
      authorizationServers: ['https://as.example'],
      listOnlyPermitted: true,
      scopeImplies: { notes: ['notes:write'] },
    };
    await withProtected(
      verifier,
      async (url) => {
        verifier.url = url;
        for (const era of ['legacy', 'modern']) {
          const reader = await Client.connectHttp(url, { era, ...bearer('let-me-in') });
          try {
            assert.deepEqual((await reader.listTools()).tools.map((tool) => tool.name), ['whoami'], era);
            assert.deepEqual((await reader.listResources()).resources, []);
            assert.deepEqual((await reader.listPrompts()).prompts, []);
          } finally {
            await reader.close();
          }
          const writer = await Client.connectHttp(url, { era, ...bearer('all-notes') });
          try {
            assert.deepEqual((await writer.listTools()).tools.map((tool) => tool.name), ['whoami', 'write_note']);
            assert.deepEqual((await writer.listResources()).resources.map((r) => r.uri), ['notes://secret']);
            assert.deepEqual((await writer.listPrompts()).prompts.map((p) => p.name), ['summarize']);
          } finally {
            await writer.close();
          }
        }
      },
      options,
    );
  });

  it('leaves the audience to a verifier that checks it itself only when told', async () => {
    const verifier = { verify: (token) => ({ token, subject: 'carol', scopes: ['notes:read'], audience: ['elsewhere'] }) };
    const seen = [];
    for (const checkAudience of [undefined, false]) {
      await withProtected(
        verifier,
        async (url) => {
          const [status] = await refusal(url, 'let-me-in');
          if (status === 401) {
            seen.push(status);
            return;
          }
          const client = await Client.connectHttp(url, bearer('let-me-in'));
          try {
            seen.push(textOf(await client.callTool({ name: 'whoami' })));
          } finally {
            await client.close();
          }
        },
        { authorizationServers: ['https://as.example'], checkAudience },
      );
    }
    assert.deepEqual(seen, [401, 'carol notes:read']);
  });

  it('refuses settings that cannot work', async () => {
    const open = notesServer(undefined);
    await assert.rejects(open.listen({ transport: 'http', port: 0, requiredScopes: ['x'] }), /need a server with auth/);
    await assert.rejects(open.listen({ transport: 'http', port: 0, listOnlyPermitted: true }), /need a server with auth/);
    await open.close();
    const verifier = { verify: () => null };
    await assert.rejects(
      withProtected(verifier, async () => {}, { resourceUrl: 'https://notes.example/api', authorizationServers: ['https://as'] }),
      /not the endpoint's/,
    );
    assert.throws(() => new Server({ name: 'x', version: '1' }, { auth: 'secret' }), /verify\(token\)/);
  });

  it('serves the official TypeScript client through the code flow and a step-up', async () => {
    await withAuthority({}, async ({ issuer, metadata }) => {
      await withProtected(new JwtVerifier({ jwksUri: metadata.jwks_uri, issuer }), async (url) => {
        const authorizations = [];
        const store = {};
        const provider = {
          redirectUrl: REDIRECT_URI,
          clientMetadata: { client_name: 'official', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
          clientInformation: () => store.client,
          saveClientInformation: (client) => {
            store.client = client;
          },
          tokens: () => store.tokens,
          // Kept without the refresh token: on insufficient_scope the SDK (1.32) refreshes
          // when it can, and a refresh cannot widen the scope; without one it authorizes anew.
          saveTokens: ({ refresh_token: _, ...tokens }) => {
            store.tokens = tokens;
          },
          saveCodeVerifier: (verifier) => {
            store.verifier = verifier;
          },
          codeVerifier: () => store.verifier,
          // The user: follows the authorization URL's redirects back to the app.
          async redirectToAuthorization(authorizationUrl) {
            let next = authorizationUrl;
            for (let hop = 0; hop < 10 && !next.href.startsWith(REDIRECT_URI); hop++) {
              const answer = await fetch(next, { redirect: 'manual' });
              await answer.body?.cancel();
              next = new URL(answer.headers.get('location'), next);
            }
            authorizations.push(next.searchParams.get('code'));
          },
        };
        /** Runs `step`; when it needs the user, finishes the authorization and runs it again. */
        const authorized = async (transport, step) => {
          try {
            return await step();
          } catch (error) {
            if (!(error instanceof UnauthorizedError)) throw error;
            await transport.finishAuth(authorizations.at(-1));
            return step();
          }
        };
        let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
        let official = new OfficialClient({ name: 'official', version: '1.0.0' });
        await authorized(transport, async () => {
          try {
            await official.connect(transport);
          } catch (error) {
            // The first connection ends at the redirect; the next one carries the token.
            await official.close();
            transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
            official = new OfficialClient({ name: 'official', version: '1.0.0' });
            throw error;
          }
        });
        try {
          const whoami = await official.callTool({ name: 'whoami', arguments: {} });
          assert.match(whoami.content[0].text, /^alice notes:read/);
          const written = await authorized(transport, () =>
            official.callTool({ name: 'write_note', arguments: { text: 'hi' } }),
          );
          assert.equal(written.content[0].text, 'written: hi');
          assert.equal(authorizations.length, 2, 'one authorization, one step-up');
        } finally {
          await official.close();
        }
      });
    });
  });
});

/**
 * The user's browser, the user approving at once: follows the authorization URL's
 * redirects and loads the page it lands on (the app's loopback listener), or stops at the
 * first redirect to `stopAt` and answers its URL. Each trip is counted in `trips`.
 */
function browser(trips, stopAt) {
  return async (url) => {
    trips.push(url);
    let next = new URL(url);
    for (let hop = 0; hop < 10; hop++) {
      const answer = await fetch(next, { redirect: 'manual' });
      await answer.body?.cancel();
      if (answer.status !== 302 && answer.status !== 303) {
        assert.equal(answer.status, 200, `the page at ${next}`);
        return next.href;
      }
      next = new URL(answer.headers.get('location'), next);
      if (stopAt && next.href.startsWith(stopAt)) {
        return next.href;
      }
    }
    throw new Error('the browser went round in circles');
  };
}

describe('the oxmcp Node client signing in with OAuth', () => {
  for (const era of ['legacy', 'modern']) {
    it(`signs in through the browser, steps up and refreshes (${era})`, async () => {
      // Access tokens live 3 s, so that one expires during the test and is refreshed.
      await withAuthority({ ACCESS_TOKEN_TTL: '3' }, async ({ issuer, metadata }) => {
        await withProtected(new JwtVerifier({ jwksUri: metadata.jwks_uri, issuer }), async (url) => {
          const trips = [];
          const oauth = new OAuth({ clientName: 'notes app', openBrowser: browser(trips) });
          assert.match(oauth.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
          const client = await Client.connectHttp(url, { era, auth: oauth });
          try {
            assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'alice notes:read');
            assert.equal(trips.length, 1);
            // write_note needs more: one more trip, for every scope asked so far.
            const written = await client.callTool({ name: 'write_note', arguments: { text: 'x' } });
            assert.equal(textOf(written), 'written: x');
            assert.equal(trips.length, 2);
            assert.deepEqual(new URL(trips[1]).searchParams.get('scope').split(' ').filter((s) => s.startsWith('notes')), [
              'notes:read',
              'notes:write',
            ]);
            // Once the token expired, the refresh token gets a new one, no user involved.
            await new Promise((resolve) => setTimeout(resolve, 4000));
            assert.match(textOf(await client.callTool({ name: 'whoami' })), /^alice/);
            assert.equal(trips.length, 2);
          } finally {
            await client.close();
          }
          // Another client of the same OAuth shares its tokens.
          const again = await Client.connectHttp(url, { era, auth: oauth });
          try {
            assert.match(textOf(await again.callTool({ name: 'whoami' })), /^alice/);
            assert.equal(trips.length, 2);
          } finally {
            await again.close();
          }
        });
      });
    });
  }

  it('keeps tokens in a file that signs the next run in', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'oxmcp-oauth-'));
    try {
      // Access tokens live 3 s: the next run finds them expired and refreshes them, as the
      // client the first run registered (kept with the tokens).
      await withAuthority({ ACCESS_TOKEN_TTL: '3' }, async ({ issuer, metadata }) => {
        await withProtected(new JwtVerifier({ jwksUri: metadata.jwks_uri, issuer, leeway: 0 }), async (url) => {
          const trips = [];
          const tokenFile = join(directory, 'tokens.json');
          // The app, as it starts: it takes the user through itself (`authorize`).
          const app = () =>
            new OAuth({ clientName: 'notes app', authorize: browser(trips, REDIRECT_URI), redirectUri: REDIRECT_URI, tokenFile });
          for (const run of [1, 2]) {
            if (run === 2) {
              await new Promise((resolve) => setTimeout(resolve, 4000));
            }
            const client = await Client.connectHttp(url, { auth: app() });
            try {
              assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'alice notes:read');
            } finally {
              await client.close();
            }
            assert.equal(trips.length, 1, `run ${run}: signed in once, by the user`);
          }
          assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
          const kept = JSON.parse(await readFile(tokenFile, 'utf8'));
          assert.equal(kept.issuer, issuer);
          assert.ok(kept.client.client_id, 'the registered client is kept with the tokens');
        });
      });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("keeps tokens in the app's own storage", async () => {
    await withAuthority({}, async ({ issuer, metadata }) => {
      await withProtected(new JwtVerifier({ jwksUri: metadata.jwks_uri, issuer }), async (url) => {
        const trips = [];
        // The app's place for secrets: a sync `load`, an async `save`.
        const keyring = {
          text: null,
          load() {
            return this.text;
          },
          async save(tokens) {
            this.text = tokens;
          },
        };
        for (let start = 0; start < 2; start++) {
          const oauth = new OAuth({ clientName: 'notes app', openBrowser: browser(trips), storage: keyring });
          const client = await Client.connectHttp(url, { auth: oauth });
          try {
            assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'alice notes:read');
          } finally {
            await client.close();
          }
        }
        assert.equal(trips.length, 1, 'the second start was signed in by the storage');
        assert.ok(keyring.text.includes(issuer));
      });
    });
    assert.throws(() => new OAuth({ tokenFile: 't.json', storage: { load: () => null, save() {} } }), /not both/);
  });

  it('lets a machine client use client credentials, with no other authorization server', async () => {
    await withAuthority({}, async ({ issuer, metadata }) => {
      await withProtected(new JwtVerifier({ jwksUri: metadata.jwks_uri, issuer }), async (url) => {
        const oauth = OAuth.clientCredentials({ issuer, clientId: 'svc', clientSecret: 'svc-secret' });
        for (const era of ['legacy', 'modern']) {
          const client = await Client.connectHttp(url, { era, auth: oauth });
          try {
            assert.equal(textOf(await client.callTool({ name: 'whoami' })), 'svc notes:read');
          } finally {
            await client.close();
          }
        }
        const stranger = OAuth.clientCredentials({ issuer: 'https://other.example', clientId: 'svc', clientSecret: 's' });
        await assert.rejects(Client.connectHttp(url, { auth: stranger }), /not one this client is registered with/);
      });
    });
    assert.throws(() => new OAuth({ authorize: (url) => url }), /redirectUri/);
  });
});

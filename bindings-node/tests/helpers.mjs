// Shared by the tests: where the fixtures are, how to reach them over each transport,
// and small readers of results.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { request as httpRequest, createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { Client } from 'oxmcp';

/** The oxmcp test server (a Node script serving stdio). */
export const FIXTURE_SERVER = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The same kind of server written with the official TypeScript SDK (tests/interop). */
export const OFFICIAL_SERVER = path.join(REPO, 'tests', 'interop', 'typescript', 'server.mjs');

/**
 * A binary of the Rust fixtures, if `cargo build -p oxmcp-fixtures` built it: the fixture
 * server, or `fixture-hostile`, the server that misbehaves on purpose.
 */
export function rustServerBinary(name = 'fixture-server') {
  const targets = [process.env.CARGO_TARGET_DIR, path.join(REPO, 'target')].filter(Boolean);
  return targets.map((dir) => path.join(dir, 'debug', name)).find((binary) => existsSync(binary));
}

/** Answers the server's requests the way the tests expect. */
export const ANSWERING_HANDLERS = {
  elicitation: async (params) => ({ action: 'accept', content: { ok: params.message === 'Confirm?' } }),
  sampling: (params) => ({
    role: 'assistant',
    content: { type: 'text', text: params.maxTokens > 0 ? 'Paris' : 'no tokens' },
    model: 'test-model',
  }),
  roots: () => ({ roots: [{ uri: 'file:///work', name: 'work' }, { uri: 'file:///tmp' }] }),
};

/** An oxmcp client of a fresh process running `script` under this Node. */
export function connectScript(script, options = {}) {
  return Client.connectStdio({ command: process.execPath, args: [script], stderr: 'inherit', ...options });
}

/** The transports every fixture serves: stdio, and Streamable HTTP (`--http`). */
export const TRANSPORTS = ['stdio', 'http'];

/** Waits for `child` to exit by itself; kills it and fails after `ms`. Resolves to its exit code. */
export async function exitOf(child, ms = 10_000) {
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  try {
    const [code, signal] = child.exitCode === null ? await once(child, 'exit') : [child.exitCode, null];
    assert.equal(signal, null, `the process did not exit by itself within ${ms} ms`);
    return code;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts `script --http`, which serves HTTP on a free port of 127.0.0.1 and, once it
 * accepts connections, prints `LISTENING <url>` as its first line on stdout. `stop()` asks
 * it to close (SIGTERM) and checks it then exits by itself with status 0; `kill()` kills it
 * outright.
 */
export function startHttpScript(script, env = {}) {
  return startAnnouncing([script, '--http'], 'LISTENING ', env);
}

/** The real OAuth authorization server of the tests (oidc-provider, tests/auth/provider.mjs), with its `env` settings. */
export async function startAuthorizationServer(env = {}) {
  const { url: issuer, stop } = await startAnnouncing([path.join(REPO, 'tests', 'auth', 'provider.mjs')], 'ISSUER ', env);
  const metadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
  return { issuer, metadata, stop };
}

/** Runs `args` under this Node until it prints `<prefix><url>` first on stdout; see `startHttpScript`. */
async function startAnnouncing(args, prefix, env = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const stop = async () => {
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  const lines = createInterface({ input: child.stdout });
  const [line] = await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => [undefined])]);
  lines.close();
  const url = line?.startsWith(prefix) ? line.slice(prefix.length).trim() : undefined;
  if (url === undefined || !url.startsWith('http://127.0.0.1:')) {
    child.kill('SIGKILL');
    throw new Error(`${args[0]} did not announce its URL (got ${line})`);
  }
  return { url, stop, kill };
}

/**
 * An oxmcp client of `script` over `transport` (`stdio`, or `http` to the script's
 * `--http` process), as `{ client, close }`: `close()` closes the client and stops what
 * was started.
 */
export async function connectOver(transport, script, options = {}) {
  if (transport === 'stdio') {
    const client = await connectScript(script, options);
    return { client, close: () => client.close() };
  }
  const server = await startHttpScript(script);
  let client;
  try {
    client = await Client.connectHttp(server.url, options);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    client,
    close: async () => {
      await client.close();
      await server.stop();
    },
  };
}

/** The text of a result's text content. */
export function textOf(result) {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/**
 * Registers tool `name` on `server`: its calls never end. `running` resolves when a call
 * starts, `aborted` when its AbortSignal fires.
 */
export function registerEndlessTool(server, name) {
  let started;
  const running = new Promise((resolve) => {
    started = resolve;
  });
  let abort;
  const aborted = new Promise((resolve) => {
    abort = resolve;
  });
  server.registerTool(name, {}, (ctx) => {
    started();
    ctx.signal.addEventListener('abort', () => abort());
    return new Promise(() => {});
  });
  return { running, aborted };
}

/** Resolves with the first event `name` of `emitter`, or rejects after `ms`. */
export function nextEvent(emitter, name, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(name, listener);
      reject(new Error(`no ${name} event within ${ms} ms`));
    }, ms);
    const listener = (value) => {
      clearTimeout(timer);
      resolve(value);
    };
    emitter.once(name, listener);
  });
}

/** The reason a modern-era test is skipped while the core lacks multi round-trip input. */
export function mrtrMissing(error) {
  return /multi round-trip.*not offered yet/i.test(String(error?.message ?? error));
}

/**
 * A redis-server of this test alone on a free port of 127.0.0.1, nothing saved to disk:
 * `{ url, stop }`.
 */
export async function startRedis() {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) {
      const stop = async () => {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      };
      return { url: `redis://127.0.0.1:${port}/0`, stop };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not listen on port ${port}`);
}

/**
 * A load balancer of a test's own, as plain as nginx's default: each request goes to the
 * next of `upstreams` (`http://host:port`) in turn, without stickiness, and its response
 * streams back. `{ url(path), stop }`.
 */
export async function roundRobin(upstreams) {
  let turn = 0;
  const balancer = createHttpServer((incoming, outgoing) => {
    const upstream = new URL(upstreams[turn++ % upstreams.length]);
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise((resolve) => balancer.listen(0, '127.0.0.1', resolve));
  const { port } = balancer.address();
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    stop: async () => {
      balancer.closeAllConnections();
      await new Promise((resolve) => balancer.close(resolve));
    },
  };
}

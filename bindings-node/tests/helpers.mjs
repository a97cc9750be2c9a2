// Shared by the tests: where the fixtures are, and small readers of results.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from 'oxmcp';

/** The oxmcp test server (a Node script serving stdio). */
export const FIXTURE_SERVER = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));

/** The same kind of server written with the official TypeScript SDK. */
export const OFFICIAL_SERVER = fileURLToPath(new URL('./fixtures/official-server.mjs', import.meta.url));

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The Rust example server binary, if `cargo build -p oxmcp-examples` built it. */
export function rustServerBinary() {
  const targets = [process.env.CARGO_TARGET_DIR, path.join(REPO, 'target')].filter(Boolean);
  return targets.map((dir) => path.join(dir, 'debug', 'server')).find((binary) => existsSync(binary));
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

/** The text of a result's text content. */
export function textOf(result) {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
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

// The `oxmcp` command as `npm install oxmcp` installs it (the package's `bin`, into the
// native module), against the Node fixture server over stdio and HTTP, in both eras.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { FIXTURE_SERVER, startHttpScript } from './helpers.mjs';

const OXMCP = fileURLToPath(new URL('../bin/oxmcp.js', import.meta.url));
const STDIO = ['--', process.execPath, FIXTURE_SERVER];

/** Runs the command; resolves to its exit code and output, whatever the code. */
async function oxmcp(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [OXMCP, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (failed) {
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** What `oxmcp verb --json ...args` prints, parsed. */
async function answer(verb, ...args) {
  const { code, stdout, stderr } = await oxmcp(verb, '--json', ...args);
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout);
}

test('the command lists and calls a Node server over stdio', async () => {
  const tools = await answer('tools', ...STDIO);
  assert.ok(tools.some((tool) => tool.name === 'add'));
  // Numbers, as the zod schema says.
  const sum = await answer('call', 'add', 'a=1.5', 'b=2', ...STDIO);
  assert.deepEqual(sum.structuredContent, { result: 3.5 });
  const failed = await oxmcp('call', 'fail', ...STDIO);
  assert.equal(failed.code, 5);
});

test('the command reaches a Node server over HTTP in both eras', async () => {
  const server = await startHttpScript(FIXTURE_SERVER);
  try {
    for (const era of ['legacy', 'modern']) {
      const info = await answer('info', '--era', era, '--url', server.url);
      assert.deepEqual([info.serverInfo.name, info.era], ['oxmcp-node-fixture', era]);
      const echoed = await oxmcp('call', 'echo', 'text=hi', '--era', era, '--url', server.url);
      assert.equal(echoed.stdout, 'hi\n', echoed.stderr);
    }
  } finally {
    await server.stop();
  }
});

test('the command explains itself and fails with usage errors', async () => {
  const helped = await oxmcp('--help');
  assert.equal(helped.code, 0);
  assert.match(helped.stdout, /Exit codes/);
  assert.equal((await oxmcp('tools')).code, 1);
});

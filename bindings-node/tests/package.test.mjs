// The package as `npm install oxmcp` installs it: `npm pack` of the package and of its
// linux-x64 platform package (the napi-rs layout: the native module comes from
// `oxmcp-linux-x64-gnu`, not from the main package), both installed into a fresh directory
// with no network and no cargo on the PATH, where the example client drives the example
// server over Streamable HTTP in both eras.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PLATFORM = 'linux-x64-gnu';
const NATIVE = join(ROOT, 'bindings-node', 'native', `oxmcp.${PLATFORM}.node`);

/** `npm` with scripts off (a pack must not build) and no network. */
function npm(args, cwd, env = process.env) {
  return run('npm', [...args, '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd, env, timeout: 120_000 });
}

/** Packs `dir` into `into`; the tarball's path. */
async function pack(dir, into) {
  const { stdout } = await npm(['pack', '--pack-destination', into, '--json'], dir);
  return join(into, JSON.parse(stdout)[0].filename);
}

describe('the npm package, installed without Rust', { skip: process.platform !== 'linux' || process.arch !== 'x64' }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'oxmcp-package-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('installs from its tarballs and runs the example client against the example server', async () => {
    const main = await pack(ROOT, scratch);
    // The platform package as the release workflow fills it: its package.json and the module.
    const platform = join(scratch, PLATFORM);
    cpSync(join(ROOT, 'bindings-node', 'npm', PLATFORM), platform, { recursive: true });
    cpSync(NATIVE, join(platform, `oxmcp.${PLATFORM}.node`));
    const native = await pack(platform, scratch);

    const app = join(scratch, 'app');
    cpSync(join(ROOT, 'examples', 'node'), app, { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    // No cargo, no rustc: only node and the system's tools.
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    await npm(['install', main, native], app, env);

    const installed = join(app, 'node_modules', 'oxmcp');
    assert.ok(existsSync(join(installed, 'bindings-node', 'dist', 'index.js')));
    assert.deepEqual(
      readdirSync(join(installed, 'bindings-node', 'native')).filter((file) => file.endsWith('.node')),
      [],
      'the main package carries no native module',
    );
    assert.ok(existsSync(join(app, 'node_modules', `oxmcp-${PLATFORM}`, `oxmcp.${PLATFORM}.node`)));

    // Each entry point loads with `import` and `require`, with the same names both ways.
    const entries = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      for (const entry of ['oxmcp', 'oxmcp/sdk']) {
        const imported = Object.keys(await import(entry)).filter((name) => name !== 'default').sort();
        const required = Object.keys(require(entry)).sort();
        if (imported.join() !== required.join()) throw new Error(\`\${entry}: \${imported} against \${required}\`);
      }`;
    await run(process.execPath, ['--input-type=module', '-e', entries], { cwd: app, env, timeout: 60_000 });

    const { stdout } = await run(process.execPath, ['client.mjs', '--node'], { cwd: app, env, timeout: 60_000 });
    for (const era of ['legacy', 'modern']) {
      assert.match(stdout, new RegExp(`== ${era} era over http://127\\.0\\.0\\.1:\\d+/mcp`));
    }
    assert.equal(stdout.match(/3 tools: echo, add, book/g)?.length, 2, stdout);
    assert.equal(stdout.match(/booked 2 seats on Friday/g)?.length, 2, stdout);
    assert.equal(stdout.match(/Hello, ada!/g)?.length, 2, stdout);
  });
});

// The example client written with oxmcp's Node package: starts the Python example server
// (or, with --node, the Node one beside this file) over Streamable HTTP and shows what they
// exchange, once in each protocol era.
//
//   node examples/node/client.mjs [python]     (default: .venv/bin/python)
//   node examples/node/client.mjs --node

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from 'oxmcp';

const [command, script] =
  process.argv[2] === '--node'
    ? [process.execPath, fileURLToPath(new URL('server.mjs', import.meta.url))]
    : [
        process.argv[2] ?? fileURLToPath(new URL('../../.venv/bin/python', import.meta.url)),
        fileURLToPath(new URL('../python/server.py', import.meta.url)),
      ];

/** Starts the example server and resolves with the URL it announces on stderr. */
async function startServer() {
  const child = spawn(command, [script, '--http'], { stdio: ['ignore', 'inherit', 'pipe'] });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the example server exited (${code}) before listening`);
  });
  const lines = createInterface({ input: child.stderr });
  const listening = (async () => {
    for await (const line of lines) {
      const url = /serving Streamable HTTP at (\S+)/.exec(line)?.[1];
      if (url) return url;
    }
    throw new Error('the example server closed stderr before listening');
  })();
  return { child, url: await Promise.race([listening, exited]) };
}

const show = (request, response) => console.log(`-> ${request}\n<- ${JSON.stringify(response)}`);

const { child, url } = await startServer();
try {
  for (const era of ['legacy', 'modern']) {
    const client = await Client.connectHttp(url, {
      era,
      // The "user" confirms every booking for two.
      elicitation: async (params) => {
        console.log(`   (asked: ${params.message})`);
        return { action: 'accept', content: { confirm: true, seats: 2 } };
      },
    });
    console.log(`== ${era} era over ${url}`);
    const { tools } = await client.listTools();
    console.log(`-> tools/list\n<- ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
    show('tools/call echo {"text":"hello"}', await client.callTool({ name: 'echo', arguments: { text: 'hello' } }));
    show('tools/call add {"a":2,"b":3}', await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
    show('tools/call book {"date":"Friday"}', await client.callTool({ name: 'book', arguments: { date: 'Friday' } }));
    show('resources/read greeting://ada', await client.readResource({ uri: 'greeting://ada' }));
    show('prompts/get review', await client.getPrompt({ name: 'review', arguments: { code: 'print(1)' } }));
    await client.close();
  }
} finally {
  child.kill('SIGINT');
  await once(child, 'exit');
}

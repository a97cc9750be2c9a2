/**
 * Serving a server over this process's stdin and stdout.
 */

import { native, nativeSync } from './errors';
import type { NativeServer, NativeStdio } from './native';

/**
 * Serves `server` on stdin and stdout until stdin ends (and the requests in flight finish)
 * or the server is closed. Stdin is read here, on Node's event loop, and each chunk handed
 * to the native connection, which answers the requests it completes before returning: a
 * call wakes Node's thread alone, as with the official SDK.
 */
export async function serveStdio(server: NativeServer): Promise<void> {
  const stdin = process.stdin;
  // The bell rings after `serveStdio` returned, from the event loop.
  const stdio: NativeStdio = nativeSync(() => server.serveStdio(() => stdio.turn()));
  const onData = (chunk: Buffer): void => stdio.push(chunk);
  const onEnd = (): void => stdio.end();
  stdin.on('data', onData);
  stdin.once('end', onEnd);
  stdin.once('error', onEnd);
  try {
    await native(stdio.done());
  } finally {
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.off('error', onEnd);
    // Nothing reads stdin any more: it must not keep the process alive.
    stdin.pause();
  }
}

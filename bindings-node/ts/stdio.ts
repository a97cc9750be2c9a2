/**
 * Serving a server over this process's stdin and stdout, or over other streams.
 */

import type { Readable, Writable } from 'node:stream';

import { native, nativeSync } from './errors';
import type { NativeServer, NativeStdio } from './native';

/** The streams a stdio connection is served on (default: this process's). */
export interface StdioStreams {
  /** Where requests are read (default `process.stdin`). */
  stdin?: Readable;
  /** Where answers are written (default `process.stdout`). */
  stdout?: Writable;
}

/**
 * Serves `server` on `streams` until the input ends (and the requests in flight finish)
 * or the server is closed. The input is read here, on Node's event loop, and each chunk
 * handed to the native connection, which answers the requests it completes before
 * returning: a call wakes Node's thread alone, as with the official SDK. Answers for
 * `process.stdout` are written by the native connection itself; another stream's are
 * handed to its `write`, waiting for its `'drain'` when it asks to.
 */
export async function serveStdio(server: NativeServer, streams: StdioStreams = {}): Promise<void> {
  const stdin = streams.stdin ?? process.stdin;
  const stdout = streams.stdout === process.stdout ? undefined : streams.stdout;
  // The bell rings after `serveStdio` returned, from the event loop.
  const bell = (): void => stdio.turn();
  const stdio: NativeStdio = nativeSync(() =>
    stdout === undefined ? server.serveStdio(bell) : server.serveStdio(bell, (chunk) => stdout.write(chunk)),
  );
  const onData = (chunk: Buffer | string): void => stdio.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const onEnd = (): void => stdio.end();
  const onDrain = (): void => stdio.drained();
  stdin.on('data', onData);
  stdin.once('end', onEnd);
  stdin.once('error', onEnd);
  stdout?.on('drain', onDrain);
  stdout?.once('error', onEnd);
  try {
    await native(stdio.done());
  } finally {
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.off('error', onEnd);
    stdout?.off('drain', onDrain);
    stdout?.off('error', onEnd);
    // Nothing reads the input any more: it must not keep the process alive.
    stdin.pause();
  }
}

/**
 * The compiled module, loaded through the loader `napi build` generates (it picks the
 * local `.node` file, or the per-platform package in production).
 */

import * as binding from '../native/index.js';

export type {
  AuthOptions,
  CallSettings,
  ClientConfig,
  HostCaller,
  HttpOptions,
  HttpSettings,
  NativeClient,
  NativeHttpEndpoint,
  NativeHttpExchange,
  NativeHttpListener,
  NativeServer,
  NativeStdio,
  NativeContext,
  NativeOAuth,
  NativeToolTask,
  OAuthOptions,
  Peer,
  ResponseHead,
} from '../native/index.js';

/** The native module's exports. */
export const nativeModule = binding;

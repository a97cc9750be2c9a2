/**
 * The OAuth client for protected servers: `Client.connectHttp(url, { auth: new OAuth(...) })`.
 *
 * ```ts
 * const oauth = new OAuth({ clientName: 'My agent', tokenFile: `${homedir()}/.my-agent/tokens.json` });
 * const client = await Client.connectHttp('https://notes.example.com/mcp', { auth: oauth });
 * ```
 *
 * Discovery, registration, PKCE, step-up, refresh and DPoP run in the Rust core; the
 * facade only takes the user to the browser.
 */

import { spawn } from 'node:child_process';

import { native } from './errors';
import { nativeModule, type NativeOAuth, type OAuthOptions as NativeOAuthOptions } from './native';
import { settle, type Outcome } from './outcome';

/**
 * Where an `OAuth` client keeps its tokens (a keyring, an encrypted file): one opaque text,
 * loaded and saved whole.
 */
export interface TokenStorage {
  /** The text the last `save` kept, or `null`. */
  load(): string | null | undefined | Promise<string | null | undefined>;
  /** Keeps `tokens` (`null`: forget them). */
  save(tokens: string | null): void | Promise<void>;
}

/** How an app that signs its user in gets its tokens. */
export interface OAuthOptions {
  /** The name the client registers with (default `oxmcp`). */
  clientName?: string;
  /**
   * Opens the authorization URL in the system browser (default: the platform's opener);
   * the browser comes back to a listener on 127.0.0.1.
   */
  openBrowser?: (url: string) => void | Promise<void>;
  /** The loopback listener's port (default 0: any free port). */
  loopbackPort?: number;
  /**
   * For an app that takes the user there itself (an embedded browser, a device flow):
   * called with the authorization URL, answers the URL the browser came back to at
   * `redirectUri`. Replaces the browser and the loopback listener.
   */
  authorize?: (url: string) => string | Promise<string>;
  /** Where the browser comes back to, with `authorize`. */
  redirectUri?: string;
  /** The authorization server a pre-registered client is registered with. */
  issuer?: string;
  /** A pre-registered client's id (with `issuer`). */
  clientId?: string;
  /** A pre-registered client's secret. */
  clientSecret?: string;
  /** The HTTPS URL of the client's ID metadata document. */
  clientMetadataUrl?: string;
  /** A file that keeps the tokens across runs (readable by the user alone). */
  tokenFile?: string;
  /** The app's own place for the tokens, instead of memory or `tokenFile`. */
  storage?: TokenStorage;
  /** Bind tokens to a fresh DPoP key (RFC 9449) where the authorization server supports it. */
  dpop?: boolean;
}

/** A machine client's credentials, pre-registered with `issuer` (its credentials go nowhere else). */
export interface ClientCredentialsOptions {
  /** The authorization server the client is registered with. */
  issuer: string;
  /** The client id. */
  clientId: string;
  /** The client secret. */
  clientSecret?: string;
  /** Or a private key (PKCS#8 PEM) the client authenticates with (`private_key_jwt`). */
  privateKeyPem?: string;
  /** A file that keeps the tokens across runs. */
  tokenFile?: string;
  /** The app's own place for the tokens. */
  storage?: TokenStorage;
  /** Bind tokens to a fresh DPoP key. */
  dpop?: boolean;
}

/** What a JWT bearer grant's assertion is for. */
export interface AssertionTarget {
  /** The authorization server that receives it (the assertion's audience). */
  issuer: string;
  /** The MCP server's resource identifier. */
  resource: string;
  /** The scopes asked for. */
  scope: string | null;
}

/** A workload's or an enterprise-managed app's credentials, and its assertions. */
export interface JwtBearerOptions extends ClientCredentialsOptions {
  /** The assertion for `target`: a workload identity token, or an ID-JAG (`requestIdJag`). */
  assertion: (target: AssertionTarget) => string | Promise<string>;
}

/** The callbacks a native OAuth client calls. */
interface Handlers {
  authorize?: (url: string) => string | Promise<string>;
  openBrowser?: (url: string) => void | Promise<void>;
  storage?: TokenStorage;
  assertion?: (target: AssertionTarget) => string | Promise<string>;
}

/** A native OAuth client with `settings`, its callback dispatching to `handlers`. */
function nativeOAuth(settings: Omit<NativeOAuthOptions, 'storage'>, handlers: Handlers): NativeOAuth {
  const { authorize, openBrowser, storage, assertion } = handlers;
  return new nativeModule.NativeOAuth(
    { ...settings, storage: storage !== undefined },
    (kind: string, payload: unknown): Outcome | Promise<Outcome> =>
      settle(() => {
        switch (kind) {
          case 'authorize':
            return authorize?.(payload as string);
          case 'open':
            return openBrowser?.(payload as string);
          case 'load':
            return storage?.load() ?? null;
          case 'save':
            return storage?.save(payload as string | null);
          case 'assertion':
            return assertion?.(payload as AssertionTarget);
          default:
            return undefined;
        }
      }),
  );
}

/**
 * An OAuth 2.1 client for one MCP server. When the server refuses a request (`401`, or
 * `403 insufficient_scope` to step up), it finds the authorization server, registers (or
 * uses the pre-registered client), runs the authorization code grant with PKCE, keeps the
 * tokens (with the client a sign-in registered, so that a later run refreshes them),
 * refreshes them when they expire, and sends the request again. Every client connected
 * with it shares its tokens.
 */
export class OAuth {
  /** @internal */
  readonly native: NativeOAuth;

  constructor(options: OAuthOptions = {}) {
    const { openBrowser = openInBrowser, authorize, storage, ...settings } = options;
    this.native = nativeOAuth(
      { ...settings, grant: 'authorizationCode', authorize: authorize !== undefined },
      { authorize, openBrowser, storage },
    );
  }

  /** A machine client: the client credentials grant. */
  static clientCredentials(options: ClientCredentialsOptions): OAuth {
    const { storage, ...settings } = options;
    return OAuth.#made(nativeOAuth({ ...settings, grant: 'clientCredentials' }, { storage }));
  }

  /**
   * A workload or an enterprise-managed app: the JWT bearer grant (RFC 7523), presenting
   * what `assertion(target)` gives.
   */
  static jwtBearer(options: JwtBearerOptions): OAuth {
    const { storage, assertion, ...settings } = options;
    return OAuth.#made(nativeOAuth({ ...settings, grant: 'jwtBearer' }, { storage, assertion }));
  }

  static #made(native: NativeOAuth): OAuth {
    const oauth = Object.create(OAuth.prototype) as { native: NativeOAuth };
    oauth.native = native;
    return oauth as OAuth;
  }

  /** Where the browser comes back to (the loopback listener's URI by default). */
  get redirectUri(): string | null {
    return this.native.redirectUri ?? null;
  }
}

/**
 * An ID-JAG for `target` from the identity provider's `tokenEndpoint` (token exchange of
 * the user's `idToken`, as the IdP's client `clientId`): the assertion of
 * enterprise-managed authorization, for `OAuth.jwtBearer`.
 */
export function requestIdJag(request: {
  tokenEndpoint: string;
  clientId: string;
  clientSecret?: string;
  idToken: string;
  target: AssertionTarget;
}): Promise<string> {
  const { target, ...idp } = request;
  return native(nativeModule.requestIdJag({ ...idp, ...target, scope: target.scope ?? undefined }));
}

/**
 * Opens `url` with the platform's opener. Spawned rather than taken from a package: one
 * command per platform, and no dependency for it.
 */
function openInBrowser(url: string): Promise<void> {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replaceAll('&', '^&')]]
        : ['xdg-open', [url]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

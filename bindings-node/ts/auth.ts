/**
 * Authorization for servers: an oxmcp server over HTTP as an OAuth 2.1 resource server.
 *
 * ```ts
 * const server = new Server(
 *   { name: 'notes', version: '1.0.0' },
 *   { auth: new JwtVerifier({ jwksUri: 'https://auth.example.com/jwks', issuer: 'https://auth.example.com' }) },
 * );
 * server.registerTool('write_note', { scopes: ['notes:write'] }, (ctx) => `saved for ${ctx.accessToken?.subject}`);
 * ```
 *
 * The verifiers check tokens in the Rust core; a verifier of your own is any
 * `{ verify(token) }` returning the caller's `AccessToken`, or `null` to refuse the token.
 */

import type { AuthOptions } from './native';

/** A verified access token: who the caller is, what it may do, whom it is for. */
export interface AccessToken {
  /** The token as the client sent it. */
  token: string;
  /** The user (or the client acting for itself): `sub`. */
  subject?: string | null;
  /** The client the token was issued to: `client_id` (or `azp`). */
  clientId?: string | null;
  /** Who issued it: `iss`. */
  issuer?: string | null;
  /** What it grants. */
  scopes: string[];
  /** The resources it is meant for: `aud`. */
  audience: string[];
  /** When it expires, in seconds since the epoch: `exp`. */
  expiresAt?: number | null;
  /** Every claim. */
  claims: Record<string, unknown>;
}

/**
 * Checks a token: the caller's `AccessToken`, or `null` to refuse it (the client gets
 * `401 invalid_token`). A throw means the token could not be checked now (`503`).
 */
export interface TokenVerifier {
  verify(token: string): AccessToken | null | undefined | Promise<AccessToken | null | undefined>;
}

/** Settings of a `JwtVerifier`. */
export interface JwtVerifierOptions {
  /** Where the issuer's keys are (https, or http on a loopback host). */
  jwksUri: string;
  /** The issuer whose tokens are accepted. */
  issuer: string;
  /** Also require `aud` to name one of these (the endpoint checks its own URL anyway). */
  audience?: string | string[];
  /** The clock skew tolerated on `exp` and `nbf`, in milliseconds (default 30 000). */
  leeway?: number;
}

/**
 * JWT access tokens (RFC 9068) signed with a key of the issuer's JWKS (RS256, PS256,
 * ES256 or EdDSA), current, from the issuer. Keys are cached and fetched again for a key
 * id the cache lacks (at most every 30 s). Verification runs in the Rust core.
 */
export class JwtVerifier {
  constructor(readonly options: JwtVerifierOptions) {}
}

/** Settings of an `IntrospectionVerifier`. */
export interface IntrospectionVerifierOptions {
  /** The authorization server's introspection endpoint. */
  endpoint: string;
  /** The resource server's own client id there. */
  clientId: string;
  /** Its client secret. */
  clientSecret: string;
  /** The issuer whose tokens are accepted. */
  issuer?: string;
  /** Send the secret in the form rather than as HTTP Basic. */
  clientSecretPost?: boolean;
  /** How long an answer is reused at most, in milliseconds (default 300 000; 0: ask every time). */
  cacheFor?: number;
}

/**
 * Tokens checked at the authorization server's introspection endpoint (RFC 7662); the
 * server reuses an answer, keyed by the token, until it expires or `cacheFor`.
 */
export class IntrospectionVerifier {
  constructor(readonly options: IntrospectionVerifierOptions) {}
}

/** Whatever checks a server's tokens. */
export type Verifier = JwtVerifier | IntrospectionVerifier | TokenVerifier;

/**
 * What the native server takes for `verifier`; `register` adds a verifier written in
 * JavaScript as a handler (token in, the core's token fields or null out) and gives its id.
 */
export function authOptions(verifier: Verifier, register: (verify: (token: string) => unknown) => number): AuthOptions {
  if (verifier instanceof JwtVerifier) {
    const { jwksUri, issuer, audience, leeway } = verifier.options;
    const audiences = typeof audience === 'string' ? [audience] : audience;
    return { jwt: { jwksUri, issuer, audience: audiences, leewayMs: leeway } };
  }
  if (verifier instanceof IntrospectionVerifier) {
    const { cacheFor, ...settings } = verifier.options;
    return { introspection: { ...settings, cacheForMs: cacheFor } };
  }
  if (typeof verifier?.verify !== 'function') {
    throw new TypeError('auth must be a JwtVerifier, an IntrospectionVerifier, or have verify(token)');
  }
  return {
    verifierId: register(async (token) => {
      const accepted = await verifier.verify(token);
      return accepted ? nativeToken(accepted) : null;
    }),
  };
}

/** A token as the native module reads it: the core's field names. */
function nativeToken(token: AccessToken): Record<string, unknown> {
  const { token: raw, issuer, subject, clientId, scopes, audience, expiresAt, claims } = token;
  return { token: raw, issuer, subject, client_id: clientId, scopes, audience, expires_at: expiresAt, claims };
}

/**
 * The official TypeScript SDK's pieces of a resource server inside an Express app, for a
 * server ported by changing its imports: `requireBearerAuth` (the middleware that checks
 * a request's bearer token with the app's verifier and leaves its `AuthInfo` in
 * `req.auth`, which the HTTP transports hand to the core as the request's caller),
 * `mcpAuthMetadataRouter` (the metadata documents) and the OAuth errors a verifier throws.
 * They answer as the SDK's do. oxmcp's own servers verify tokens in the core instead
 * (`auth` in `listen()`'s options).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { AuthInfo } from './lowlevel';

/** An OAuth error (RFC 6749 §5.2), answered as `{ error, error_description, error_uri }`. */
export class OAuthError extends Error {
  /** The `error` code of this kind of error. */
  static errorCode = 'server_error';

  constructor(
    message: string,
    readonly errorUri?: string,
  ) {
    super(message);
    this.name = this.constructor.name;
  }

  /** The `error` code. */
  get errorCode(): string {
    return (this.constructor as typeof OAuthError).errorCode;
  }

  /** The error as its JSON answer says it. */
  toResponseObject(): { error: string; error_description: string; error_uri?: string } {
    const answer: { error: string; error_description: string; error_uri?: string } = {
      error: this.errorCode,
      error_description: this.message,
    };
    if (this.errorUri !== undefined) {
      answer.error_uri = this.errorUri;
    }
    return answer;
  }
}

/** `invalid_request`. */
export class InvalidRequestError extends OAuthError {
  static override errorCode = 'invalid_request';
}

/** `invalid_token`: missing, malformed, expired or revoked (401). */
export class InvalidTokenError extends OAuthError {
  static override errorCode = 'invalid_token';
}

/** `insufficient_scope` (403). */
export class InsufficientScopeError extends OAuthError {
  static override errorCode = 'insufficient_scope';
}

/** `server_error` (500). */
export class ServerError extends OAuthError {
  static override errorCode = 'server_error';
}

/** `temporarily_unavailable`. */
export class TemporarilyUnavailableError extends OAuthError {
  static override errorCode = 'temporarily_unavailable';
}

/** `method_not_allowed` (405). */
export class MethodNotAllowedError extends OAuthError {
  static override errorCode = 'method_not_allowed';
}

/** What checks a token for `requireBearerAuth`. */
export interface OAuthTokenVerifier {
  /** The token's `AuthInfo`; throws (an `InvalidTokenError`, say) to refuse it. */
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

/** `requireBearerAuth`'s options. */
export interface BearerAuthMiddlewareOptions {
  verifier: OAuthTokenVerifier;
  /** Scopes every token must grant. */
  requiredScopes?: string[];
  /** Named in the challenge of a refusal, for clients to find the authorization server. */
  resourceMetadataUrl?: string;
  /** Tokens must have been issued for this resource (fragment and one trailing slash aside). */
  expectedResource?: URL;
}

/** A Connect-style middleware. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => Promise<void>;

/**
 * The middleware that lets a request through only with a bearer token its verifier
 * accepts, unexpired, for `expectedResource` if given, granting `requiredScopes`; the
 * token's `AuthInfo` is left in `req.auth`. A refusal is 401 (`invalid_token`) or 403
 * (`insufficient_scope`) with a `WWW-Authenticate` challenge; a verifier's other errors
 * are 400 (an `OAuthError`) or 500.
 */
export function requireBearerAuth(options: BearerAuthMiddlewareOptions): Middleware {
  const { verifier, requiredScopes = [], resourceMetadataUrl, expectedResource } = options;
  const challenge = (error: OAuthError): string =>
    [
      `Bearer error="${error.errorCode}", error_description="${error.message}"`,
      ...(requiredScopes.length > 0 ? [`scope="${requiredScopes.join(' ')}"`] : []),
      ...(resourceMetadataUrl !== undefined ? [`resource_metadata="${resourceMetadataUrl}"`] : []),
    ].join(', ');
  return async (req, res, next) => {
    let auth: AuthInfo;
    try {
      auth = await admitted(req.headers.authorization, verifier, requiredScopes, expectedResource);
    } catch (error) {
      const refusal = error instanceof OAuthError ? error : new ServerError('Internal Server Error');
      const status =
        refusal instanceof InvalidTokenError ? 401 : refusal instanceof InsufficientScopeError ? 403 : refusal instanceof ServerError ? 500 : 400;
      if (status === 401 || status === 403) {
        res.setHeader('WWW-Authenticate', challenge(refusal));
      }
      sendJson(res, status, refusal.toResponseObject());
      return;
    }
    (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    next();
  };
}

/** The `AuthInfo` of a request's `Authorization` header, or the `OAuthError` that refuses it. */
async function admitted(
  header: string | undefined,
  verifier: OAuthTokenVerifier,
  requiredScopes: string[],
  expectedResource: URL | undefined,
): Promise<AuthInfo> {
  if (header === undefined) {
    throw new InvalidTokenError('Missing Authorization header');
  }
  const [scheme = '', token] = header.split(' ');
  if (scheme.toLowerCase() !== 'bearer' || !token) {
    throw new InvalidTokenError("Invalid Authorization header format, expected 'Bearer TOKEN'");
  }
  const auth = await verifier.verifyAccessToken(token);
  if (expectedResource !== undefined && (auth.resource === undefined || comparable(auth.resource) !== comparable(expectedResource))) {
    throw new InvalidTokenError('Token was not issued for this resource');
  }
  if (!requiredScopes.every((scope) => auth.scopes.includes(scope))) {
    throw new InsufficientScopeError('Insufficient scope');
  }
  if (typeof auth.expiresAt !== 'number' || Number.isNaN(auth.expiresAt)) {
    throw new InvalidTokenError('Token has no expiration time');
  }
  if (auth.expiresAt < Date.now() / 1000) {
    throw new InvalidTokenError('Token has expired');
  }
  return auth;
}

/** A resource as compared: without its fragment and one trailing slash. */
function comparable(resource: URL | string): string {
  return String(resource).split('#')[0]!.replace(/\/$/, '');
}

/** `mcpAuthMetadataRouter`'s options. */
export interface AuthMetadataOptions {
  /** The authorization server's metadata (RFC 8414), served as it is. */
  oauthMetadata: { issuer: string } & Record<string, unknown>;
  /** This MCP server's URL: the protected resource. */
  resourceServerUrl: URL;
  serviceDocumentationUrl?: URL;
  scopesSupported?: string[];
  resourceName?: string;
}

/**
 * The middleware that serves the protected resource metadata (RFC 9728) at
 * `/.well-known/oauth-protected-resource<path of the resource>` and the authorization
 * server's metadata at `/.well-known/oauth-authorization-server`, to any origin (GET and
 * OPTIONS; other methods 405). Mount it at the app's root. The issuer must be HTTPS (or on
 * `localhost`), with no query or fragment.
 */
export function mcpAuthMetadataRouter(options: AuthMetadataOptions): Middleware {
  const issuer = new URL(options.oauthMetadata.issuer);
  const insecureAllowed = ['true', '1'].includes(process.env.MCP_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL ?? '');
  if (issuer.protocol !== 'https:' && !['localhost', '127.0.0.1'].includes(issuer.hostname) && !insecureAllowed) {
    throw new Error('Issuer URL must be HTTPS');
  }
  if (issuer.hash || issuer.search) {
    throw new Error(`Issuer URL must not have a ${issuer.hash ? 'fragment' : 'query string'}: ${issuer}`);
  }
  const documents = new Map<string, unknown>([
    [
      new URL(getOAuthProtectedResourceMetadataUrl(options.resourceServerUrl)).pathname,
      {
        resource: options.resourceServerUrl.href,
        authorization_servers: [options.oauthMetadata.issuer],
        scopes_supported: options.scopesSupported,
        resource_name: options.resourceName,
        resource_documentation: options.serviceDocumentationUrl?.href,
      },
    ],
    ['/.well-known/oauth-authorization-server', options.oauthMetadata],
  ]);
  return async (req, res, next) => {
    const document = documents.get(new URL(req.url ?? '/', 'http://host').pathname.replace(/(.)\/$/, '$1'));
    if (document === undefined) {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET,HEAD,PUT,PATCH,POST,DELETE');
      res.setHeader('Vary', 'Access-Control-Request-Headers');
      const asked = req.headers['access-control-request-headers'];
      if (asked !== undefined) {
        res.setHeader('Access-Control-Allow-Headers', asked);
      }
      res.setHeader('Content-Length', '0');
      res.writeHead(204).end();
    } else if (req.method === 'GET') {
      sendJson(res, 200, document);
    } else {
      res.setHeader('Allow', 'GET, OPTIONS');
      sendJson(res, 405, new MethodNotAllowedError(`The method ${req.method} is not allowed for this endpoint`).toResponseObject());
    }
  };
}

/**
 * Where the protected resource metadata of the server at `serverUrl` is (RFC 9728 §3.1):
 * `https://api.example.com/mcp` has `https://api.example.com/.well-known/oauth-protected-resource/mcp`.
 */
export function getOAuthProtectedResourceMetadataUrl(serverUrl: URL): string {
  const path = serverUrl.pathname === '/' ? '' : serverUrl.pathname;
  return new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl).href;
}

/** Answers `status` with `body` as JSON. */
function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

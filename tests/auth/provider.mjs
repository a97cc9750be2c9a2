// Test-only OAuth 2.1 authorization server built on oidc-provider 8.8.1.
// Listens on 127.0.0.1:<random port>, prints "ISSUER http://127.0.0.1:PORT" on stdout
// once listening, exits 0 on SIGTERM/SIGINT. Everything is in memory.
//
// Env knobs (all optional):
//   SCOPES            scopes every http://127.0.0.1:* resource accepts
//                     (default "notes:read notes:write offline_access")
//   ACCESS_TOKEN_TTL  access token lifetime in seconds (default 300)
//   ACCESS_TOKEN_FORMAT  "jwt" (default) or "opaque" for resource-bound access tokens
//   ACCESS_TOKEN_ALG  JWS alg of JWT access tokens: RS256 (default) | ES256 | EdDSA
//   CLIENT_ID / CLIENT_SECRET  pre-registered confidential client (default svc / svc-secret)
//   DENY_SCOPES       scopes the fake user refuses at consent (default none)
//   DEFAULT_SCOPE     scope used when an authorization request has none
//                     (default: SCOPES minus offline_access; set to "" to disable)
//   DEFAULT_RESOURCE  resource used when an authorization request has none (default: none)
//   PORT              listen port (default 0 = pick a free one)
//   EXIT_ON_STDIN_EOF if set, also exit when stdin reaches EOF
import crypto from 'node:crypto';
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

// oidc-provider prints NOTICEs with console.info (stdout); keep stdout for the ISSUER line only.
console.info = console.error;

const env = process.env;
const SCOPES = (env.SCOPES ?? 'notes:read notes:write offline_access').split(/\s+/).filter(Boolean);
const DENY = new Set((env.DENY_SCOPES ?? '').split(/\s+/).filter(Boolean));
const DEFAULT_SCOPE = env.DEFAULT_SCOPE ?? SCOPES.filter((s) => s !== 'offline_access').join(' ');
const AT_TTL = Number(env.ACCESS_TOKEN_TTL ?? 300);
const AT_FORMAT = env.ACCESS_TOKEN_FORMAT ?? 'jwt';
const AT_ALG = env.ACCESS_TOKEN_ALG ?? 'RS256';
const ACCOUNT = 'alice';

// Any http://127.0.0.1:<port>/... (or localhost / [::1]) resource is a known resource server.
function isLoopbackResource(resource) {
  try {
    const u = new URL(resource);
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
}

// Fresh signing keys per run: RS256 first (default for ID tokens), plus ES256 and EdDSA.
function signingKey(type, opts, alg) {
  const { privateKey } = crypto.generateKeyPairSync(type, opts);
  return { ...privateKey.export({ format: 'jwk' }), kid: `${alg.toLowerCase()}-1`, alg, use: 'sig' };
}
const jwks = {
  keys: [
    signingKey('rsa', { modulusLength: 2048 }, 'RS256'),
    signingKey('ec', { namedCurve: 'P-256' }, 'ES256'),
    signingKey('ed25519', {}, 'EdDSA'),
  ],
};

const server = http.createServer();
await new Promise((resolve) => server.listen(Number(env.PORT ?? 0), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks,
  cookies: {
    keys: [crypto.randomBytes(32).toString('hex')],
    // Unsigned interaction cookies so that the request wrapper below can supply them to HTTP
    // clients without a cookie jar (test-only; see NOTES.md).
    short: { httpOnly: true, sameSite: 'lax', signed: false },
  },
  findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  clients: [{
    client_id: env.CLIENT_ID ?? 'svc',
    client_secret: env.CLIENT_SECRET ?? 'svc-secret',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic', // oidc-provider also accepts client_secret_post
  }],
  // A registered client may ask for any scope the server knows, whatever `scope` it
  // registered with: clients (the official Python SDK's among them) register the scope of
  // the first challenge and must be able to step up from it. (The only extra property
  // exists to have this validator run on every client's metadata.)
  extraClientMetadata: {
    properties: ['step_up_allowed'],
    validator(ctx, key, value, metadata) {
      delete metadata.scope;
    },
  },
  clientDefaults: {
    // RFC 7591 says grant_types defaults to authorization_code; we also allow refresh so that
    // clients that omit grant_types can still refresh.
    grant_types: ['authorization_code', 'refresh_token'],
  },
  responseTypes: ['code'],
  pkce: { methods: ['S256'], required: () => true },
  // Resource scopes are listed here too, although oidc-provider's docs say they don't belong:
  // client registration rejects a `scope` metadata value containing anything not in this list.
  scopes: ['openid', 'offline_access', ...SCOPES],
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  // Refresh tokens for every code/refresh exchange of a client allowed the refresh_token grant;
  // offline_access is not needed (oidc-provider drops it unless prompt=consent anyway).
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  ttl: {
    AccessToken: AT_TTL,
    ClientCredentials: AT_TTL,
    AuthorizationCode: 60,
    RefreshToken: 24 * 3600,
    Grant: 24 * 3600,
    Interaction: 600,
    Session: 24 * 3600,
    IdToken: 3600,
  },
  features: {
    devInteractions: { enabled: false }, // replaced by the automatic /interaction route below
    registration: { enabled: true, initialAccessToken: false },
    clientCredentials: { enabled: true },
    // A token requested with a DPoP proof is bound to the proof's key (cnf.jkt).
    dPoP: { enabled: true },
    introspection: { enabled: true, allowedPolicy: async () => true },
    revocation: { enabled: true },
    userinfo: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // Token endpoint: keep oidc-provider's default (oneOf). Authorization endpoint: optional
      // DEFAULT_RESOURCE for clients that send no resource (otherwise: no token, access_denied).
      defaultResource: (ctx, client, oneOf) => oneOf
        ?? (ctx.oidc.route === 'authorization' && env.DEFAULT_RESOURCE ? env.DEFAULT_RESOURCE : undefined),
      useGrantedResource: () => true,
      getResourceServerInfo(ctx, resource) {
        if (!isLoopbackResource(resource)) throw new errors.InvalidTarget();
        return {
          scope: SCOPES.join(' '),
          audience: resource,
          accessTokenTTL: AT_TTL,
          accessTokenFormat: AT_FORMAT,
          jwt: { sign: { alg: AT_ALG } },
        };
      },
    },
  },
});

// Automatic interaction: log in "alice" and grant everything requested (minus DENY_SCOPES),
// then redirect straight back to the authorization endpoint. No HTML, no form.
async function autoInteraction(req, res) {
  const { params, grantId } = await provider.interactionDetails(req, res);
  const grant = (grantId && await provider.Grant.find(grantId))
    || new provider.Grant({ accountId: ACCOUNT, clientId: params.client_id });
  const requested = (params.scope ?? '').split(' ').filter(Boolean);
  // Every requested scope known to the AS is an "OIDC scope" to oidc-provider (see `scopes`),
  // and SCOPES are also resource scopes: grant both kinds, except the refused ones.
  const known = requested.filter((s) => s === 'openid' || s === 'offline_access' || SCOPES.includes(s));
  const oidcAllowed = known.filter((s) => !DENY.has(s));
  const oidcRefused = known.filter((s) => DENY.has(s));
  if (oidcAllowed.length) grant.addOIDCScope(oidcAllowed.join(' '));
  if (oidcRefused.length) grant.rejectOIDCScope(oidcRefused.join(' '));
  const resources = [params.resource ?? []].flat();
  let granted = 0;
  for (const resource of resources) {
    const allowed = requested.filter((s) => SCOPES.includes(s) && !DENY.has(s));
    const refused = requested.filter((s) => SCOPES.includes(s) && DENY.has(s));
    if (allowed.length) grant.addResourceScope(resource, allowed.join(' '));
    if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
    granted += allowed.length;
  }
  const result = resources.length && !granted && requested.length
    ? { error: 'access_denied', error_description: 'user refused all requested scopes' }
    : { login: { accountId: ACCOUNT }, consent: { grantId: await grant.save() } };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  const url = new URL(req.url, issuer);
  const { pathname } = url;
  // RFC 8414 metadata path: serve the same document as OIDC discovery.
  if (pathname === '/.well-known/oauth-authorization-server') {
    req.url = '/.well-known/openid-configuration';
  }
  // oidc-provider grants nothing for a request without scope; apply DEFAULT_SCOPE instead.
  if (req.method === 'GET' && pathname === '/auth' && !url.searchParams.get('scope') && DEFAULT_SCOPE) {
    url.searchParams.set('scope', DEFAULT_SCOPE);
    req.url = url.pathname + url.search;
  }
  // Cookie-less clients: the interaction uid is in the path of both interaction hops, so supply
  // the _interaction / _interaction_resume cookie oidc-provider expects when it is absent.
  const hop = pathname.match(/^\/(interaction|auth)\/([\w-]+)$/);
  if (hop && !/(^|;\s*)_interaction/.test(req.headers.cookie ?? '')) {
    const name = hop[1] === 'auth' ? '_interaction_resume' : '_interaction';
    req.headers.cookie = [req.headers.cookie, `${name}=${hop[2]}`].filter(Boolean).join('; ');
  }
  if (req.method === 'GET' && pathname.startsWith('/interaction/')) {
    autoInteraction(req, res).catch((err) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'interaction_failed', error_description: String(err?.error_description ?? err?.message ?? err) }));
    });
    return;
  }
  callback(req, res);
});

provider.on('server_error', (ctx, err) => console.error('server_error', err));

function shutdown() {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
// Opt-in: exit when stdin closes, so a crashed parent (that spawned us with a stdin pipe)
// cannot leave an orphaned server behind.
if (env.EXIT_ON_STDIN_EOF) process.stdin.on('end', shutdown).resume();

process.stdout.write(`ISSUER ${issuer}\n`);

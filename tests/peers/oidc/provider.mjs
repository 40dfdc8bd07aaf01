#!/usr/bin/env node
// A real OAuth 2.1 / OpenID Connect authorization server for tests: the npm `oidc-provider`
// (pinned by `cargo xtask setup`), configured for MCP authorization.
//
// Usage: $MCP_TEST_NODE tests/peers/oidc/provider.mjs [PORT]
//
// Binds 127.0.0.1 only (PORT 0 or absent: any free port) and prints
// `listening on http://127.0.0.1:PORT` on stdout once it accepts connections; the issuer is
// that URL. `node_modules` must resolve: tests link `tests/peers/oidc/node_modules` to
// `$MCP_TEST_NODE_MODULES` (gitignored).
//
// What it offers:
// - dynamic client registration (`/reg`, open), PKCE (S256, required), refresh tokens;
// - resource indicators (RFC 8707): every resource URL on http://127.0.0.1 is a resource server
//   with scopes `mcp:read mcp:write` and audience = the resource URL; its access tokens are
//   RS256 JWTs (RFC 9068), except for resources whose path starts with `/opaque`, which get
//   opaque tokens (oidc-provider only introspects and revokes opaque tokens);
// - client credentials, introspection (RFC 7662) and revocation (RFC 7009);
// - DPoP (RFC 9449): a token request with a proof gets a DPoP-bound token (`cnf.jkt`), and
//   every proof must carry the server's nonce (the first is refused with `use_dpop_nonce`);
// - pre-registered confidential clients (client_secret_basic, client_credentials grant):
//     mcp-test-client / mcp-test-secret   access tokens live 600 s
//     mcp-test-short  / mcp-test-secret   access tokens live 1 s (expiry tests)
//   and dynamically registered clients named `mcp-test-short` get 1 s access tokens too;
// - a headless interaction path: the authorization endpoint redirects the user agent to
//   `/interaction/<uid>`, which logs in the test user (`?user=<id>`, default `test-user`),
//   grants every requested scope and resource, and redirects back, so the authorization-code
//   flow runs with a plain HTTP client that follows redirects (cookies required).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';

import Provider, { errors } from 'oidc-provider';

// Whoever started us may stop reading stdout or stderr; that must not kill the server.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

const port = Number(process.argv[2] ?? 0);
const server = http.createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'test-rs256', alg: 'RS256', use: 'sig' };

const SCOPES = 'mcp:read mcp:write';

function resourceServerInfo(_ctx, resourceIndicator) {
  let url;
  try {
    url = new URL(resourceIndicator);
  } catch {
    throw new errors.InvalidTarget();
  }
  if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1') {
    throw new errors.InvalidTarget();
  }
  const opaque = url.pathname.startsWith('/opaque');
  return {
    scope: SCOPES,
    audience: resourceIndicator,
    accessTokenFormat: opaque ? 'opaque' : 'jwt',
    ...(opaque ? {} : { jwt: { sign: { alg: 'RS256' } } }),
  };
}

const confidential = (clientId) => ({
  client_id: clientId,
  client_secret: 'mcp-test-secret',
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  scope: SCOPES,
  token_endpoint_auth_method: 'client_secret_basic',
});

const provider = new Provider(issuer, {
  clients: [confidential('mcp-test-client'), confidential('mcp-test-short')],
  jwks: { keys: [signingKey] },
  scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
  claims: { openid: ['sub'] },
  cookies: { keys: ['mcp-test-cookie-key'] },
  pkce: { required: () => true },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  ttl: {
    // Clients registered with the name `mcp-test-short` get 1 s access tokens (refresh tests).
    AccessToken: (_ctx, _token, client) => (client?.clientName === 'mcp-test-short' ? 1 : 3600),
    AuthorizationCode: 60,
    ClientCredentials: (_ctx, _token, client) => (client.clientId === 'mcp-test-short' ? 1 : 600),
    Grant: 3600,
    IdToken: 3600,
    Interaction: 600,
    RefreshToken: 86400,
    Session: 86400,
  },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, _client, oneOf) => oneOf ?? undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: resourceServerInfo,
    },
  },
});

// The headless interaction: log in, grant what is asked, go back to the authorization endpoint.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  const user = new URL(req.url, issuer).searchParams.get('user') ?? 'test-user';
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const missing = prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  } else {
    callback(req, res);
  }
});

process.stdout.write(`listening on ${issuer}\n`);

// A node-oidc-provider instance configured like our provider (rotating refresh tokens, 2 h access tokens), used as
// the peer reference for token introspection and the refresh grant. Prints one JSON line with the tokens the
// benchmark needs, then serves until killed.
import Provider from "oidc-provider";

const port = Number(process.argv[2]);
const refreshTokenCount = Number(process.argv[3] ?? 64);
const issuer = `http://localhost:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "bench",
      client_secret: "bench-secret",
      grant_types: ["authorization_code", "refresh_token"],
      redirect_uris: ["http://localhost/callback"],
      response_types: ["code"],
    },
  ],
  features: { introspection: { enabled: true }, devInteractions: { enabled: false } },
  scopes: ["openid", "offline_access", "api"],
  rotateRefreshToken: true,
  issueRefreshToken: async () => true,
  findAccount: async (_ctx, accountId) => ({ accountId, claims: async () => ({ sub: accountId }) }),
  ttl: { AccessToken: 7200, RefreshToken: 30 * 86400, Grant: 30 * 86400, Session: 86400, Interaction: 3600 },
});
provider.proxy = false;

const client = await provider.Client.find("bench");
async function newGrant() {
  const grant = new provider.Grant({ accountId: "bench-user", clientId: client.clientId });
  grant.addOIDCScope("openid offline_access");
  return grant.save();
}

const accessGrant = await newGrant();
const accessToken = await new provider.AccessToken({ accountId: "bench-user", client, grantId: accessGrant, scope: "openid" }).save();
const refreshTokens = [];
for (let index = 0; index < refreshTokenCount; index++) {
  const grantId = await newGrant();
  const token = new provider.RefreshToken({
    accountId: "bench-user",
    client,
    grantId,
    scope: "openid offline_access",
    gty: "authorization_code",
    authTime: Math.floor(Date.now() / 1000),
  });
  refreshTokens.push(await token.save());
}

provider.listen(port, () => {
  process.stdout.write(`${JSON.stringify({ ready: true, accessToken, refreshTokens })}\n`);
});

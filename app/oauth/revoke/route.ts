import { corsPreflight, oauthEndpoint, readOAuthParams, singleValued } from "@/lib/oauth/http";
import { revokeToken } from "@/lib/oauth/token-info";

export const POST = oauthEndpoint("/oauth/revoke", async ({ db, request, now }) => {
  await revokeToken(db, request, singleValued(await readOAuthParams(request)), now);
  return {};
});

export const OPTIONS = corsPreflight;

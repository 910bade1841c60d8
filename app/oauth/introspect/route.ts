import { oauthEndpoint, readOAuthParams, singleValued } from "@/lib/oauth/http";
import { introspectToken } from "@/lib/oauth/token-info";

export const POST = oauthEndpoint("/oauth/introspect", async ({ db, request, now }) =>
  introspectToken(db, request, singleValued(await readOAuthParams(request)), now),
);

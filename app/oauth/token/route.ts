import { corsPreflight, oauthEndpoint, readOAuthParams } from "@/lib/oauth/http";
import { exchangeToken } from "@/lib/oauth/token";

export const POST = oauthEndpoint("/oauth/token", async ({ db, request, now }) =>
  exchangeToken(db, request, await readOAuthParams(request), now),
);

export const OPTIONS = corsPreflight;

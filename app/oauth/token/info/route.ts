import { bearerToken, corsPreflight, oauthEndpoint } from "@/lib/oauth/http";
import { getTokenInfo } from "@/lib/oauth/token-info";

export const GET = oauthEndpoint("/oauth/token/info", async ({ db, request, url, now }) =>
  getTokenInfo(db, bearerToken(request, url), now),
);

export const OPTIONS = corsPreflight;

import { bearerToken, corsPreflight, oauthEndpoint } from "@/lib/oauth/http";
import { getUserInfo } from "@/lib/oauth/token-info";

const userinfo = oauthEndpoint("/oauth/userinfo", async ({ db, request, url, now }) =>
  getUserInfo(db, bearerToken(request, url), now),
);

export { userinfo as GET, userinfo as POST };
export const OPTIONS = corsPreflight;

import { test } from "@playwright/test";
import { randomBytes } from "node:crypto";
import NextAuth, { type NextAuthOptions } from "next-auth";
import GitLabProvider from "next-auth/providers/gitlab";
import { createUser } from "../support/api";
import { createApplicationAsRoot, expectAuthorizedOnProfile, expectRelyingPartySession, signInAndAuthorize } from "../support/oauth-browser";
import { serveApiRoute } from "../support/relying-parties";

// next-auth v4 with its GitLab provider, mounted as its documentation says (`pages/api/auth/[...nextauth].js`), the
// provider's GitLab.com endpoints replaced by the instance's as it documents for overriding a built-in provider. No
// issuer is configured (the provider has none), so openid-client, under next-auth, throws "issuer must be configured
// on the issuer" at any authorization response that carries `iss`: this passes only while ours carry none, as GitLab's.

test("next-auth's GitLab provider signs a person in through our sign-in and consent pages", async ({ page, request, baseURL }) => {
  const user = await createUser(request);
  let options: NextAuthOptions | undefined;
  const relyingParty = await serveApiRoute("/api/auth", "nextauth", (req, res) => NextAuth(req as never, res as never, options!));
  // next-auth v4 learns its own address from NEXTAUTH_URL, as its deployment documentation says to set it.
  const previousUrl = process.env.NEXTAUTH_URL;
  process.env.NEXTAUTH_URL = relyingParty.origin;
  try {
    const app = await createApplicationAsRoot(request, { redirectUri: `${relyingParty.origin}/api/auth/callback/gitlab`, scopes: "read_user" });
    options = {
      providers: [
        GitLabProvider({
          clientId: app.uid,
          clientSecret: app.secret,
          authorization: { url: `${baseURL}/oauth/authorize`, params: { scope: "read_user" } },
          token: `${baseURL}/oauth/token`,
          userinfo: `${baseURL}/api/v4/user`,
        }),
      ],
      secret: randomBytes(32).toString("hex"),
    };

    await page.goto(`${relyingParty.origin}/api/auth/signin?callbackUrl=${encodeURIComponent(`${relyingParty.origin}/api/auth/session`)}`);
    await page.getByRole("button", { name: "Sign in with GitLab" }).click();
    await signInAndAuthorize(page, baseURL!, user, app.name);

    // Back at the application, which redeemed the code, read /api/v4/user and started its own session.
    await expectRelyingPartySession(page, relyingParty, { callbackPrefix: "/api/auth/callback/", sessionPath: "/api/auth/session" }, user, baseURL!);

    await expectAuthorizedOnProfile(page, app.name, "read_user");
  } finally {
    if (previousUrl === undefined) delete process.env.NEXTAUTH_URL;
    else process.env.NEXTAUTH_URL = previousUrl;
    await relyingParty.close();
  }
});

import { test } from "@playwright/test";
import { Auth, type AuthConfig } from "@auth/core";
import GitLab from "@auth/core/providers/gitlab";
import { randomBytes } from "node:crypto";
import { createUser } from "../support/api";
import { createApplicationAsRoot, expectAuthorizedOnProfile, expectRelyingPartySession, signInAndAuthorize } from "../support/oauth-browser";
import { serveFetchHandler } from "../support/relying-parties";

// Auth.js (`@auth/core`) with its GitLab provider, set up as its documentation says for a self-managed GitLab: the
// instance's `baseUrl`, the application's id and secret, nothing else — no issuer. Auth.js then compares any `iss` in
// the authorization response with a placeholder issuer and refuses the sign-in ("unexpected iss"), so this passes only
// while authorization responses carry no `iss`, as GitLab's do.

test("Auth.js's GitLab provider signs a person in through our sign-in and consent pages", async ({ page, request, baseURL }) => {
  const user = await createUser(request);
  let config: AuthConfig | undefined;
  const relyingParty = await serveFetchHandler((incoming) => Auth(incoming, config!));
  try {
    const app = await createApplicationAsRoot(request, { redirectUri: `${relyingParty.origin}/auth/callback/gitlab`, scopes: "read_user" });
    config = {
      providers: [GitLab({ clientId: app.uid, clientSecret: app.secret, baseUrl: baseURL })],
      secret: randomBytes(32).toString("hex"),
      trustHost: true,
    };

    await page.goto(`${relyingParty.origin}/auth/signin?callbackUrl=${encodeURIComponent(`${relyingParty.origin}/auth/session`)}`);
    await page.getByRole("button", { name: "Sign in with GitLab" }).click();
    await signInAndAuthorize(page, baseURL!, user, app.name);

    // Back at the application, which redeemed the code, read /api/v4/user and started its own session.
    await expectRelyingPartySession(page, relyingParty, { callbackPrefix: "/auth/callback/", sessionPath: "/auth/session" }, user, baseURL!);

    // The person authorized the application: it is listed on their profile, with the scope it was given.
    await expectAuthorizedOnProfile(page, app.name, "read_user");
  } finally {
    await relyingParty.close();
  }
});

import type { Server } from "node:http";
import { expect, test } from "@playwright/test";
import express from "express";
import passport from "passport";
import { Strategy as GitLabStrategy } from "passport-gitlab2";
import { createUser, type CreatedUser } from "../support/api";
import { createApplicationAsRoot } from "../support/oauth-browser";
import {
  freePort,
  pageJson,
  python,
  requireOmniAuth,
  requireSocialAuth,
  ruby,
  sessionSecret,
  signInAndAuthorize,
  startRelyingParty,
  type RunningRelyingParty,
} from "../support/relying-parties";

// Sign-in libraries that already work with GitLab, each configured exactly as its own documentation says for a GitLab
// of one's own, driven through our sign-in and consent pages in Chromium. They are what sites use to offer "Sign in
// with GitLab", so a change that breaks one of them breaks those sites.

/** What each library learns of the person, from GitLab's /api/v4/user: the same for everybody. */
function gitlabUser(baseURL: string, user: CreatedUser) {
  return {
    id: user.id,
    username: user.username,
    name: `User ${user.username}`,
    email: user.email,
    avatar_url: `${baseURL}/-/avatars/${user.id}`,
    web_url: `${baseURL}/${user.username}`,
  };
}

/**
 * passport-gitlab2's README: the strategy with `clientID`, `clientSecret`, `callbackURL` and, for a GitLab of one's
 * own, `baseURL`; its default scope `read_user`; `passport.authenticate('gitlab')` on the two routes (without login
 * sessions, which this page has no use for).
 */
async function startPassportRelyingParty(baseURL: string, port: number, client: { uid: string; secret: string }): Promise<RunningRelyingParty> {
  const origin = `http://127.0.0.1:${port}`;
  const authenticator = new passport.Passport();
  authenticator.use(
    new GitLabStrategy(
      { clientID: client.uid, clientSecret: client.secret, callbackURL: `${origin}/auth/gitlab/callback`, baseURL: `${baseURL}/` },
      (_accessToken, refreshToken, profile, done) => done(null, { profile, hasRefreshToken: refreshToken.length > 0 }),
    ),
  );
  const app = express();
  app.use(authenticator.initialize());
  app.get("/auth/gitlab", authenticator.authenticate("gitlab", { session: false }));
  app.get("/auth/gitlab/callback", authenticator.authenticate("gitlab", { session: false, failureRedirect: "/failed" }), (request, response) => {
    const { profile, hasRefreshToken } = request.user as { profile: Record<string, unknown>; hasRefreshToken: boolean };
    const { _json: _json, _raw: _raw, ...shown } = profile;
    response.json({ ...shown, hasRefreshToken });
  });
  app.get("/failed", (_request, response) => {
    response.status(500).send("passport-gitlab2 failed the sign-in");
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(port, "127.0.0.1", () => resolve(listening));
  });
  return {
    origin,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test("passport-gitlab2 signs a person in with read_user", async ({ page, request, baseURL }) => {
  const port = await freePort();
  const client = await createApplicationAsRoot(request, { redirectUri: `http://127.0.0.1:${port}/auth/gitlab/callback`, scopes: "read_user" });
  const relyingParty = await startPassportRelyingParty(baseURL!, port, client);
  try {
    const user = await createUser(request);
    await page.goto(`${relyingParty.origin}/auth/gitlab`);
    await signInAndAuthorize(page, user, client.name, ["Read your personal information"]);
    expect(await pageJson(page, relyingParty.origin, "/auth/gitlab/callback")).toEqual({
      id: String(user.id),
      username: user.username,
      displayName: `User ${user.username}`,
      emails: [{ value: user.email }],
      avatarUrl: `${baseURL}/-/avatars/${user.id}`,
      profileUrl: `${baseURL}/${user.username}`,
      provider: "gitlab",
      hasRefreshToken: true,
    });
  } finally {
    await relyingParty.stop();
  }
});

/** social-core's script (see its docstring) with the backend's settings as social-core's documentation names them. */
async function startSocialAuth(port: number, settings: Record<string, string>): Promise<RunningRelyingParty> {
  return startRelyingParty(python, ["e2e/support/social-auth-relying-party.py"], port, settings);
}

test("python social-auth's GitLab backend signs a person in with read_user", async ({ page, request, baseURL }) => {
  requireSocialAuth();
  const port = await freePort();
  const client = await createApplicationAsRoot(request, { redirectUri: `http://127.0.0.1:${port}/complete/gitlab/`, scopes: "read_user" });
  const relyingParty = await startSocialAuth(port, {
    SOCIAL_AUTH_GITLAB_KEY: client.uid,
    SOCIAL_AUTH_GITLAB_SECRET: client.secret,
    SOCIAL_AUTH_GITLAB_API_URL: baseURL!,
  });
  try {
    const user = await createUser(request);
    await page.goto(`${relyingParty.origin}/login/gitlab/`);
    await signInAndAuthorize(page, user, client.name, ["Read your personal information"]);
    const signedIn = (await pageJson(page, relyingParty.origin, "/done")) as Record<string, unknown>;
    expect(signedIn).toMatchObject({
      backend: "gitlab",
      uid: user.id,
      details: { username: user.username, email: user.email, fullname: `User ${user.username}`, first_name: "User", last_name: user.username },
      response: gitlabUser(baseURL!, user),
    });
  } finally {
    await relyingParty.stop();
  }
});

test("python social-auth's generic OpenID Connect backend signs a person in, checking the ID token", async ({ page, request, baseURL }) => {
  requireSocialAuth();
  const port = await freePort();
  const client = await createApplicationAsRoot(request, {
    redirectUri: `http://127.0.0.1:${port}/complete/oidc/`,
    scopes: "openid profile email",
  });
  const relyingParty = await startSocialAuth(port, {
    SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: baseURL!,
    SOCIAL_AUTH_OIDC_KEY: client.uid,
    SOCIAL_AUTH_OIDC_SECRET: client.secret,
  });
  try {
    const user = await createUser(request);
    await page.goto(`${relyingParty.origin}/login/oidc/`);
    await signInAndAuthorize(page, user, client.name, [
      "Authenticate using OpenID Connect",
      "Read your profile through OpenID Connect",
      "Read your email address through OpenID Connect",
    ]);
    // The backend refuses the sign-in unless the ID token's signature (against the JWKS), issuer, audience, age and
    // nonce are right; then it reads userinfo.
    expect(await pageJson(page, relyingParty.origin, "/done")).toEqual({
      backend: "oidc",
      uid: String(user.id),
      details: {
        username: user.username,
        email: user.email,
        fullname: `User ${user.username}`,
        first_name: null,
        last_name: null,
        // The backend reads GitLab's `groups` claim: none here.
        groups: [],
      },
      // Userinfo's claims, with the token response's other members that the backend keeps beside them.
      response: {
        sub: String(user.id),
        name: `User ${user.username}`,
        nickname: user.username,
        preferred_username: user.username,
        email: user.email,
        email_verified: true,
        profile: `${baseURL}/${user.username}`,
        picture: `${baseURL}/-/avatars/${user.id}`,
        groups: [],
        token_type: "Bearer",
        expires_in: 7200,
        scope: "openid profile email",
        created_at: expect.any(Number),
      },
    });
  } finally {
    await relyingParty.stop();
  }
});

test("OmniAuth GitLab signs a person in with its default scope, api", async ({ page, request, baseURL }) => {
  requireOmniAuth();
  const port = await freePort();
  const client = await createApplicationAsRoot(request, { redirectUri: `http://127.0.0.1:${port}/auth/gitlab/callback`, scopes: "api" });
  const relyingParty = await startRelyingParty(ruby, ["e2e/support/omniauth-relying-party.rb"], port, {
    GITLAB_KEY: client.uid,
    GITLAB_SECRET: client.secret,
    GITLAB_URL: baseURL!,
    RELYING_PARTY_SESSION_SECRET: sessionSecret(),
  });
  try {
    const user = await createUser(request);
    await page.goto(`${relyingParty.origin}/`);
    await page.getByRole("button", { name: "Sign in with GitLab" }).click();
    await signInAndAuthorize(page, user, client.name, ["Access the API on your behalf"]);
    const auth = (await pageJson(page, relyingParty.origin, "/auth/gitlab/callback")) as Record<string, unknown>;
    expect(auth).toMatchObject({
      provider: "gitlab",
      uid: String(user.id),
      info: { name: `User ${user.username}`, username: user.username, email: user.email, image: `${baseURL}/-/avatars/${user.id}` },
      raw_info: gitlabUser(baseURL!, user),
      credentials: { expires: true, expires_at: expect.any(Number), has_token: true, has_refresh_token: true },
    });
    expect(Object.keys(auth.info as object).sort()).toEqual(["email", "image", "name", "username"]);
  } finally {
    await relyingParty.stop();
  }
});

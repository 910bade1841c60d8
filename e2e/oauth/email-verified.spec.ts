import { expect, test } from "@playwright/test";
import * as client from "openid-client";
import { uniqueName } from "../support/api";
import { signUp } from "../support/browser";
import { waitForMailedLink } from "../support/mail";
import { createApplication, discover } from "../support/oauth";

/**
 * The attack: someone signs up with an address that is not theirs and signs in to a relying party that links accounts
 * by verified email. The provider must not vouch for the address until its owner opens the link mailed to it.
 */
test("an address someone signed up with is not verified in the ID token or userinfo until the mailed link is opened", async (
  { page, request, baseURL },
  testInfo,
) => {
  const victimEmail = `${uniqueName("victim")}@example.com`;
  const attacker = { username: uniqueName("attacker"), email: victimEmail, password: "attacker's own password" };
  await signUp(page, attacker);
  await expect(page.getByRole("status").filter({ hasText: "Please confirm your email address" })).toBeVisible();

  const app = await createApplication(request);
  const config = await discover(baseURL!, app.application_id, app.secret);
  const grant = (scope: string) => client.genericGrantRequest(config, "password", { username: attacker.username, password: attacker.password, scope });

  const withEmail = await grant("openid email");
  const claims = withEmail.claims()!;
  expect(claims).toMatchObject({ preferred_username: attacker.username, email: victimEmail, email_verified: false });
  const userinfo = await client.fetchUserInfo(config, withEmail.access_token, claims.sub);
  expect(userinfo).toMatchObject({ email: victimEmail, email_verified: false });

  // Without the email scope neither claim is released (GitLab would give the public email; there is none here).
  const withoutEmail = await grant("openid profile");
  expect(withoutEmail.claims()).not.toHaveProperty("email");
  expect(withoutEmail.claims()).not.toHaveProperty("email_verified");
  const profileInfo = await client.fetchUserInfo(config, withoutEmail.access_token, claims.sub);
  expect(profileInfo).not.toHaveProperty("email");
  expect(profileInfo).not.toHaveProperty("email_verified");
  expect(profileInfo.preferred_username).toBe(attacker.username);

  // Only whoever reads the victim's mail can confirm it; once confirmed, the claim says so.
  await page.goto(await waitForMailedLink(testInfo.project.name, victimEmail));
  await expect(page.getByText("Your email address has been successfully confirmed.")).toBeVisible();
  const confirmed = await grant("openid email");
  expect(confirmed.claims()).toMatchObject({ email: victimEmail, email_verified: true });
  expect(await client.fetchUserInfo(config, confirmed.access_token, claims.sub)).toMatchObject({ email_verified: true });
});

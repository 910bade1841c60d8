import { expect, test } from "@playwright/test";
import { asToken, createToken, createUser, expectJson, rootToken } from "../support/api";
import { signIn } from "../support/browser";

// GET and PUT /application/settings change what the whole instance does, so this file runs on a server of its own
// (playwright.config.ts, `application-settings`), one test after the other.
test.describe.configure({ mode: "serial" });

const root = asToken(rootToken);
/** The settings as GET answers them; the local-network switch also under its name before GitLab 12.2, as GitLab's. */
function settings(allowLocal: boolean, iss: boolean) {
  return {
    signup_enabled: true,
    allow_local_requests_from_web_hooks_and_services: allowLocal,
    allow_local_requests_from_hooks_and_services: allowLocal,
    oauth_authorization_response_iss: iss,
    can_create_group: true,
  };
}
const defaults = settings(false, false);

test("only admins read and change the settings: 401 without a token, 403 for anyone else", async ({ request }) => {
  const someone = await createUser(request);
  await expectJson(await request.get("/api/v4/application/settings"), 401, { message: "401 Unauthorized" });
  await expectJson(await request.put("/api/v4/application/settings", { data: { allow_local_requests_from_web_hooks_and_services: true } }), 401, {
    message: "401 Unauthorized",
  });
  await expectJson(await request.get("/api/v4/application/settings", { headers: asToken(someone.token) }), 403, { message: "403 Forbidden" });
  // Refused before its parameters are read, so a bad value tells a non-admin nothing either.
  for (const value of [true, "maybe"]) {
    await expectJson(
      await request.put("/api/v4/application/settings", { headers: asToken(someone.token), data: { allow_local_requests_from_web_hooks_and_services: value } }),
      403,
      { message: "403 Forbidden" },
    );
  }
  await expectJson(await request.get("/api/v4/application/settings", { headers: root }), 200, defaults);
});

test("PUT takes form and JSON bodies, reads booleans as GitLab does, ignores attributes it does not have and refuses bad values", async ({ request }) => {
  const form = await request.put("/api/v4/application/settings", {
    headers: root,
    form: { allow_local_requests_from_web_hooks_and_services: "true", signup_enabled: "false", gravatar_enabled: "false" },
  });
  // signup_enabled is the server's configuration (SIGNUP_ENABLED), read here and set nowhere else.
  await expectJson(form, 200, settings(true, false));
  await expectJson(await request.get("/api/v4/application/settings", { headers: root }), 200, settings(true, false));

  // Only what is sent changes.
  await expectJson(await request.put("/api/v4/application/settings", { headers: root, data: { oauth_authorization_response_iss: "1" } }), 200, settings(true, true));
  await expectJson(await request.put("/api/v4/application/settings", { headers: root, data: {} }), 200, settings(true, true));

  for (const value of ["maybe", "", "2", 2, null, ["true"]]) {
    await expectJson(
      await request.put("/api/v4/application/settings", { headers: root, data: { allow_local_requests_from_web_hooks_and_services: value, oauth_authorization_response_iss: false } }),
      400,
      { error: "allow_local_requests_from_web_hooks_and_services is invalid" },
    );
  }
  await expectJson(await request.put("/api/v4/application/settings?oauth_authorization_response_iss=perhaps", { headers: root }), 400, {
    error: "oauth_authorization_response_iss is invalid",
  });
  // Nothing of a refused request was saved.
  await expectJson(await request.get("/api/v4/application/settings", { headers: root }), 200, settings(true, true));

  await expectJson(
    await request.put("/api/v4/application/settings", {
      headers: root,
      multipart: { allow_local_requests_from_web_hooks_and_services: "False", oauth_authorization_response_iss: "off" },
    }),
    200,
    defaults,
  );

  // The name before GitLab 12.2 is taken too, and wins over the new one, as on GitLab.
  await expectJson(await request.put("/api/v4/application/settings", { headers: root, data: { allow_local_requests_from_hooks_and_services: "yes" } }), 200, settings(true, false));
  await expectJson(
    await request.put("/api/v4/application/settings", {
      headers: root,
      data: { allow_local_requests_from_hooks_and_services: false, allow_local_requests_from_web_hooks_and_services: true },
    }),
    200,
    defaults,
  );
  await expectJson(await request.put("/api/v4/application/settings", { headers: root, data: { allow_local_requests_from_hooks_and_services: "nope" } }), 400, {
    error: "allow_local_requests_from_hooks_and_services is invalid",
  });
  await expectJson(await request.get("/api/v4/application/settings", { headers: root }), 200, defaults);
});

test("a read_api token reads the settings and cannot change them", async ({ request }) => {
  const admin = await createUser(request, { admin: true });
  const reader = await createToken(request, admin.id, ["read_api"]);
  await expectJson(await request.get("/api/v4/application/settings", { headers: asToken(reader.token) }), 200, defaults);
  const refused = await request.put("/api/v4/application/settings", { headers: asToken(reader.token), data: { oauth_authorization_response_iss: true } });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ error: "insufficient_scope" });
  await expectJson(await request.get("/api/v4/application/settings", { headers: root }), 200, defaults);
});

test("the admin page shows the setting with GitLab's label and saves it; the API reads what it saved", async ({ page, request }) => {
  const admin = await createUser(request, { admin: true });
  await signIn(page, admin.username, admin.password);
  await page.goto("/admin/application_settings/general");
  const setting = page.getByRole("checkbox", { name: "Allow requests to the local network from webhooks and integrations" });
  await expect(setting).not.toBeChecked();
  await expect(page.getByRole("group", { name: "Outbound requests" })).toContainText("the cloud metadata address");
  await setting.check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Application settings saved successfully.")).toBeVisible();
  await expectJson(await request.get("/api/v4/application/settings", { headers: root }), 200, settings(true, false));

  await expectJson(await request.put("/api/v4/application/settings", { headers: root, data: { allow_local_requests_from_web_hooks_and_services: false } }), 200, defaults);
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "Allow requests to the local network from webhooks and integrations" })).not.toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Send the issuer (iss) with authorization responses" })).not.toBeChecked();
});

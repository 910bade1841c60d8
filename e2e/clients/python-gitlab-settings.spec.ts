import { expect, test } from "@playwright/test";
import { createUser, rootToken } from "../support/api";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

// Changes the instance's settings: runs on the server of the settings' own suite (playwright.config.ts,
// `application-settings`), one test after the other.
test.describe.configure({ mode: "serial" });
test.beforeEach(() => requirePythonGitlab());

test("python-gitlab reads the application settings and saves the local-network switch and the iss setting", async ({ baseURL }) => {
  const out = runPythonGitlab(
    `
settings = gl.settings.get()
out["before"] = {name: getattr(settings, name) for name in ("signup_enabled", "allow_local_requests_from_web_hooks_and_services", "oauth_authorization_response_iss")}
settings.allow_local_requests_from_web_hooks_and_services = True
settings.save()
out["saved"] = settings.allow_local_requests_from_web_hooks_and_services
out["reread"] = gl.settings.get().allow_local_requests_from_web_hooks_and_services
gl.settings.update(new_data={"oauth_authorization_response_iss": True, "gravatar_enabled": False})
again = gl.settings.get()
out["after_update"] = [again.allow_local_requests_from_web_hooks_and_services, again.oauth_authorization_response_iss]
again.allow_local_requests_from_web_hooks_and_services = False
again.oauth_authorization_response_iss = False
again.save()
out["restored"] = gl.settings.get().asdict()
try:
    gl.settings.update(new_data={"allow_local_requests_from_web_hooks_and_services": "maybe"})
except gitlab.GitlabUpdateError as error:
    out["refused"] = [error.response_code, error.error_message]
`,
    { baseURL: baseURL!, token: rootToken },
  );
  expect(out).toEqual({
    before: { signup_enabled: true, allow_local_requests_from_web_hooks_and_services: false, oauth_authorization_response_iss: false },
    saved: true,
    reread: true,
    after_update: [true, true],
    restored: {
      signup_enabled: true,
      allow_local_requests_from_web_hooks_and_services: false,
      allow_local_requests_from_hooks_and_services: false,
      oauth_authorization_response_iss: false,
      can_create_group: true,
    },
    refused: [400, "allow_local_requests_from_web_hooks_and_services is invalid"],
  });
});

test("python-gitlab as a non-admin is refused with GitLab's 403", async ({ request, baseURL }) => {
  const someone = await createUser(request);
  const out = runPythonGitlab(
    `
try:
    gl.settings.get()
except gitlab.GitlabGetError as error:
    out["get"] = [error.response_code, error.error_message]
try:
    gl.settings.update(new_data={"allow_local_requests_from_web_hooks_and_services": True})
except gitlab.GitlabUpdateError as error:
    out["update"] = [error.response_code, error.error_message]
`,
    { baseURL: baseURL!, token: someone.token },
  );
  expect(out).toEqual({ get: [403, "403 Forbidden"], update: [403, "403 Forbidden"] });
});

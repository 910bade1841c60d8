import { expect, test, type Locator, type Page } from "@playwright/test";
import { createProject, createProjectWithMember, createUser, uniqueName, utcDay } from "../support/api";
import { createIntegration } from "../support/alerts";
import { signIn } from "../support/browser";

/**
 * Submits with `submit` at the top of the viewport, so the fields above it are scrolled out of sight, and presses it
 * from the keyboard so nothing scrolls back to them before the server answers.
 */
async function submitScrolledAway(page: Page, submit: Locator, field: Locator, { height = 500 } = {}) {
  await page.setViewportSize({ width: 390, height });
  await submit.evaluate((element) => element.scrollIntoView({ block: "start" }));
  await expect(field).not.toBeInViewport();
  await submit.focus();
  await page.keyboard.press("Enter");
}

/** The server's error is on the field: shown, in view, described by it, and the field has the focus. */
async function expectErrorOnField(page: Page, field: Locator, message: string) {
  const error = page.getByText(message, { exact: true });
  await expect(error).toBeVisible();
  await expect(error).toBeInViewport();
  await expect(field).toBeFocused();
  await expect(field).toHaveAttribute("aria-invalid", "true");
  const describedBy = (await field.getAttribute("aria-describedby")) ?? "";
  const errorId = await error.getAttribute("id");
  expect(errorId).toBeTruthy();
  expect(describedBy.split(" ")).toContain(errorId);
}

test("an application's forbidden redirect URI is shown and focused on its field", async ({ page, request }) => {
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto("/profile/applications");
  await page.getByLabel("Name", { exact: true }).fill(uniqueName("App"));
  const redirectUri = page.getByLabel("Redirect URI");
  await redirectUri.fill("javascript:alert(1)");
  await page.getByRole("checkbox", { name: /^read_user / }).check();
  await submitScrolledAway(page, page.getByRole("button", { name: "Save application" }), redirectUri);
  await expectErrorOnField(page, redirectUri, "Redirect uri is forbidden by the server.");
});

test("sign-up's taken username is shown and focused on its field", async ({ page, request }) => {
  const existing = await createUser(request);
  await page.goto("/users/sign_up");
  await page.getByLabel("Name", { exact: true }).fill("Someone Else");
  const username = page.getByLabel("Username");
  await username.fill(existing.username);
  await page.getByLabel("Email").fill(`${uniqueName("other")}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill("a-long-password-1");
  await page.getByLabel("Password confirmation").fill("a-long-password-1");
  // The form is short: a short viewport lets it scroll the username out of sight.
  await submitScrolledAway(page, page.getByRole("button", { name: "Register" }), username, { height: 360 });
  await expectErrorOnField(page, username, "Username has already been taken");
});

test("a token's past expiry date is shown and focused on its field", async ({ page, request }) => {
  const user = await createUser(request);
  await signIn(page, user.username, user.password);
  await page.goto("/profile/personal_access_tokens");
  await page.getByLabel("Token name").fill("ci");
  const expiry = page.getByLabel("Expiration date");
  await expiry.fill(utcDay(0));
  await page.getByRole("checkbox", { name: /^read_api / }).check();
  await submitScrolledAway(page, page.getByRole("button", { name: "Create personal access token" }), expiry);
  await expectErrorOnField(page, expiry, "Expires at must be in the future");
});

test("adding an unknown username or an existing member is shown and focused on the username", async ({ page, request }) => {
  const { owner, member: colleague, project } = await createProjectWithMember(request, 30);
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/project_members`);
  const username = page.getByRole("combobox", { name: "Username" });
  await username.fill(colleague.username);
  await submitScrolledAway(page, page.getByRole("button", { name: "Add member" }), username);
  await expectErrorOnField(page, username, `@${colleague.username} is already a member of this project`);
  await username.fill(uniqueName("nobody"));
  await submitScrolledAway(page, page.getByRole("button", { name: "Add member" }), username);
  await expectErrorOnField(page, username, "Username does not belong to any user");
});

test("a second Prometheus integration is refused on the type field", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  await createIntegration(request, owner.token, project.id, { name: "Prometheus", type: "prometheus" });
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
  await page.getByRole("button", { name: "Add new integration" }).click();
  const type = page.getByLabel("1. Select integration type");
  await type.selectOption("prometheus");
  await page.getByLabel("2. Name integration").fill("Another Prometheus");
  // A Prometheus integration's form is short: a low viewport leaves room to scroll its type out of sight.
  await submitScrolledAway(page, page.getByRole("button", { name: "Save integration" }), type, { height: 240 });
  await expectErrorOnField(page, type, "Type Multiple integrations of a single type are not supported for this project");
});

test("an error that belongs to no field is a notice, scrolled into view and focused", async ({ page, request }) => {
  const { owner, member: maintainer, project } = await createProjectWithMember(request, 40);
  const newcomer = await createUser(request);
  await signIn(page, maintainer.username, maintainer.password);
  await page.goto(`/${project.path_with_namespace}/-/project_members`);
  // Demoted while the page is open: the whole form is refused, which no field can show.
  const demoted = await request.put(`/api/v4/projects/${project.id}/members/${maintainer.id}`, {
    headers: { "PRIVATE-TOKEN": owner.token },
    data: { access_level: 30 },
  });
  expect(demoted.status()).toBe(200);
  const username = page.getByRole("combobox", { name: "Username" });
  await username.fill(newcomer.username);
  const submit = page.getByRole("button", { name: "Add member" });
  await page.setViewportSize({ width: 390, height: 500 });
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await submit.focus();
  await page.keyboard.press("Enter");
  const notice = page.getByRole("main").getByRole("alert");
  await expect(notice).toBeVisible();
  await expect(notice).toBeInViewport();
  await expect(notice).toBeFocused();
});

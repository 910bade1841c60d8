import { expect, test } from "@playwright/test";
import { asToken, createUser, uniqueName } from "../support/api";
import { signIn } from "../support/browser";

test("a private project is a 404 for other users and for anonymous visitors; a public one is visible", async ({ page, request, browser, baseURL }) => {
  const owner = await createUser(request);
  const stranger = await createUser(request);
  const createProject = async (visibility: string) => {
    const response = await request.post("/api/v4/projects", {
      headers: asToken(owner.token),
      data: { name: uniqueName(visibility), visibility, description: `A ${visibility} project` },
    });
    expect(response.status()).toBe(201);
    return (await response.json()) as { name: string; path_with_namespace: string };
  };
  const privateProject = await createProject("private");
  const publicProject = await createProject("public");

  await signIn(page, stranger.username, stranger.password);
  for (const path of [`/${privateProject.path_with_namespace}`, `/${privateProject.path_with_namespace}/-/project_members`]) {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(page.getByText(privateProject.name)).toHaveCount(0);
  }
  const visible = await page.goto(`/${publicProject.path_with_namespace}`);
  expect(visible?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: publicProject.name, level: 1 })).toBeVisible();
  await expect(page.locator("dl")).toContainText("Not a member");

  const anonymousContext = await browser.newContext({ baseURL });
  const anonymous = await anonymousContext.newPage();
  const hidden = await anonymous.goto(`/${privateProject.path_with_namespace}`);
  expect(hidden?.status()).toBe(404);
  const shown = await anonymous.goto(`/${publicProject.path_with_namespace}`);
  expect(shown?.status()).toBe(200);
  await expect(anonymous.getByRole("heading", { name: publicProject.name, level: 1 })).toBeVisible();
  await expect(anonymous.getByText("A public project")).toBeVisible();

  // The user page lists only what the visitor may see.
  const userPage = await anonymous.goto(`/${owner.username}`);
  expect(userPage?.status()).toBe(200);
  await expect(anonymous.getByRole("heading", { name: `User ${owner.username}`, level: 1 })).toBeVisible();
  await expect(anonymous.getByRole("link", { name: publicProject.name, exact: true })).toBeVisible();
  await expect(anonymous.getByRole("link", { name: privateProject.name })).toHaveCount(0);
  expect((await anonymous.goto(`/${uniqueName("nobody")}`))?.status()).toBe(404);
  await anonymousContext.close();
});

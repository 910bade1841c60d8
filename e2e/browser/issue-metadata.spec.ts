import { expect, test } from "@playwright/test";
import { addMember, asToken, createProject, createUser } from "../support/api";
import { signIn } from "../support/browser";

test("the issue page shows its assignees, labels in their colours, milestone and due date", async ({ page, request }) => {
  const owner = await createUser(request);
  const developer = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, developer.id, 30);
  const milestone = await request.post(`/api/v4/projects/${project.id}/milestones`, { headers: asToken(owner.token), data: { title: "v1" } });
  const { id: milestoneId } = (await milestone.json()) as { id: number };
  await request.post(`/api/v4/projects/${project.id}/labels`, { headers: asToken(owner.token), data: { name: "bug", color: "#ffffff" } });
  const created = await request.post(`/api/v4/projects/${project.id}/issues`, {
    headers: asToken(owner.token),
    data: { title: "Filed", labels: "bug,ui", assignee_ids: [developer.id], milestone_id: milestoneId, due_date: "2030-01-31" },
  });
  expect(created.status()).toBe(201);
  await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Bare" } });

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/issues/1`);
  const details = page.getByRole("definition");
  await expect(details).toHaveText([`User ${developer.username}`, "bugui", "v1", "2030-01-31"]);
  await expect(page.getByText("bug", { exact: true })).toHaveCSS("color", "rgb(31, 30, 36)");
  await expect(page.getByText("ui", { exact: true })).toHaveCSS("background-color", "rgb(102, 153, 204)");
  await page.goto(`/${project.path_with_namespace}/-/issues/2`);
  await expect(page.getByRole("definition")).toHaveText(["None", "None", "None", "None"]);
});

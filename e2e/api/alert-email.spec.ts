import { expect, test } from "@playwright/test";
import { addMember, asToken, createProject, createUser, expectJson, rootToken, uniqueName } from "../support/api";
import { bearer, createIntegration, postAlert, receiverPath } from "../support/alerts";
import { mailedSubjects } from "../support/mail";

// Alert emails: the project's `send_email` setting, and the mail an alert posted to an integration sends.

const settingsPath = (projectId: number) => `/api/v4/projects/${projectId}/alert_management/settings`;

test.describe("alert emails", () => {
  test("send_email is off by default, and Maintainers turn it on and off through the settings API", async ({ request }) => {
    const owner = await createUser(request);
    const maintainer = await createUser(request);
    const project = await createProject(request, owner.token);
    await addMember(request, owner.token, project.id, maintainer.id, 40);
    const headers = asToken(maintainer.token);
    await expectJson(await request.get(settingsPath(project.id), { headers }), 200, { create_incident: false, auto_close_incident: true, send_email: false });
    await expectJson(await request.put(settingsPath(project.id), { headers, data: { send_email: true } }), 200, {
      create_incident: false,
      auto_close_incident: true,
      send_email: true,
    });
    await expectJson(await request.get(settingsPath(project.id), { headers }), 200, { create_incident: false, auto_close_incident: true, send_email: true });
    // Settings not named keep their value; GitLab's spellings of booleans are taken.
    await expectJson(await request.put(settingsPath(project.id), { headers, data: { create_incident: "true" } }), 200, {
      create_incident: true,
      auto_close_incident: true,
      send_email: true,
    });
    await expectJson(await request.put(settingsPath(project.id), { headers, data: { send_email: "no" } }), 200, {
      create_incident: true,
      auto_close_incident: true,
      send_email: false,
    });
    await expectJson(await request.put(settingsPath(project.id), { headers, data: { send_email: "maybe" } }), 400, { error: "send_email is invalid" });
    await expectJson(await request.get(settingsPath(project.id), { headers }), 200, { create_incident: true, auto_close_incident: true, send_email: false });
  });

  test("only Maintainers and Owners see or change it: Developers get 403, people who cannot see the private project 404, anonymous callers 401", async ({
    request,
  }) => {
    const owner = await createUser(request);
    const developer = await createUser(request);
    const outsider = await createUser(request);
    const project = await createProject(request, owner.token);
    await addMember(request, owner.token, project.id, developer.id, 30);
    const forbidden = { message: "403 Forbidden" };
    await expectJson(await request.get(settingsPath(project.id), { headers: asToken(developer.token) }), 403, forbidden);
    await expectJson(await request.put(settingsPath(project.id), { headers: asToken(developer.token), data: { send_email: true } }), 403, forbidden);
    const notFound = { message: "404 Project Not Found" };
    await expectJson(await request.get(settingsPath(project.id), { headers: asToken(outsider.token) }), 404, notFound);
    await expectJson(await request.put(settingsPath(project.id), { headers: asToken(outsider.token), data: { send_email: true } }), 404, notFound);
    // As GitLab's project hooks API (`authenticate!`): a settings endpoint asks who is calling before anything else.
    const unauthorized = { message: "401 Unauthorized" };
    await expectJson(await request.get(settingsPath(project.id)), 401, unauthorized);
    await expectJson(await request.put(settingsPath(project.id), { data: { send_email: true } }), 401, unauthorized);
    await expectJson(await request.get(settingsPath(project.id), { headers: asToken(owner.token) }), 200, { create_incident: false, auto_close_incident: true, send_email: false });
  });

  test("an alert posted to an integration is mailed to the Owners and Maintainers, and so is its resolution", async ({ request }, testInfo) => {
    const [owner, maintainer, developer, blocked] = await Promise.all(Array.from({ length: 4 }, () => createUser(request)));
    const name = uniqueName("Checkout");
    const project = await createProject(request, owner!.token, { name });
    await addMember(request, owner!.token, project.id, maintainer!.id, 40);
    await addMember(request, owner!.token, project.id, developer!.id, 30);
    await addMember(request, owner!.token, project.id, blocked!.id, 40);
    expect((await request.post(`/api/v4/users/${blocked!.id}/block`, { headers: asToken(rootToken) })).status()).toBe(201);
    await request.put(settingsPath(project.id), { headers: asToken(owner!.token), data: { send_email: true } });
    const integration = await createIntegration(request, maintainer!.token, project.id);
    const subject = `${name} | Alert: production: Payment errors`;
    const subjectsOf = (email: string) => () => mailedSubjects(testInfo.project.name, email);

    const fired = await postAlert(request, receiverPath(integration), { title: "Payment errors", gitlab_environment_name: "production", fingerprint: "pay" }, bearer(integration.token));
    expect(fired.status()).toBe(200);
    for (const person of [owner!, maintainer!]) await expect.poll(subjectsOf(person.email), { message: person.email }).toEqual([subject]);

    const resolved = await postAlert(request, receiverPath(integration), { fingerprint: "pay", end_time: new Date().toISOString() }, bearer(integration.token));
    expect(resolved.status()).toBe(200);
    for (const person of [owner!, maintainer!]) await expect.poll(subjectsOf(person.email), { message: person.email }).toEqual([subject, subject]);
    expect(subjectsOf(developer!.email)()).toEqual([]);
    expect(subjectsOf(blocked!.email)()).toEqual([]);
  });
});

import { Gitlab } from "@gitbeaker/rest";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createUser, type CreatedUser } from "../support/api";

interface RawEvent {
  id: number;
  author_id: number;
  project_id: number;
  action_name: string;
}

/** Every event of a list in one request (fewer than 100 here), as the reference for what paging must return. */
async function everyEvent(request: APIRequestContext, path: string, token: string): Promise<number[]> {
  const response = await request.get(`${path}${path.includes("?") ? "&" : "?"}per_page=100`, { headers: asToken(token) });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as RawEvent[]).map((event) => event.id);
}

async function post(request: APIRequestContext, token: string, path: string, data: Record<string, unknown>): Promise<{ iid: number; id: number }> {
  const response = await request.post(`/api/v4${path}`, { headers: asToken(token), data });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { iid: number; id: number };
}

/** 70 events by `owner` in one project: the project, 40 issues, 20 comments, 5 closes, 4 milestones. */
async function makeSeventyEvents(request: APIRequestContext, owner: CreatedUser, projectId: number): Promise<void> {
  const iids: number[] = [];
  for (let index = 0; index < 40; index += 1) iids.push((await post(request, owner.token, `/projects/${projectId}/issues`, { title: `Issue ${index}` })).iid);
  for (let index = 0; index < 20; index += 1) await post(request, owner.token, `/projects/${projectId}/issues/${iids[index]}/notes`, { body: `Comment ${index}` });
  for (let index = 0; index < 5; index += 1) {
    const closed = await request.put(`/api/v4/projects/${projectId}/issues/${iids[index]}`, { headers: asToken(owner.token), data: { state_event: "close" } });
    expect(closed.status()).toBe(200);
  }
  for (let index = 0; index < 4; index += 1) await post(request, owner.token, `/projects/${projectId}/milestones`, { title: `v${index}` });
}

test.describe("gitbeaker walks every page of the Events API", () => {
  test("own, user, project and scope=all events: every event exactly once, in order", async ({ request, baseURL }) => {
    test.setTimeout(120_000);
    const owner = await createUser(request);
    const developer = await createUser(request);
    const project = await createProject(request, owner.token);
    await addMember(request, owner.token, project.id, developer.id, 30);
    await makeSeventyEvents(request, owner, project.id);
    // The developer's own activity: joined, plus three issues.
    for (let index = 0; index < 3; index += 1) await post(request, developer.token, `/projects/${project.id}/issues`, { title: `Dev issue ${index}` });

    const api = new Gitlab({ host: baseURL!, token: owner.token });

    const ownIds = await everyEvent(request, "/api/v4/events", owner.token);
    expect(ownIds).toHaveLength(70);
    const own = await api.Events.all({ perPage: 20 });
    expect(own.map((event) => event.id)).toEqual(ownIds);
    expect([...ownIds].sort((a, b) => b - a)).toEqual(ownIds);

    const ownAscending = await api.Events.all({ perPage: 20, sort: "asc" });
    expect(ownAscending.map((event) => event.id)).toEqual([...ownIds].reverse());

    const byUser = await api.Users.allEvents(owner.id, { perPage: 20 });
    expect(byUser.map((event) => event.id)).toEqual(ownIds);
    const byUserThroughEvents = await api.Events.all({ userId: owner.username, perPage: 20 });
    expect(byUserThroughEvents.map((event) => event.id)).toEqual(ownIds);

    const projectIds = await everyEvent(request, `/api/v4/projects/${project.id}/events`, owner.token);
    expect(projectIds).toHaveLength(74);
    const byProject = await api.Events.all({ projectId: project.id, perPage: 20 });
    expect(byProject.map((event) => event.id)).toEqual(projectIds);

    const everything = await api.Events.all({ scope: "all", perPage: 20 });
    expect(everything.map((event) => event.id)).toEqual(projectIds);
    expect(new Set(everything.map((event) => event.author_id))).toEqual(new Set([owner.id, developer.id]));

    // Filters travel in the next links, so every page stays filtered.
    const comments = await api.Events.all({ projectId: project.id, action: "commented", targetType: "note", perPage: 7 });
    expect(comments).toHaveLength(20);
    expect(new Set(comments.map((event) => event.action_name))).toEqual(new Set(["commented on"]));

    // The page headers, as gitbeaker reads them.
    const expanded = await api.Events.all({ perPage: 20, page: 2, showExpanded: true });
    expect(expanded.data).toHaveLength(20);
    expect(expanded.paginationInfo).toEqual({ total: 70, next: 3, current: 2, previous: 1, perPage: 20, totalPages: 4 });

    const limited = await api.Events.all({ perPage: 20, maxPages: 2 });
    expect(limited.map((event) => event.id)).toEqual(ownIds.slice(0, 40));

    // Keyset pages follow the Link header too.
    const keyset = await api.Events.all({ projectId: project.id, pagination: "keyset", perPage: 20, orderBy: "id", sort: "desc" });
    expect(keyset.map((event) => event.id)).toEqual(projectIds);
  });
});

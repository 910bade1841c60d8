import postgres from "postgres";
import { expect, test, type APIResponse } from "@playwright/test";
import { asToken, createProject, createUser, rootToken, uniqueName } from "../support/api";
import { e2eDatabaseUrl } from "../support/constants";

/** The headers a list's pages are followed by, as clients read them. */
function listHeaders(response: APIResponse) {
  const headers = response.headers();
  return {
    page: headers["x-page"],
    perPage: headers["x-per-page"],
    next: headers["x-next-page"],
    prev: headers["x-prev-page"],
    total: headers["x-total"],
    totalPages: headers["x-total-pages"],
    link: headers["link"],
  };
}

/** GitLab's cursor for a keyset page of users after `values` (URL-safe Base64 of JSON, direction `n`). */
const cursorAfter = (values: Record<string, string>) => Buffer.from(JSON.stringify({ ...values, _kd: "n" })).toString("base64url");

test.describe("keyset pages", () => {
  test("GET /projects and /users/:id/projects page by id with GitLab's next link and no totals; other orders are refused", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const ids: number[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await createProject(request, owner.token, { name: uniqueName("Keyset") })).id);
    const get = (path: string) => request.get(path, { headers: asToken(owner.token) });

    const first = await get("/api/v4/projects?owned=true&pagination=keyset&order_by=id&sort=asc&per_page=2");
    expect(first.status()).toBe(200);
    expect(((await first.json()) as { id: number }[]).map((project) => project.id)).toEqual(ids.slice(0, 2));
    const next = `${baseURL}/api/v4/projects?id_after=${ids[1]}&order_by=id&owned=true&pagination=keyset&per_page=2&sort=asc`;
    expect(listHeaders(first)).toEqual({ perPage: "2", link: `<${next}>; rel="next"`, page: undefined, next: undefined, prev: undefined, total: undefined, totalPages: undefined });
    const last = await get(next.slice(baseURL!.length));
    expect(((await last.json()) as { id: number }[]).map((project) => project.id)).toEqual(ids.slice(2));
    expect(listHeaders(last)).toMatchObject({ perPage: "2", link: undefined, total: undefined });

    // Descending, the position is the last id seen from above; the default sort is descending.
    const down = await get(`/api/v4/users/${owner.id}/projects?pagination=keyset&order_by=id&per_page=2`);
    expect(((await down.json()) as { id: number }[]).map((project) => project.id)).toEqual([ids[2], ids[1]]);
    expect(down.headers()["link"]).toBe(`<${baseURL}/api/v4/users/${owner.id}/projects?id_before=${ids[1]}&order_by=id&pagination=keyset&per_page=2>; rel="next"`);
    const rest = await get(`/api/v4/users/${owner.id}/projects?id_before=${ids[1]}&order_by=id&pagination=keyset&per_page=2`);
    expect(((await rest.json()) as { id: number }[]).map((project) => project.id)).toEqual([ids[0]]);
    expect(rest.headers()["link"]).toBeUndefined();

    // GitLab pages projects by keyset in the order of their ids only; its default order is by creation.
    for (const query of ["pagination=keyset", "pagination=keyset&order_by=name", "pagination=keyset&order_by=created_at&sort=asc"]) {
      const refused = await get(`/api/v4/projects?${query}`);
      expect(refused.status(), query).toBe(405);
      expect(await refused.json()).toEqual({ error: "Keyset pagination is not yet available for this type of request" });
    }
  });

  test("GET /users pages by GitLab's cursor in any order an admin chooses, following the next link to the end", async ({ request, baseURL }) => {
    const marker = uniqueName("cursor").toLowerCase();
    const created: { id: number; username: string }[] = [];
    for (const name of ["Mike", "Alpha", "Zulu", "Kilo", "Alpha"]) {
      const username = `${marker}_${created.length}`;
      const response = await request.post("/api/v4/users", {
        headers: asToken(rootToken),
        data: { username, email: `${username}@example.com`, name: `${name} ${marker}`, password: "a long enough password", skip_confirmation: true },
      });
      expect(response.status()).toBe(201);
      created.push({ id: ((await response.json()) as { id: number }).id, username });
    }
    const admin = asToken(rootToken);
    const first = await request.get(`/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc&search=${marker}`, { headers: admin });
    expect(first.status()).toBe(200);
    expect(((await first.json()) as { id: number }[]).map((user) => user.id)).toEqual([created[0]!.id, created[1]!.id]);
    const cursor = cursorAfter({ id: String(created[1]!.id) });
    expect(listHeaders(first)).toMatchObject({
      perPage: "2",
      total: undefined,
      page: undefined,
      link: `<${baseURL}/api/v4/users?cursor=${cursor}&order_by=id&pagination=keyset&per_page=2&search=${marker}&sort=asc>; rel="next"`,
    });

    // By name, descending: every user once, in the offset list's order, by following the links.
    const offsetOrder = await request.get(`/api/v4/users?order_by=name&sort=desc&search=${marker}`, { headers: admin });
    const expected = ((await offsetOrder.json()) as { id: number }[]).map((user) => user.id);
    const walked: number[] = [];
    let url: string | undefined = `/api/v4/users?pagination=keyset&per_page=2&order_by=name&sort=desc&search=${marker}`;
    while (url) {
      const page: APIResponse = await request.get(url, { headers: admin });
      expect(page.status()).toBe(200);
      walked.push(...((await page.json()) as { id: number }[]).map((user) => user.id));
      const link: string | undefined = page.headers()["link"];
      url = link ? link.slice(1 + baseURL!.length, link.indexOf(">")) : undefined;
    }
    expect(walked).toEqual(expected);
    expect(walked).toHaveLength(5);

    const invalid = await request.get(`/api/v4/users?pagination=keyset&cursor=not-a-cursor`, { headers: admin });
    expect(invalid.status()).toBe(400);
    expect(await invalid.json()).toEqual({ error: "cursor is invalid" });
  });
});

test.describe("offset limits", () => {
  test("offset pages of projects and users past 50,000 rows are refused in GitLab's words; keyset pages never are", async ({ request }) => {
    const user = await createUser(request);
    const headers = asToken(user.token);
    for (const path of ["/api/v4/projects", `/api/v4/users/${user.id}/projects`]) {
      expect((await request.get(`${path}?page=2500&per_page=20`, { headers })).status()).toBe(200);
      for (const query of ["page=2501&per_page=20", "page=501&per_page=100", "page=50001&per_page=1"]) {
        const refused = await request.get(`${path}?${query}`, { headers });
        expect(refused.status(), `${path}?${query}`).toBe(405);
        expect(await refused.json()).toEqual({
          error:
            "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.",
        });
      }
      expect((await request.get(`${path}?page=2501&per_page=20&pagination=keyset&order_by=id`, { headers })).status()).toBe(200);
    }
    const users = await request.get("/api/v4/users?page=2501&per_page=20", { headers });
    expect(users.status()).toBe(405);
    expect(await users.json()).toEqual({
      error:
        "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type User. Remaining records can be retrieved using keyset pagination.",
    });
    expect((await request.get("/api/v4/users?page=2501&per_page=20&pagination=keyset", { headers })).status()).toBe(200);
  });

  test("searches past GitLab's bounds are refused before they reach the database", async ({ request }) => {
    const user = await createUser(request);
    const headers = asToken(user.token);
    const long = await request.get(`/api/v4/projects?search=${"x".repeat(4097)}`, { headers });
    expect(long.status()).toBe(400);
    expect(await long.json()).toEqual({ error: "search is too long (maximum is 4096 characters)" });
    const words = Array.from({ length: 65 }, (_, index) => `word${index}`).join("+");
    const many = await request.get(`/api/v4/issues?scope=all&search=${words}`, { headers });
    expect(many.status()).toBe(400);
    expect(await many.json()).toEqual({ error: "search has too many terms (maximum is 64 terms)" });
  });
});

/**
 * A list of more than 10,000 rows is not counted: GitLab leaves out X-Total, X-Total-Pages and the last link, and says
 * whether a next page follows. Ten thousand issues are written straight into the database, which only the PostgreSQL
 * server's tests can reach; the maintained open-issue count follows them all the same.
 */
test("a list of more than 10,000 rows has no X-Total, X-Total-Pages or last link, until a page tells its total", async ({ request, baseURL }, testInfo) => {
  const databaseUrl = e2eDatabaseUrl("e2e");
  test.skip(testInfo.project.name !== "postgres" || databaseUrl === null, "needs the PostgreSQL server's database");
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  const sql = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    await sql`insert into issues (project_id, iid, title, author_id, created_at, updated_at)
      select ${project.id}, n, 'Bulk issue ' || n, ${owner.id}, now() - (n || ' seconds')::interval, now()
      from generate_series(1, 10050) n`;
  } finally {
    await sql.end();
  }
  const path = `/api/v4/projects/${project.id}/issues`;
  const link = (page: number) => `<${baseURL}${path}?page=${page}&per_page=20>`;
  const first = await request.get(`${path}?per_page=20`);
  expect(first.status()).toBe(200);
  expect(await first.json()).toHaveLength(20);
  expect(listHeaders(first)).toEqual({
    page: "1",
    perPage: "20",
    next: "2",
    prev: "",
    total: undefined,
    totalPages: undefined,
    link: `${link(2)}; rel="next", ${link(1)}; rel="first"`,
  });
  // The last page tells the total without counting, and the links are whole again.
  const last = await request.get(`${path}?per_page=20&page=503`);
  expect(await last.json()).toHaveLength(10);
  expect(listHeaders(last)).toEqual({
    page: "503",
    perPage: "20",
    next: "",
    prev: "502",
    total: "10050",
    totalPages: "503",
    link: `${link(502)}; rel="prev", ${link(1)}; rel="first", ${link(503)}; rel="last"`,
  });
  // The open-only list totals from the project's maintained count, which the bulk insert kept exact.
  const opened = await request.get(`${path}?state=opened&per_page=20`);
  expect(listHeaders(opened)).toMatchObject({ total: "10050", totalPages: "503" });
  const entity = await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(owner.token) });
  expect(((await entity.json()) as { open_issues_count: number }).open_issues_count).toBe(10050);
});

import { expect, test, type APIResponse } from "@playwright/test";
import { addMember, asToken, createProject, createUser, rootToken, uniqueName } from "../support/api";

function pageHeaders(response: APIResponse) {
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

test.describe("offset pagination", () => {
  test("members: headers and absolute Link URLs on the first, middle and last page", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    for (let index = 0; index < 4; index += 1) {
      const member = await createUser(request);
      await addMember(request, owner.token, project.id, member.id, 30);
    }
    const path = `/api/v4/projects/${project.id}/members`;
    const link = (page: number) => `<${baseURL}${path}?page=${page}&per_page=2>`;

    const first = await request.get(`${path}?per_page=2`, { headers: asToken(owner.token) });
    expect(first.status()).toBe(200);
    expect(await first.json()).toHaveLength(2);
    expect(pageHeaders(first)).toEqual({
      page: "1",
      perPage: "2",
      next: "2",
      prev: "",
      total: "5",
      totalPages: "3",
      link: `${link(2)}; rel="next", ${link(1)}; rel="first", ${link(3)}; rel="last"`,
    });

    const middle = await request.get(`${path}?per_page=2&page=2`, { headers: asToken(owner.token) });
    expect(pageHeaders(middle)).toEqual({
      page: "2",
      perPage: "2",
      next: "3",
      prev: "1",
      total: "5",
      totalPages: "3",
      link: `${link(1)}; rel="prev", ${link(3)}; rel="next", ${link(1)}; rel="first", ${link(3)}; rel="last"`,
    });

    const last = await request.get(`${path}?page=3&per_page=2`, { headers: asToken(owner.token) });
    expect(await last.json()).toHaveLength(1);
    expect(pageHeaders(last)).toEqual({
      page: "3",
      perPage: "2",
      next: "",
      prev: "2",
      total: "5",
      totalPages: "3",
      link: `${link(2)}; rel="prev", ${link(1)}; rel="first", ${link(3)}; rel="last"`,
    });

    // Defaults: page 1, 20 per page, one page.
    const defaults = await request.get(path, { headers: asToken(owner.token) });
    expect(pageHeaders(defaults)).toEqual({
      page: "1",
      perPage: "20",
      next: "",
      prev: "",
      total: "5",
      totalPages: "1",
      link: `<${baseURL}${path}?page=1&per_page=20>; rel="first", <${baseURL}${path}?page=1&per_page=20>; rel="last"`,
    });
  });

  test("Link URLs carry every query parameter, keys sorted", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const marker = uniqueName("sorted");
    for (let index = 0; index < 3; index += 1) await createProject(request, owner.token, { name: `${marker} ${index}` });
    const response = await request.get(`/api/v4/projects?search=${marker}&per_page=2&owned=true&order_by=id&sort=asc`, {
      headers: asToken(owner.token),
    });
    expect(response.status()).toBe(200);
    const query = (page: number) => `order_by=id&owned=true&page=${page}&per_page=2&search=${marker}&sort=asc`;
    expect(response.headers()["link"]).toBe(
      `<${baseURL}/api/v4/projects?${query(2)}>; rel="next", <${baseURL}/api/v4/projects?${query(1)}>; rel="first", <${baseURL}/api/v4/projects?${query(2)}>; rel="last"`,
    );
    expect(response.headers()["x-total"]).toBe("3");
  });

  test("Link URLs never repeat a token given in the query string, offset or keyset", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const marker = uniqueName("tokens");
    for (let index = 0; index < 3; index += 1) await createProject(request, owner.token, { name: `${marker} ${index}` });
    const query = (page: number) => `order_by=id&owned=true&page=${page}&per_page=1&search=${marker}&sort=asc`;
    for (const credential of ["private_token", "access_token"]) {
      const response = await request.get(`/api/v4/projects?search=${marker}&per_page=1&owned=true&order_by=id&sort=asc&${credential}=${owner.token}`);
      expect(response.status(), credential).toBe(200);
      expect(response.headers()["x-total"], credential).toBe("3");
      expect(response.headers()["link"], credential).toBe(
        `<${baseURL}/api/v4/projects?${query(2)}>; rel="next", <${baseURL}/api/v4/projects?${query(1)}>; rel="first", <${baseURL}/api/v4/projects?${query(3)}>; rel="last"`,
      );
    }
    // A credential name written as a list is not used to sign in, and not repeated either.
    const listForm = await request.get(`/api/v4/users?username=${owner.username}&private_token[]=${owner.token}`);
    expect(listForm.status()).toBe(200);
    expect(listForm.headers()["link"]).not.toContain(owner.token);

    for (const credential of ["private_token", "access_token"]) {
      const events = await request.get(`/api/v4/events?pagination=keyset&per_page=1&action=created&${credential}=${owner.token}`);
      expect(events.status(), credential).toBe(200);
      expect(events.headers()["link"], credential).toMatch(
        new RegExp(`^<${baseURL}/api/v4/events\\?action=created&id_before=\\d+&pagination=keyset&per_page=1>; rel="next"$`),
      );
    }
  });

  test("per_page is capped at 100", async ({ request }) => {
    const owner = await createUser(request);
    const response = await request.get("/api/v4/projects?per_page=1000&owned=true", { headers: asToken(owner.token) });
    expect(response.status()).toBe(200);
    expect(response.headers()["x-per-page"]).toBe("100");
    expect(response.headers()["link"]).toContain("per_page=100");
  });

  test("walking projects two at a time visits each exactly once", async ({ request }) => {
    const owner = await createUser(request);
    const marker = uniqueName("walk");
    const created = new Set<number>();
    for (let index = 0; index < 5; index += 1) created.add((await createProject(request, owner.token, { name: `${marker} ${index}` })).id);
    const seen: number[] = [];
    let next = `/api/v4/projects?search=${marker}&per_page=2`;
    for (let pages = 0; pages < 10 && next; pages += 1) {
      const response = await request.get(next, { headers: asToken(owner.token) });
      expect(response.status()).toBe(200);
      seen.push(...((await response.json()) as { id: number }[]).map((project) => project.id));
      const nextLink = /<([^>]+)>; rel="next"/.exec(response.headers()["link"] ?? "")?.[1];
      next = nextLink ?? "";
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(created);
  });

  test("walking users and tokens with X-Next-Page visits each exactly once", async ({ request }) => {
    const marker = uniqueName("walkers");
    const created = new Set<number>();
    for (let index = 0; index < 5; index += 1) {
      const username = `${marker}_${index}`;
      const response = await request.post("/api/v4/users", {
        headers: asToken(rootToken),
        data: { username, email: `${username}@example.com`, name: username, password: "a long enough password" },
      });
      created.add(((await response.json()) as { id: number }).id);
    }
    const seen: number[] = [];
    let page = "1";
    while (page) {
      const response = await request.get(`/api/v4/users?search=${marker}&per_page=2&page=${page}`, { headers: asToken(rootToken) });
      expect(response.headers()["x-total"]).toBe("5");
      seen.push(...((await response.json()) as { id: number }[]).map((user) => user.id));
      page = response.headers()["x-next-page"] ?? "";
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(created);

    const user = await createUser(request);
    for (let index = 0; index < 2; index += 1) {
      await request.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
        headers: asToken(rootToken),
        data: { name: `extra ${index}`, scopes: ["read_user"] },
      });
    }
    const tokens = await request.get("/api/v4/personal_access_tokens?per_page=2&page=2", { headers: asToken(user.token) });
    expect(tokens.headers()).toMatchObject({ "x-page": "2", "x-total": "3", "x-total-pages": "2", "x-prev-page": "1", "x-next-page": "" });
    expect(await tokens.json()).toHaveLength(1);
  });

  test("every list endpoint sends the full header set", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    for (const path of [
      "/api/v4/projects",
      `/api/v4/users?username=${owner.username}`,
      `/api/v4/projects/${project.id}/members`,
      "/api/v4/personal_access_tokens",
    ]) {
      const response = await request.get(path, { headers: asToken(owner.token) });
      expect(response.status(), path).toBe(200);
      for (const header of ["x-page", "x-per-page", "x-next-page", "x-prev-page", "x-total", "x-total-pages", "link"]) {
        expect(response.headers(), `${path} ${header}`).toHaveProperty(header);
      }
    }
  });
});

import { expect, test } from "@playwright/test";
import { asToken, createUser, expectJson, rootToken } from "../support/api";

test.describe("POST /users/:id/block and /unblock", () => {
  test("answer GitLab's 201 bodies: true when the state changed, null or false when there was nothing to do", async ({ request }) => {
    const user = await createUser(request);
    const block = () => request.post(`/api/v4/users/${user.id}/block`, { headers: asToken(rootToken) });
    const unblock = () => request.post(`/api/v4/users/${user.id}/unblock`, { headers: asToken(rootToken) });

    await expectJson(await block(), 201, true);
    expect((await (await request.get(`/api/v4/users/${user.id}`, { headers: asToken(rootToken) })).json()).state).toBe("blocked");
    await expectJson(await request.get("/api/v4/user", { headers: asToken(user.token) }), 403, { message: "403 Forbidden - Your account has been blocked." });
    await expectJson(await block(), 201, null);

    await expectJson(await unblock(), 201, true);
    expect((await request.get("/api/v4/user", { headers: asToken(user.token) })).status()).toBe(200);
    await expectJson(await unblock(), 201, false);
  });

  test("are for admins; an admin cannot block themself but can block another admin", async ({ request }) => {
    const user = await createUser(request);
    const admin = await createUser(request, { admin: true });
    const forbidden = { message: "403 Forbidden" };
    await expectJson(await request.post(`/api/v4/users/${admin.id}/block`, { headers: asToken(user.token) }), 403, forbidden);
    await expectJson(await request.post(`/api/v4/users/${user.id}/unblock`, { headers: asToken(user.token) }), 403, forbidden);
    await expectJson(await request.post(`/api/v4/users/${user.id}/block`), 401, { message: "401 Unauthorized" });

    await expectJson(await request.post(`/api/v4/users/${admin.id}/block`, { headers: asToken(admin.token) }), 403, {
      message: "403 Forbidden - The API initiating user cannot be blocked by the API",
    });
    expect((await request.get("/api/v4/user", { headers: asToken(admin.token) })).status()).toBe(200);
    await expectJson(await request.post(`/api/v4/users/${admin.id}/block`, { headers: asToken(rootToken) }), 201, true);
    await expectJson(await request.post(`/api/v4/users/${admin.id}/unblock`, { headers: asToken(rootToken) }), 201, true);
  });

  test("a missing user is 404, a malformed id 400", async ({ request }) => {
    for (const action of ["block", "unblock"]) {
      await expectJson(await request.post(`/api/v4/users/2147483647/${action}`, { headers: asToken(rootToken) }), 404, { message: "404 User Not Found" });
      await expectJson(await request.post(`/api/v4/users/abc/${action}`, { headers: asToken(rootToken) }), 400, { error: "id is invalid" });
      await expectJson(await request.get(`/api/v4/users/1/${action}`, { headers: asToken(rootToken) }), 404, { error: "404 Not Found" });
    }
  });
});

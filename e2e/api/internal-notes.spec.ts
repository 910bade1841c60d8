import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createUser, expectJson, uniqueName } from "../support/api";

interface ListedEvent {
  action_name: string;
  target_title: string | null;
  note?: { body: string; internal: boolean };
}

/** A list of events as one viewer gets it: what it shows, its X-Total, its ETag, and whether the secret is anywhere in it. */
async function eventsAs(request: APIRequestContext, path: string, token: string | null, secret: string) {
  const response = await request.get(path, { headers: token ? asToken(token) : {} });
  const text = await response.text();
  expect(response.status(), text).toBe(200);
  const events = JSON.parse(text) as ListedEvent[];
  return {
    shown: events.map((event) => `${event.action_name}:${event.note?.body ?? event.target_title ?? ""}`),
    total: response.headers()["x-total"],
    etag: response.headers()["etag"]!,
    leaks: text.includes(secret),
  };
}

test.describe("internal notes", () => {
  test("only Reporters and above, and admins, see an internal note's event, in every list and its X-Total and ETag", async ({ request }) => {
    const [owner, reporter, guest, stranger] = await Promise.all([createUser(request), createUser(request), createUser(request), createUser(request)]);
    const admin = await createUser(request, { admin: true });
    const project = await createProject(request, owner.token, { visibility: "public" });
    await addMember(request, owner.token, project.id, reporter.id, 20);
    await addMember(request, owner.token, project.id, guest.id, 10);
    const issueResponse = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Public issue" } });
    expect(issueResponse.status()).toBe(201);
    const issue = (await issueResponse.json()) as { iid: number };
    const notes = `/api/v4/projects/${project.id}/issues/${issue.iid}/notes`;
    expect((await request.post(notes, { headers: asToken(owner.token), data: { body: "For everyone" } })).status()).toBe(201);

    const secret = uniqueName("internal-only");
    const projectEvents = `/api/v4/projects/${project.id}/events?sort=asc`;
    const before = await eventsAs(request, projectEvents, null, secret);

    const posted = await request.post(notes, { headers: asToken(reporter.token), data: { body: secret, internal: true } });
    expect(posted.status(), await posted.text()).toBe(201);
    expect(await posted.json()).toMatchObject({ body: secret, internal: true, confidential: true });
    // Guests cannot comment at all, internal or not.
    await expectJson(await request.post(notes, { headers: asToken(guest.token), data: { body: "guest", internal: true } }), 403, { message: "403 Forbidden" });

    const everyone = ["created:", "joined:", "joined:", "opened:Public issue", "commented on:For everyone"];
    for (const [who, token] of [
      ["anonymous", null],
      ["signed-in non-member", stranger.token],
      ["Guest", guest.token],
    ] as const) {
      const seen = await eventsAs(request, projectEvents, token, secret);
      expect(seen.shown, who).toEqual(everyone);
      expect(seen.total, who).toBe("5");
      expect(seen.leaks, who).toBe(false);
      // Keyset pages come from the same statement.
      expect((await eventsAs(request, `${projectEvents}&pagination=keyset`, token, secret)).leaks, who).toBe(false);
      // The note author's activity, as this viewer sees it: only their joining.
      const authored = await eventsAs(request, `/api/v4/users/${reporter.id}/events`, token, secret);
      expect(authored.shown, who).toEqual(["joined:"]);
      expect(authored.total, who).toBe("1");
      expect(authored.leaks, who).toBe(false);
    }
    // Nothing changed for an anonymous poller: the same ETag, so 304.
    const anonymousAfter = await eventsAs(request, projectEvents, null, secret);
    expect(anonymousAfter.etag).toBe(before.etag);
    expect((await request.get(projectEvents, { headers: { "If-None-Match": before.etag } })).status()).toBe(304);
    // A Guest's `scope=all` leaves it out too.
    const guestAll = await eventsAs(request, "/api/v4/events?scope=all&sort=asc", guest.token, secret);
    expect(guestAll.leaks).toBe(false);
    expect(guestAll.total).toBe("5");

    for (const [who, token] of [
      ["Reporter", reporter.token],
      ["Owner", owner.token],
      ["admin", admin.token],
    ] as const) {
      const seen = await eventsAs(request, projectEvents, token, secret);
      expect(seen.shown, who).toEqual([...everyone, `commented on:${secret}`]);
      expect(seen.total, who).toBe("6");
      const authored = await eventsAs(request, `/api/v4/users/${reporter.id}/events?sort=asc`, token, secret);
      expect(authored.shown, who).toEqual(["joined:", `commented on:${secret}`]);
      expect(authored.total, who).toBe("2");
    }
    const reporterOwn = await request.get("/api/v4/events", { headers: asToken(reporter.token) });
    const [latest] = (await reporterOwn.json()) as ListedEvent[];
    expect(latest).toMatchObject({ action_name: "commented on", target_title: "Public issue", note: { body: secret, internal: true } });
  });
});

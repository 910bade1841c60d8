import postgres from "postgres";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMember, asToken, createProject, createUser, expectJson, type CreatedUser } from "../support/api";
import { insertCountedEvents } from "../../lib/testing/counted-events.mjs";
import { e2eDatabaseUrl } from "../support/constants";

/**
 * A public project with a long history, as every kind of reader sees it. Before event lists read through the audience
 * indexes, a page of such a project cost an anonymous visitor seconds and a signed-in non-member tens of seconds (its
 * total was counted event by event, with a visibility test per event), while the owner's cost milliseconds. The history
 * is written straight into the PostgreSQL server's database: the API would take minutes to make it.
 */
const historyLength = 100_000;

test.describe("event lists of a busy public project, for every reader", () => {
  test.describe.configure({ mode: "serial" });
  let owner: CreatedUser;
  let guest: CreatedUser;
  let outsider: CreatedUser;
  let projectId: number;
  /**
   * How many events each kind of reader may see: all of them (the owner), or those for everyone and the pushes (anyone
   * else: the guest wrote no confidential issue).
   */
  let expected: { all: number; outside: number; ownersAll: number; ownersOutside: number };

  test.beforeAll(async ({ request }, testInfo) => {
    const databaseUrl = e2eDatabaseUrl("e2e");
    test.skip(testInfo.project.name !== "postgres" || databaseUrl === null, "needs the PostgreSQL server's database");
    // Writing the history fires the trigger that sets each event's audience; the counts are added in bulk.
    test.setTimeout(240_000);
    owner = await createUser(request);
    guest = await createUser(request);
    outsider = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    projectId = project.id;
    await addMember(request, owner.token, projectId, guest.id, 10);
    const open = await request.post(`/api/v4/projects/${projectId}/issues`, { headers: asToken(owner.token), data: { title: "Open" } });
    const secret = await request.post(`/api/v4/projects/${projectId}/issues`, { headers: asToken(owner.token), data: { title: "Secret", confidential: true } });
    expect(open.status()).toBe(201);
    expect(secret.status()).toBe(201);
    const [openId, secretId] = [((await open.json()) as { id: number }).id, ((await secret.json()) as { id: number }).id];

    const sql = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      // Newest last, so the newest events are the hidden kinds: comments in internal notes and on the confidential issue.
      await sql.begin((tx) =>
        insertCountedEvents(
          (text, params) => tx.unsafe(text, params as postgres.ParameterOrJSON<never>[]),
          `insert into events (project_id, author_id, action, target_type, issue_id, internal, data, created_at)
            select $1, $2,
              (array['commented', 'commented', 'closed', 'pushed', 'created'])[1 + n % 5],
              case n % 5 when 3 then null when 0 then 'Note' when 1 then 'Note' else 'Issue' end,
              case n % 5 when 3 then null when 0 then $3::integer else $4::integer end,
              n % 5 = 1,
              -- The push payload the git receiver records (lib/git/ref-updates.ts), whole: the answers are held to the schema.
              case n % 5 when 3 then '{"push_data":{"commit_count":1,"action":"pushed","ref_type":"branch","commit_from":null,"commit_to":null,"ref":"main","commit_title":"Change","ref_count":null}}'::jsonb end,
              now() - interval '1 day' + n * interval '1 millisecond'
            from generate_series(1, $5::integer) n`,
          [projectId, owner.id, secretId, openId, historyLength],
        ),
      );
      await sql`analyze events`;
      const [counts] = await sql<{ all: string; outside: string; owners_all: string; owners_outside: string }[]>`select count(*) as all,
          count(*) filter (where audience <= 1) as outside, count(*) filter (where author_id = ${owner.id}) as owners_all,
          count(*) filter (where author_id = ${owner.id} and audience <= 1) as owners_outside
        from events where project_id = ${projectId}`;
      expected = {
        all: Number(counts!.all),
        outside: Number(counts!.outside),
        ownersAll: Number(counts!.owners_all),
        ownersOutside: Number(counts!.owners_outside),
      };
    } finally {
      await sql.end();
    }
    // Besides the history: the project's creation, the guest's joining and the two issues' opening.
    expect(expected.all).toBe(historyLength + 4);
    expect(expected.outside).toBeLessThan(expected.all);
    expect(expected.ownersAll).toBe(expected.all - 1);
  });

  /** The fastest of a few requests: what the list costs, without the machine's other load. */
  async function fastest(request: APIRequestContext, path: string, headers: Record<string, string>) {
    let best = Infinity;
    let last: Awaited<ReturnType<APIRequestContext["get"]>> | undefined;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const started = performance.now();
      last = await request.get(path, { headers });
      best = Math.min(best, performance.now() - started);
      expect(last.status(), await last.text()).toBe(200);
    }
    return { response: last!, milliseconds: best };
  }

  for (const [reader, credentials] of [
    ["an anonymous visitor", () => ({})],
    ["a signed-in non-member", () => asToken(outsider.token)],
    ["a guest", () => asToken(guest.token)],
    ["the owner", () => asToken(owner.token)],
  ] as const) {
    test(`${reader}: the first page in milliseconds, with the exact total`, async ({ request }) => {
      const sees = reader === "the owner" ? expected.all : expected.outside;
      const { response, milliseconds } = await fastest(request, `/api/v4/projects/${projectId}/events?per_page=20`, credentials());
      expect(milliseconds).toBeLessThan(250);
      const headers = response.headers();
      expect(headers["x-total"]).toBe(String(sees));
      expect(headers["x-total-pages"]).toBe(String(Math.ceil(sees / 20)));
      expect(headers["x-next-page"]).toBe("2");
      const page = (await response.json()) as { action_name: string; note?: { internal: boolean } }[];
      expect(page).toHaveLength(20);
      if (reader !== "the owner") expect(page.every((event) => event.note?.internal !== true)).toBe(true);

      const closed = await fastest(request, `/api/v4/projects/${projectId}/events?action=closed&per_page=20`, credentials());
      expect(closed.milliseconds).toBeLessThan(250);
      expect(((await closed.response.json()) as { action_name: string }[]).every((event) => event.action_name === "closed")).toBe(true);

      const authored = await fastest(request, `/api/v4/users/${owner.id}/events?per_page=20`, credentials());
      expect(authored.milliseconds).toBeLessThan(250);
      // The owner wrote all but the guest's joining.
      expect(authored.response.headers()["x-total"]).toBe(String(reader === "the owner" ? expected.ownersAll : expected.ownersOutside));
    });
  }

  test("past 10,000 counted events there is no X-Total, X-Total-Pages or last link, and the next page is still known", async ({ request }) => {
    const response = await request.get(`/api/v4/projects/${projectId}/events?after=2001-01-01&per_page=20&page=3`);
    expect(response.status()).toBe(200);
    const headers = response.headers();
    expect(headers["x-total"]).toBeUndefined();
    expect(headers["x-total-pages"]).toBeUndefined();
    expect(headers["x-page"]).toBe("3");
    expect(headers["x-next-page"]).toBe("4");
    expect(headers["x-prev-page"]).toBe("2");
    expect(headers.link).not.toContain('rel="last"');
    expect(headers.link).toContain('rel="next"');
  });

  test("offset pages stop at 50,000 events, as GitLab's; the last leads on to keyset pages, which go on", async ({ request }) => {
    await expectJson(await request.get(`/api/v4/projects/${projectId}/events?page=2501&per_page=20`), 405, {
      error:
        "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Event. " +
        "Remaining records can be retrieved using keyset pagination.",
    });
    const last = await request.get(`/api/v4/projects/${projectId}/events?page=2500&per_page=20`);
    expect(last.status()).toBe(200);
    const lastEvents = (await last.json()) as { id: number }[];
    expect(lastEvents).toHaveLength(20);
    // Its next link leads on to the keyset page after it, so clients that follow links page to the end.
    const lastId = lastEvents.at(-1)!.id;
    expect(last.headers()["x-next-page"]).toBe("");
    const onward = /<([^>]+)>; rel="next"/.exec(last.headers().link ?? "")![1]!;
    expect(new URL(onward).search).toBe(`?id_before=${lastId}&pagination=keyset&per_page=20`);
    const continued = await request.get(new URL(onward).pathname + new URL(onward).search);
    expect(continued.status()).toBe(200);
    const continuedEvents = (await continued.json()) as { id: number }[];
    expect(continuedEvents).toHaveLength(20);
    expect(continuedEvents[0]!.id).toBeLessThan(lastId);
    const following = await request.get(`/api/v4/projects/${projectId}/events?page=2499&per_page=20`);
    expect(/<([^>]+)>; rel="next"/.exec(following.headers().link ?? "")![1]).toContain("page=2500&per_page=20");
    let path = `/api/v4/projects/${projectId}/events?pagination=keyset&per_page=100`;
    for (let page = 0; page < 3; page += 1) {
      const response = await request.get(path);
      expect(response.status()).toBe(200);
      expect((await response.json()) as unknown[]).toHaveLength(100);
      const next = /<([^>]+)>; rel="next"/.exec(response.headers().link ?? "");
      expect(next).not.toBeNull();
      path = new URL(next![1]!).pathname + new URL(next![1]!).search;
    }
  });
});

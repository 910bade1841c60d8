import postgres from "postgres";
import { expect, test } from "@playwright/test";
import { asToken, createProject, createUser } from "../support/api";
import { e2eDatabaseUrl } from "../support/constants";

/**
 * A keyset page positioned by another project's event (`id_before=<its id>`) must not betray when that event happened.
 * Over the API every event is written now, so ids and times agree and no position could differ; the attack needs
 * events whose times and ids disagree (imported history, clocks of several replicas), which only the database can
 * set up: this runs on the PostgreSQL server, whose database a test can reach.
 */
test("a keyset cursor naming a private project's event reveals nothing of when it happened", async ({ request }, testInfo) => {
  const databaseUrl = e2eDatabaseUrl("e2e");
  test.skip(testInfo.project.name !== "postgres" || databaseUrl === null, "needs the PostgreSQL server's database");
  const owner = await createUser(request);
  const publicProject = await createProject(request, owner.token, { visibility: "public" });
  const privateProject = await createProject(request, owner.token, { visibility: "private" });
  for (const title of ["first", "second"]) {
    const created = await request.post(`/api/v4/projects/${publicProject.id}/issues`, { headers: asToken(owner.token), data: { title } });
    expect(created.status()).toBe(201);
  }
  const hiddenIssue = await request.post(`/api/v4/projects/${privateProject.id}/issues`, { headers: asToken(owner.token), data: { title: "secret" } });
  expect(hiddenIssue.status()).toBe(201);

  const sql = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const visible = await sql<{ id: string }[]>`select id from events where project_id = ${publicProject.id} and target_type = 'Issue' order by id`;
    const [hidden] = await sql<{ id: string }[]>`select id from events where project_id = ${privateProject.id} and target_type = 'Issue'`;
    expect(visible).toHaveLength(2);
    await sql`update events set created_at = '2024-01-01T00:00:00Z' where id = ${visible[0]!.id}`;
    await sql`update events set created_at = '2024-01-03T00:00:00Z' where id = ${visible[1]!.id}`;

    // The attacker pages the public project from the hidden event; were its time the position, the page would show
    // which public events are older than it, and moving the time would move the page.
    const pageFrom = async (cursor: string) => {
      const response = await request.get(
        `/api/v4/projects/${publicProject.id}/events?target_type=issue&pagination=keyset&id_before=${cursor}&per_page=10`,
      );
      expect(response.status()).toBe(200);
      return ((await response.json()) as { id: number }[]).map((event) => event.id);
    };
    const answers: number[][] = [];
    for (const hiddenTime of ["2024-01-02T00:00:00Z", "2023-12-01T00:00:00Z", "2024-02-01T00:00:00Z"]) {
      await sql`update events set created_at = ${hiddenTime} where id = ${hidden!.id}`;
      answers.push(await pageFrom(hidden!.id));
    }
    // The same request once the hidden event is gone: what the page shows for a cursor that names nothing.
    await sql`delete from events where id = ${hidden!.id}`;
    const forDeletedCursor = await pageFrom(hidden!.id);
    expect(forDeletedCursor).toEqual([Number(visible[1]!.id), Number(visible[0]!.id)]);
    for (const answer of answers) expect(answer).toEqual(forDeletedCursor);
  } finally {
    await sql.end();
  }
});

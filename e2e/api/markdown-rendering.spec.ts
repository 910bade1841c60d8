import { expect, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { bearer, createIntegration, postAlert, receiverPath } from "../support/alerts";
import { asToken, createProject, createUser, expectJson } from "../support/api";

/**
 * Markdown that the renderer takes seconds (or, at a million characters, minutes) over, or that nests thousands of
 * levels deep: saving it answers within the render time limit (2 s), the server answers everything else meanwhile,
 * and the issue page serves the HTML stored at save time.
 */

// `marked`'s e-mail autolink rule is quadratic in a word's length: 60 KB took seconds, 900 KB minutes.
const slowText = (characters: number) => `${"a".repeat(characters - 1)}@`;

const tooLongNotice =
  '<p class="notice notice-warning markdown-notice" role="note">This text took too long to display as formatted text, so it is shown as it was written.</p>';

/** What the page shows for a text that ran out of time: the notice, then the text as written (nothing in it needs escaping). */
function shownAsWritten(className: string, text: string): string {
  return `<div class="markdown ${className}">${tooLongNotice}\n<pre class="markdown-source">${text}</pre></div>`;
}

/** Runs `work` while asking `/-/liveness` over and over; resolves with its result and how long each probe took. */
async function probeLivenessDuring<T>(request: APIRequestContext, work: () => Promise<T>): Promise<{ result: T; elapsedMs: number; probesMs: number[] }> {
  const started = Date.now();
  let finished = false;
  const running = work().finally(() => {
    finished = true;
  });
  const probesMs: number[] = [];
  while (!finished) {
    const probeStarted = Date.now();
    const probe = await request.get("/-/liveness");
    probesMs.push(Date.now() - probeStarted);
    expect(probe.status()).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const result = await running;
  return { result, elapsedMs: Date.now() - started, probesMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Liveness answered throughout the save: probes kept completing, at least one per half second (a render on the request
 * thread would hold one for the whole render), and took no longer than usual. Bounds for a loaded two-core machine.
 */
function expectPromptProbes(probesMs: number[], elapsedMs: number): void {
  expect(probesMs.length, probesMs.join(",")).toBeGreaterThanOrEqual(Math.floor(elapsedMs / 500));
  expect(median(probesMs), probesMs.join(",")).toBeLessThan(300);
}

async function issuePage(request: APIRequestContext, path: string, iid: number): Promise<{ response: APIResponse; elapsedMs: number; html: string }> {
  const started = Date.now();
  const response = await request.get(`/${path}/-/issues/${iid}`);
  const html = await response.text();
  return { response, elapsedMs: Date.now() - started, html };
}

/** The fastest of three loads of an issue page: its own cost, whatever else the machine is busy with. */
async function fastestLoad(request: APIRequestContext, path: string, iid: number): Promise<{ elapsedMs: number; html: string }> {
  let fastest: { elapsedMs: number; html: string } | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const page = await issuePage(request, path, iid);
    expect(page.response.status()).toBe(200);
    if (!fastest || page.elapsedMs < fastest.elapsedMs) fastest = page;
  }
  return fastest!;
}

/**
 * Saves a slow text while probing liveness, then opens its issue page: the save answers within the render time limit
 * (2 s, with room for a loaded machine) while liveness stays prompt, and the page shows the text as written under the
 * notice, served as stored: issue `slowIid`'s page loads about as fast as the plain issue `plainIid`'s, where rendering
 * on view took it seconds (60 KB) to minutes (900 KB) longer.
 */
async function expectSavedPromptlyAndShownAsWritten(
  request: APIRequestContext,
  save: () => Promise<APIResponse>,
  shown: { path: string; className: string; text: string; slowIid: number; plainIid: number; extraPageMs: number },
): Promise<APIResponse> {
  const { result: saved, elapsedMs, probesMs } = await probeLivenessDuring(request, save);
  expect(saved.status()).toBe(201);
  expect(elapsedMs).toBeLessThan(10_000);
  expectPromptProbes(probesMs, elapsedMs);
  const plain = await fastestLoad(request, shown.path, shown.plainIid);
  const page = await fastestLoad(request, shown.path, shown.slowIid);
  expect(page.html).toContain(shownAsWritten(shown.className, shown.text));
  expect(page.elapsedMs).toBeLessThan(plain.elapsedMs + shown.extraPageMs);
  return saved;
}

test.describe("Markdown that renders slowly or nests deeply", () => {
  test("a 60 KB description is saved within the time limit while the server answers, and its page shows it as written under a notice", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const description = slowText(60_000);
    const issues = `/api/v4/projects/${project.id}/issues`;
    expect((await request.post(issues, { headers: asToken(owner.token), data: { title: "Plain", description: "plain" } })).status()).toBe(201);
    const created = await expectSavedPromptlyAndShownAsWritten(
      request,
      () => request.post(issues, { headers: asToken(owner.token), data: { title: "Slow", description } }),
      { path: project.path_with_namespace, className: "issue-description", text: description, slowIid: 2, plainIid: 1, extraPageMs: 1500 },
    );
    expect(((await created.json()) as { description: string }).description).toBe(description);
  });

  test("a 900 KB comment is saved within the time limit while the server answers, and its page shows it as written under a notice", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const issues = `/api/v4/projects/${project.id}/issues`;
    for (const title of ["Commented", "Plain"]) expect((await request.post(issues, { headers: asToken(owner.token), data: { title } })).status()).toBe(201);
    expect((await request.post(`${issues}/2/notes`, { headers: asToken(owner.token), data: { body: "plain" } })).status()).toBe(201);
    const body = slowText(900_000);
    await expectSavedPromptlyAndShownAsWritten(
      request,
      () => request.post(`${issues}/1/notes`, { headers: asToken(owner.token), data: { body } }),
      { path: project.path_with_namespace, className: "comment-body", text: body, slowIid: 1, plainIid: 2, extraPageMs: 3000 },
    );
    // The note keeps what its author wrote.
    const notes = await request.get(`/api/v4/projects/${project.id}/issues/1/notes`, { headers: asToken(owner.token) });
    expect(((await notes.json()) as { body: string }[]).map((note) => note.body)).toEqual([body]);
  });

  test("2,000 nested quotes and 2,000 nested list items: the page answers 200 with 100 levels and the rest as text", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const quotes = `${"> ".repeat(2000)}x`;
    const items = `${"- ".repeat(2000)}x`;
    expect(
      (await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Nested", description: quotes } })).status(),
    ).toBe(201);
    expect((await request.post(`/api/v4/projects/${project.id}/issues/1/notes`, { headers: asToken(owner.token), data: { body: items } })).status()).toBe(201);

    const page = await issuePage(request, project.path_with_namespace, 1);
    expect(page.response.status()).toBe(200);
    expect(page.html).toContain(
      `<div class="markdown issue-description">${"<blockquote>\n".repeat(100)}<p>${"&gt; ".repeat(1900)}x</p>${"\n</blockquote>".repeat(100)}</div>`,
    );
    expect(page.html).toContain(`<div class="markdown comment-body">${"<ul>\n<li>".repeat(100)}<p>${"- ".repeat(1900)}x</p>${"\n</li>\n</ul>".repeat(100)}</div>`);
    expect(page.html).not.toContain("took too long");
  });

  test("an incident an alert opened is stored without HTML; its page renders the description when first shown", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const settings = await request.put(`/api/v4/projects/${project.id}/alert_management/settings`, { headers: asToken(owner.token), data: { create_incident: true } });
    expect(settings.status()).toBe(200);
    const integration = await createIntegration(request, owner.token, project.id);
    const alert = { title: "Disk full", severity: "high", description: "Disk *full* <script>alert(1)</script>" };
    expect((await postAlert(request, receiverPath(integration), alert, bearer(integration.token))).status()).toBe(200);

    for (const view of ["first", "stored"]) {
      const page = await issuePage(request, project.path_with_namespace, 1);
      expect(page.response.status(), view).toBe(200);
      expect(page.html, view).toMatch(/<div class="markdown issue-description"><p><strong>Start time:<\/strong> [^<]+<br \/><strong>Severity:<\/strong> high<br \/>/);
      expect(page.html, view).toContain("<strong>Description:</strong> Disk <em>full</em> <br />");
      expect(page.html, view).not.toContain("<script>alert(1)");
    }
  });

  test("descriptions hold up to 1,048,576 characters and notes 1,000,000; longer ones get GitLab's validation errors", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const issues = `/api/v4/projects/${project.id}/issues`;
    const headers = asToken(owner.token);

    const descriptionTooLong = { message: { description: ["is too long (maximum is 1048576 characters)"] } };
    await expectJson(await request.post(issues, { headers, data: { title: "Too long", description: "x".repeat(1_048_577) } }), 400, descriptionTooLong);
    const longest = await request.post(issues, { headers, data: { title: "Longest", description: "x".repeat(1_048_576) } });
    expect(longest.status()).toBe(201);
    expect(((await longest.json()) as { description: string }).description).toHaveLength(1_048_576);
    await expectJson(await request.put(`${issues}/1`, { headers, data: { description: "y".repeat(1_048_577) } }), 400, descriptionTooLong);

    const noteTooLong = { message: { body: ["is too long (maximum is 1000000 characters)"] } };
    await expectJson(await request.post(`${issues}/1/notes`, { headers, data: { body: "x".repeat(1_000_001) } }), 400, noteTooLong);
    const note = await request.post(`${issues}/1/notes`, { headers, data: { body: "x".repeat(1_000_000) } });
    expect(note.status()).toBe(201);
    const noteId = ((await note.json()) as { id: number }).id;
    await expectJson(await request.put(`${issues}/1/notes/${noteId}`, { headers, data: { body: "z".repeat(1_000_001) } }), 400, noteTooLong);
    const notes = await request.get(`${issues}/1/notes`, { headers });
    expect(((await notes.json()) as { body: string }[]).map((saved) => saved.body.length)).toEqual([1_000_000]);

    // These endpoints read bodies up to 4 MiB (room for the longest texts in any encoding); beyond, the body is refused.
    await expectJson(await request.post(issues, { headers, data: { title: "Huge", description: "x".repeat(4 * 1024 * 1024) } }), 400, {
      message: "400 Bad request - the request body is larger than 4194304 bytes",
    });
  });
});

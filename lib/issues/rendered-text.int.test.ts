import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { issues, notes } from "@/lib/db/schema";
import { RenderingBusyError, ValidationError } from "@/lib/errors";
import { env } from "@/lib/env";
import { markdownToHtml } from "@/lib/markdown/markdown-to-html.mjs";
import { markdownRendererVersion, markdownRenderPool, renderWaitingLine, shownAsWritten } from "@/lib/markdown/render";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createIssue, updateIssue } from "./issues";
import { createNote, listIssueNotes, updateNote } from "./notes";
import { maxDescriptionLength, maxNoteLength } from "./text-limits";

// 60 KB that `marked` takes seconds over: it runs into the render time limit.
const quadratic = `${"a".repeat(60_000)}@`;

describe.each(testDatabases())("Markdown stored with descriptions and notes on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function newProject() {
    const owner = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Rendered ${uniqueSuffix()}`, visibility: "public" });
    return { ctx: userContext(handle.db, owner), project: String(view.project.id) };
  }

  async function storedIssue(id: number) {
    const [row] = await handle.db.select({ html: issues.descriptionHtml, version: issues.cachedMarkdownVersion, updatedAt: issues.updatedAt }).from(issues).where(eq(issues.id, id));
    return row;
  }

  async function storedNote(id: number) {
    const [row] = await handle.db.select({ html: notes.noteHtml, version: notes.cachedMarkdownVersion, updatedAt: notes.updatedAt }).from(notes).where(eq(notes.id, id));
    return row;
  }

  it("writes a description's HTML when the issue is created, renders it again when the description changes, and only then", async () => {
    const { ctx, project } = await newProject();
    const { issue } = await createIssue(ctx, project, { title: "Rendered", description: "**first** <script>x</script>" });
    expect(await storedIssue(issue.id)).toMatchObject({ html: "<p><strong>first</strong> </p>", version: markdownRendererVersion });

    await updateIssue({ ...ctx, now: new Date(Date.now() + 1000) }, project, issue.iid, { description: "_second_" });
    expect(await storedIssue(issue.id)).toMatchObject({ html: "<p><em>second</em></p>", version: markdownRendererVersion });

    await handle.db.update(issues).set({ descriptionHtml: "<p>kept</p>" }).where(eq(issues.id, issue.id));
    await updateIssue({ ...ctx, now: new Date(Date.now() + 2000) }, project, issue.iid, { title: "Renamed", description: "_second_" });
    expect(await storedIssue(issue.id)).toMatchObject({ html: "<p>kept</p>" });

    await updateIssue({ ...ctx, now: new Date(Date.now() + 3000) }, project, issue.iid, { description: null });
    expect(await storedIssue(issue.id)).toMatchObject({ html: null, version: markdownRendererVersion });
    expect((await listIssueNotes(ctx, project, issue.iid)).descriptionHtml).toBeNull();
  });

  it("writes a note's HTML when it is posted and again when it is edited; the page shows what is stored", async () => {
    const { ctx, project } = await newProject();
    const { issue } = await createIssue(ctx, project, { title: "Commented" });
    const { note } = await createNote(ctx, project, issue.iid, { body: "- [x] done" });
    expect(await storedNote(note.id)).toMatchObject({ html: markdownToHtml("- [x] done"), version: markdownRendererVersion });

    await updateNote(ctx, project, issue.iid, note.id, { body: "~~gone~~" });
    expect(await storedNote(note.id)).toMatchObject({ html: "<p><del>gone</del></p>", version: markdownRendererVersion });

    await handle.db.update(notes).set({ noteHtml: "<p>as stored</p>" }).where(eq(notes.id, note.id));
    await updateIssue(ctx, project, issue.iid, { stateEvent: "close" });
    const page = await listIssueNotes(anonymousTestContext(handle.db), project, issue.iid);
    expect(page.notes.items.map(({ note: shown, html }) => [shown.system, html])).toEqual([
      [false, "<p>as stored</p>"],
      [true, null],
    ]);
  });

  it("renders text that has no current HTML when it is first shown, and stores it without touching updated_at", async () => {
    const { ctx, project } = await newProject();
    const { issue } = await createIssue(ctx, project, { title: "Old rows", description: "# Old" });
    const { note } = await createNote(ctx, project, issue.iid, { body: "*old*" });
    // As rows written before HTML was stored, and HTML of an older renderer.
    await handle.db.update(issues).set({ descriptionHtml: null, cachedMarkdownVersion: null, updatedAt: issue.updatedAt }).where(eq(issues.id, issue.id));
    await handle.db.update(notes).set({ noteHtml: "<p>stale</p>", cachedMarkdownVersion: markdownRendererVersion - 1, updatedAt: note.updatedAt }).where(eq(notes.id, note.id));

    const page = await listIssueNotes(anonymousTestContext(handle.db), project, issue.iid);
    expect(page.descriptionHtml).toBe("<h3>Old</h3>");
    expect(page.notes.items.map(({ html }) => html)).toEqual(["<p><em>old</em></p>"]);
    expect(await storedIssue(issue.id)).toEqual({ html: "<h3>Old</h3>", version: markdownRendererVersion, updatedAt: issue.updatedAt });
    expect(await storedNote(note.id)).toEqual({ html: "<p><em>old</em></p>", version: markdownRendererVersion, updatedAt: note.updatedAt });
  });

  it("stores text that runs past the time limit as written, escaped, under a notice", async () => {
    const { ctx, project } = await newProject();
    const { issue } = await createIssue(ctx, project, { title: "Slow", description: `<b>${quadratic}` });
    const expected = shownAsWritten(`<b>${quadratic}`, "timed-out");
    expect(expected.startsWith('<p class="notice notice-warning markdown-notice" role="note">This text took too long to display')).toBe(true);
    expect(expected).toContain(`<pre class="markdown-source">&lt;b&gt;aaa`);
    expect(await storedIssue(issue.id)).toMatchObject({ html: expected });
    expect((await listIssueNotes(ctx, project, issue.iid)).descriptionHtml).toBe(expected);
  });

  it("refuses a save with 429 while the render threads have too much waiting, and writes nothing", async () => {
    const { ctx, project } = await newProject();
    const { issue } = await createIssue(ctx, project, { title: "Busy" });
    const pool = markdownRenderPool();
    // Every thread held by a document that runs to the time limit, and the waiting line full. A thread still starting
    // after the last test's time-out would take a waiting document when it is ready and make room for the note.
    await pool.whenReady();
    const held = [
      ...Array.from({ length: env.MARKDOWN_RENDER_THREADS }, () => pool.render(quadratic)),
      ...Array.from({ length: renderWaitingLine.documents }, () => pool.render("waiting")),
    ];
    const refusal = await createNote(ctx, project, issue.iid, { body: "later" }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RenderingBusyError);
    expect(refusal).toMatchObject({ status: 429, retryAfterSeconds: 2 });
    expect((refusal as RenderingBusyError).headers()).toEqual({ "Retry-After": "2" });
    expect((refusal as RenderingBusyError).body()).toEqual({ message: "429 Too Many Requests - too much text is waiting to be rendered, retry later" });
    expect((await listIssueNotes(ctx, project, issue.iid)).notes.items).toEqual([]);
    await Promise.all(held);
  }, 60_000);

  it("keeps GitLab's lengths: 1,048,576 characters of description and 1,000,000 of note, counted as characters", async () => {
    const { ctx, project } = await newProject();
    await expect(createIssue(ctx, project, { title: "Long", description: "x".repeat(maxDescriptionLength + 1) })).rejects.toEqual(
      new ValidationError({ description: ["is too long (maximum is 1048576 characters)"] }),
    );
    const { issue } = await createIssue(ctx, project, { title: "Longest", description: "x".repeat(maxDescriptionLength) });
    await expect(updateIssue(ctx, project, issue.iid, { description: "y".repeat(maxDescriptionLength + 1) })).rejects.toEqual(
      new ValidationError({ description: ["is too long (maximum is 1048576 characters)"] }),
    );
    await expect(createNote(ctx, project, issue.iid, { body: "x".repeat(maxNoteLength + 1) })).rejects.toEqual(
      new ValidationError({ body: ["is too long (maximum is 1000000 characters)"] }),
    );
    await expect(createNote(ctx, project, issue.iid, { body: " \n " })).rejects.toEqual(new ValidationError({ body: ["can't be blank"] }));
    // An emoji is one character, though JavaScript counts two.
    const { note } = await createNote(ctx, project, issue.iid, { body: "😀".repeat(maxNoteLength) });
    expect(note.body).toHaveLength(2 * maxNoteLength);
    await expect(updateNote(ctx, project, issue.iid, note.id, { body: `${"😀".repeat(maxNoteLength)}!` })).rejects.toBeInstanceOf(ValidationError);
  }, 60_000);
});

import { describe, expect, it } from "vitest";
import { createContext, type Ctx } from "@/lib/context";
import type { Database } from "@/lib/db";
import type { UserRow } from "@/lib/db/schema";
import { createIssue, getIssue } from "@/lib/issues/issues";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { findTool, runTool, type ToolResult } from "./tools";

function tokenContext(db: Database, user: UserRow, ...scopes: string[]): Ctx {
  return createContext(db, { kind: "user", user, scopes: new Set(scopes) });
}

async function call(ctx: Ctx, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return runTool(ctx, findTool(name)!, args, "test-request");
}

describe.each(testDatabases())("MCP tools on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function team() {
    const [owner, guest, stranger] = await Promise.all([1, 2, 3].map(() => createTestUser(handle.db)));
    const view = await createProject(userContext(handle.db, owner!), { name: `Tools ${uniqueSuffix()}`, visibility: "private" });
    const project = String(view.project.id);
    await addMember(userContext(handle.db, owner!), project, { userId: guest!.id, accessLevel: 10 });
    const { issue } = await createIssue(userContext(handle.db, owner!), project, { title: "Flaky test" });
    return { owner: owner!, guest: guest!, stranger: stranger!, project, pathWithNamespace: view.project.path, iid: issue.iid };
  }

  it("create an issue through the issue verbs, answering the issue as the REST API shows it", async () => {
    const { owner, project } = await team();
    const ctx = tokenContext(handle.db, owner, "mcp");
    const result = await call(ctx, "create_issue", { id: Number(project), title: "From a tool", labels: "a,b", confidential: "true" });
    expect(result.isError).toBe(false);
    const created = JSON.parse(result.content[0]!.text) as { iid: number; title: string; labels: string[]; confidential: boolean };
    expect(created).toMatchObject({ title: "From a tool", labels: ["a", "b"], confidential: true });
    expect(result.structuredContent).toEqual(created);
    const stored = await getIssue(userContext(handle.db, owner), project, created.iid);
    expect(stored.issue).toMatchObject({ title: "From a tool", confidential: true, authorId: owner.id });
  });

  it("refuse what the verbs refuse the caller, in the REST API's words", async () => {
    const { guest, stranger, project, iid } = await team();
    expect(await call(tokenContext(handle.db, stranger, "mcp"), "get_issue", { id: project, issue_iid: iid })).toEqual({
      content: [{ type: "text", text: "404 Project Not Found" }],
      structuredContent: { error: { message: "404 Project Not Found" } },
      isError: true,
    });
    const guestAlerts = await call(tokenContext(handle.db, guest, "mcp"), "list_alerts", { id: project });
    expect(guestAlerts).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/^403 Forbidden/) }] });
    expect(await call(tokenContext(handle.db, guest, "read_api"), "create_issue_note", { id: project, issue_iid: iid, body: "hi" })).toEqual({
      content: [{ type: "text", text: "insufficient_scope: The request requires higher privileges than provided by the access token." }],
      structuredContent: {
        error: { error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token.", scope: "api" },
      },
      isError: true,
    });
  });

  it("take only the parameters they declare, and page lists as the REST API pages them", async () => {
    const { owner, project, iid } = await team();
    const ctx = tokenContext(handle.db, owner, "api");
    for (let index = 0; index < 3; index += 1) await call(ctx, "create_issue_note", { id: project, issue_iid: iid, body: `note ${index}`, internal: false });
    const firstPage = await call(ctx, "get_issue_notes", { id: project, issue_iid: iid, per_page: 2, sort: "asc", undeclared: "ignored" });
    expect(firstPage.isError).toBe(false);
    expect(firstPage.structuredContent).toMatchObject({ metadata: { count: 2, has_more: true } });
    const secondPage = await call(ctx, "get_issue_notes", { id: project, issue_iid: iid, per_page: 2, page: 2, sort: "asc" });
    expect(secondPage.structuredContent).toMatchObject({ items: [{ body: "note 2" }], metadata: { count: 1, has_more: false } });
    const huge = await call(ctx, "get_issue_notes", { id: project, issue_iid: iid, per_page: 5000 });
    expect(huge.structuredContent).toMatchObject({ metadata: { count: 3, has_more: false } });
  });
});

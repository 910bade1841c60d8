import { describe, expect, it } from "vitest";
import { createContext, type Ctx } from "@/lib/context";
import type { Database } from "@/lib/db";
import type { UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
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
    return { owner: owner!, guest: guest!, stranger: stranger!, project, pathWithNamespace: `${view.namespace.path}/${view.project.path}`, iid: issue.iid };
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
  it("name a work item by its URL or its project and iid, and page its comments oldest first by cursor, as GitLab's work item tools", async () => {
    const { owner, guest, project, pathWithNamespace, iid } = await team();
    const ctx = tokenContext(handle.db, owner, "mcp");
    const url = `${env.EXTERNAL_URL}/${pathWithNamespace}/-/issues/${iid}`;
    const bodies = ["first", "second", "third"];
    for (const body of bodies) {
      const created = await call(ctx, "create_workitem_note", { url, body });
      expect(created).toMatchObject({ isError: false, structuredContent: { note: { body, internal: false, system: false }, errors: [] } });
    }
    await call(ctx, "create_workitem_note", { project_id: project, work_item_iid: iid, body: "for members", internal: true });
    const page = async (caller: Ctx, args: Record<string, unknown>) => {
      const result = await call(caller, "get_workitem_notes", { project_id: project, work_item_iid: iid, ...args });
      expect(result.isError, JSON.stringify(result)).toBe(false);
      const { nodes, pageInfo } = result.structuredContent as { nodes: { body: string; id: string }[]; pageInfo: Record<string, unknown> };
      return { bodies: nodes.map((node) => node.body), pageInfo: pageInfo as { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string } };
    };
    const all = await page(ctx, {});
    expect(all.bodies).toEqual([...bodies, "for members"]);
    expect(all.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    const two = await page(ctx, { first: 2 });
    expect(two.bodies).toEqual(["first", "second"]);
    expect(two.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(JSON.parse(Buffer.from(two.pageInfo.endCursor, "base64").toString())).toEqual({ created_at: expect.any(String), id: expect.stringMatching(/^\d+$/) });
    expect(await page(ctx, { first: 2, after: two.pageInfo.endCursor })).toMatchObject({ bodies: ["third", "for members"], pageInfo: { hasNextPage: false, hasPreviousPage: true } });
    const last = await page(ctx, { last: 1 });
    expect(last).toMatchObject({ bodies: ["for members"], pageInfo: { hasNextPage: false, hasPreviousPage: true } });
    expect(await page(ctx, { last: 2, before: last.pageInfo.startCursor })).toMatchObject({ bodies: ["second", "third"], pageInfo: { hasNextPage: true, hasPreviousPage: true } });
    // A Guest does not see internal comments, here as in the REST API.
    expect((await page(tokenContext(handle.db, guest, "mcp"), {})).bodies).toEqual(bodies);

    const refusal = async (caller: Ctx, name: string, args: Record<string, unknown>) => (await call(caller, name, args)).content[0]!.text;
    expect(await refusal(ctx, "create_workitem_note", { url, body: "reply", discussion_id: "gid://gitlab/Discussion/abc" })).toBe("404 Discussion Not Found");
    expect(await refusal(ctx, "get_workitem_notes", { group_id: "acme", work_item_iid: 1 })).toBe("404 Group Not Found");
    expect(await refusal(ctx, "get_workitem_notes", { url: `${env.EXTERNAL_URL}/groups/acme/-/work_items/1` })).toBe("404 Group Not Found");
    expect(await refusal(ctx, "get_workitem_notes", { url: `https://elsewhere.example/${pathWithNamespace}/-/issues/${iid}` })).toBe(
      "url is not the URL of a work item on this server",
    );
    expect(await refusal(ctx, "get_workitem_notes", { url: "not a url" })).toBe("url is not a URL");
    expect(await refusal(ctx, "get_workitem_notes", { work_item_iid: iid })).toBe("project_id or url is missing");
    expect(await refusal(ctx, "get_workitem_notes", { project_id: project })).toBe("work_item_iid is missing");
    expect(await refusal(ctx, "get_workitem_notes", { project_id: project, work_item_iid: iid, after: "bm90IGEgY3Vyc29y" })).toBe("after is not a valid cursor");
    expect(await refusal(ctx, "get_workitem_notes", { project_id: project, work_item_iid: iid, first: 101 })).toBe("first is invalid");
    expect(await refusal(ctx, "get_workitem_notes", { project_id: project, work_item_iid: iid + 1000 })).toBe("404 Issue Not Found");
    expect(await refusal(tokenContext(handle.db, owner, "read_api"), "create_workitem_note", { url, body: "no" })).toBe(
      "insufficient_scope: The request requires higher privileges than provided by the access token.",
    );
  });
});

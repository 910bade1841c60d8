import "server-only";
import { z } from "zod";
import { booleanParam, positiveIntegerParam } from "@/lib/api/param-types";
import { parseParams } from "@/lib/api/request";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import type { Ctx } from "@/lib/context";
import { env } from "@/lib/env";
import { NotFoundError, ParameterError } from "@/lib/errors";
import { createNote, listNotesInWindow, type NotePosition, type NoteView } from "@/lib/issues/notes";
import { userAvatarUrl, userWebUrl } from "@/lib/users/serialize";
import { asToolPathSegment, toolInputSchema } from "./tool-schema";
import type { McpTool, ToolResult } from "./tools";

/**
 * GitLab's work item note tools, `get_workitem_notes` and `create_workitem_note`, under GitLab's names and with its
 * input schema: a work item is named by its URL or by its project and `work_item_iid`. GitLab answers them from
 * GraphQL; so do these, in its shapes (global IDs, camelCase, cursor pages), since clients written for GitLab read
 * them. This service's work items are its issues, and it has no groups, so a group's work item is never found.
 */

/** How a tool call names a work item: its URL, or its project (or group) and its iid. */
const workItemParams = {
  url: z.string().optional(),
  group_id: asToolPathSegment(z.string()).optional(),
  project_id: asToolPathSegment(z.string()).optional(),
  work_item_iid: positiveIntegerParam.optional(),
};

const workItemDescriptions = {
  url: "GitLab URL for the work item.",
  group_id: "ID or path of the group. Required if URL and project_id are not provided.",
  project_id: "ID or path of the project. Required if URL and group_id are not provided.",
  work_item_iid: "Internal ID of the work item. Required if URL is not provided.",
};

/** `<external URL>/<project path>/-/issues/<iid>` or `…/-/work_items/<iid>`, as the issue page and GitLab link them. */
const workItemUrlPath = /^\/(.+?)\/-\/(?:issues|work_items)\/(\d+)\/?$/;

/** The project (its id or path) and iid a call names, or the error GitLab's tool gives for what names nothing. */
function namedWorkItem(params: { url?: string; group_id?: unknown; project_id?: unknown; work_item_iid?: number }): { project: string; iid: number } {
  // No group exists here, so any group names nothing, whatever else the call names.
  if (params.group_id !== undefined) throw new NotFoundError("Group");
  if (params.url !== undefined) {
    const base = new URL(env.EXTERNAL_URL);
    let url: URL;
    try {
      url = new URL(params.url);
    } catch {
      throw new ParameterError("url", "is not a URL");
    }
    const basePath = base.pathname.replace(/\/$/, "");
    const path = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : null;
    const match = url.origin === base.origin && path !== null ? workItemUrlPath.exec(path) : null;
    if (!match) throw new ParameterError("url", "is not the URL of a work item on this server");
    if (match[1]!.startsWith("groups/")) throw new NotFoundError("Group");
    return { project: decodeURIComponent(match[1]!), iid: Number(match[2]) };
  }
  if (params.project_id === undefined) throw new ParameterError("project_id", "or url is missing");
  if (params.work_item_iid === undefined) throw new ParameterError("work_item_iid", "is missing");
  return { project: String(params.project_id), iid: params.work_item_iid };
}

/** A note as GitLab's GraphQL `Note` shows it, with the fields GitLab's tools ask for. */
function noteNode({ note, author }: NoteView) {
  return {
    id: `gid://gitlab/Note/${note.id}`,
    body: note.body,
    internal: note.internal,
    system: note.system,
    createdAt: note.createdAt.toISOString(),
    updatedAt: note.updatedAt.toISOString(),
    author: {
      id: `gid://gitlab/User/${author.id}`,
      username: author.username,
      name: author.name,
      avatarUrl: userAvatarUrl(author),
      webUrl: userWebUrl(author),
    },
  };
}

/** A cursor names a note by its place in the oldest-first order, as GitLab's keyset cursors do: base64 JSON. */
function cursorOf({ note }: NoteView): string {
  return Buffer.from(JSON.stringify({ created_at: note.createdAt.toISOString(), id: String(note.id) })).toString("base64");
}

const cursorContent = z.object({ created_at: z.iso.datetime({ offset: true }), id: z.string().regex(/^\d{1,10}$/) });

function positionOf(cursor: string | undefined, param: "after" | "before"): NotePosition | undefined {
  if (cursor === undefined) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64").toString("utf8"));
  } catch {
    decoded = null;
  }
  const parsed = cursorContent.safeParse(decoded);
  if (!parsed.success) throw new ParameterError(param, "is not a valid cursor");
  return { createdAt: new Date(parsed.data.created_at), id: Number(parsed.data.id) };
}

function jsonResult(structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured, isError: false };
}

const maxNotesPerWindow = 100;
const windowSize = positiveIntegerParam.pipe(z.number().max(maxNotesPerWindow));

const getNotesParams = { ...workItemParams, after: z.string().optional(), before: z.string().optional(), first: windowSize.optional(), last: windowSize.optional() };

export const getWorkItemNotes: McpTool = {
  name: "get_workitem_notes",
  title: "List a work item's comments",
  description: "Get all comments (notes) for a specific work item",
  annotations: { readOnlyHint: true, openWorldHint: false },
  scopes: readApiScopes,
  inputSchema: () =>
    toolInputSchema(getNotesParams, {
      ...workItemDescriptions,
      after: "Cursor for forward pagination. Use endCursor from previous response.",
      before: "Cursor for backward pagination. Use startCursor from previous response.",
      first: "Number of notes to return after the cursor (forward pagination, max 100)",
      last: "Number of notes to return before the cursor (backward pagination, max 100)",
    }),
  async call(ctx: Ctx, args) {
    const params = parseParams(getNotesParams, args);
    const { project, iid } = namedWorkItem(params);
    const after = positionOf(params.after, "after");
    const before = positionOf(params.before, "before");
    // Backward only when asked for the last notes alone; `first` (default 100) otherwise, as GitLab's connections.
    const fromEnd = params.last !== undefined && params.first === undefined;
    const size = (fromEnd ? params.last : params.first) ?? maxNotesPerWindow;
    const { items, hasMore } = await listNotesInWindow(ctx, project, iid, { after, before, size, fromEnd });
    const nodes = items.map(noteNode);
    const pageInfo = {
      hasNextPage: fromEnd ? before !== undefined : hasMore,
      hasPreviousPage: fromEnd ? hasMore : after !== undefined,
      startCursor: items.length > 0 ? cursorOf(items[0]!) : null,
      endCursor: items.length > 0 ? cursorOf(items.at(-1)!) : null,
    };
    return jsonResult({ nodes, pageInfo });
  },
};

const createNoteParams = { ...workItemParams, body: z.string(), internal: booleanParam.optional(), discussion_id: z.string().optional() };

export const createWorkItemNote: McpTool = {
  name: "create_workitem_note",
  title: "Comment on a work item",
  description: "Create a new note (comment) on a GitLab work item",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scopes: writeApiScopes,
  inputSchema: () =>
    toolInputSchema(createNoteParams, {
      ...workItemDescriptions,
      body: "Content of the note/comment (max 1,000,000 characters)",
      internal: "Mark note as internal (visible only to project members with Reporter role or higher)",
      discussion_id: "Global ID of the discussion to reply to (format: gid://gitlab/Discussion/<id>)",
    }),
  async call(ctx: Ctx, args) {
    const params = parseParams(createNoteParams, args);
    const { project, iid } = namedWorkItem(params);
    // Comments here are not threaded: there is no discussion a reply could join.
    if (params.discussion_id !== undefined) throw new NotFoundError("Discussion");
    const note = await createNote(ctx, project, iid, { body: params.body, internal: params.internal });
    return jsonResult({ note: noteNode(note), errors: [] });
  },
};

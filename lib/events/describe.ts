/**
 * How the activity feed puts an event into words, from the Events API's JSON. Pure, so client components use it.
 */

/** The fields of an Events API item the feed reads. */
export interface FeedEvent {
  id: number;
  project_id: number | null;
  action_name: string;
  target_id: number | null;
  target_iid: number | null;
  target_type: string | null;
  target_title: string | null;
  created_at: string;
  author: { id: number; username: string; name: string; web_url?: string };
  author_username: string;
  push_data?: {
    commit_count: number;
    action: "created" | "removed" | "pushed";
    ref_type: "branch" | "tag";
    commit_from: string | null;
    commit_to: string | null;
    /** Null for a bulk push, which names no ref. */
    ref: string | null;
    commit_title: string | null;
    /** How many refs a bulk push changed alike. */
    ref_count?: number | null;
  };
  note?: { id: number; body: string; noteable_iid?: number | null };
  /** A group's own event (created, a member joining or leaving): the group, which the sentence names instead of a project. */
  group?: { id: number; name: string; full_name: string; full_path: string; web_url: string };
}

/** One piece of a sentence: plain words, or a link to something in the project. */
export interface Phrase {
  text: string;
  href?: string | null;
  /** A branch or tag name, shown as code. */
  code?: boolean;
}

export interface EventSentence {
  /** The words after the author's name, up to the project (“opened issue #3 Title”). */
  phrases: Phrase[];
  /** Whether the sentence ends with “at <project>” (or names the project itself, as “joined project”). */
  projectWording: "at" | "project";
  /**
   * For a group's own event, the group the sentence ends with instead of a project (“joined group Acme / Platform”),
   * with the path of its page.
   */
  group: { fullName: string; href: string } | null;
  /** A second line: the pushed commit's title or the comment's text. */
  detail: string | null;
}

function issuePath(projectPath: string | null, iid: number | null): string | null {
  return projectPath && iid !== null ? `/${projectPath}/-/issues/${iid}` : null;
}

function target(text: string, href: string | null): Phrase {
  return { text, href };
}

/**
 * How much of a comment a feed shows, as GitLab's activity feeds do (150 characters): a feed lists twenty comments,
 * and each may hold a million characters.
 */
const noteExcerptLength = 150;

export function noteExcerpt(body: string): string {
  // Only the start is looked at (a character is at most two code units, and white space collapses), so an excerpt
  // costs the same whatever the comment's length.
  const start = body.slice(0, noteExcerptLength * 8);
  const characters = Array.from(start.replace(/\s+/g, " ").trim());
  if (characters.length <= noteExcerptLength && start.length === body.length) return characters.join("");
  return `${characters.slice(0, noteExcerptLength - 1).join("").trimEnd()}…`;
}

/** The feed's sentence for an event; `projectPath` (namespace/path) makes targets into links when known. */
export function describeEvent(event: FeedEvent, projectPath: string | null): EventSentence {
  if (event.group) {
    // “created group”, “joined group”, “left group”, “removed due to membership expiration from group”.
    return { phrases: [{ text: event.action_name }], projectWording: "project", group: { fullName: event.group.full_name, href: `/groups/${event.group.full_path}` }, detail: null };
  }
  return { ...describeProjectEvent(event, projectPath), group: null };
}

function describeProjectEvent(event: FeedEvent, projectPath: string | null): Omit<EventSentence, "group"> {
  const action = event.action_name;
  if (event.push_data) {
    const push = event.push_data;
    const refWord = push.ref_type === "tag" ? "tag" : "branch";
    const verbOnly = push.action === "created" ? "pushed new" : push.action === "removed" ? "deleted" : "pushed to";
    // A bulk push, as GitLab's feed words it: "pushed new 5 branches".
    if (push.ref === null) {
      const count = push.ref_count ?? 0;
      return { phrases: [{ text: `${verbOnly} ${count} ${refWord === "tag" ? "tags" : "branches"}` }], projectWording: "at", detail: null };
    }
    const verb = `${verbOnly} ${refWord}`;
    const commits = push.action === "removed" || push.commit_count === 0 ? null : `${push.commit_count} commit${push.commit_count === 1 ? "" : "s"}`;
    const title = push.commit_title ? `${push.commit_to?.slice(0, 8) ?? ""} · ${push.commit_title}` : null;
    return {
      phrases: [{ text: verb }, { text: push.ref, code: true }],
      projectWording: "at",
      detail: [title, commits].filter(Boolean).join(" · ") || null,
    };
  }
  switch (event.target_type) {
    case "Issue":
      return {
        phrases: [{ text: `${action} issue` }, target(`#${event.target_iid ?? event.target_id}`, issuePath(projectPath, event.target_iid)), { text: event.target_title ?? "" }],
        projectWording: "at",
        detail: null,
      };
    case "Note": {
      const iid = event.note?.noteable_iid ?? null;
      const href = issuePath(projectPath, iid);
      return {
        phrases: [{ text: `${action} issue` }, target(iid === null ? "" : `#${iid}`, href ? `${href}#note_${event.target_id}` : null), { text: event.target_title ?? "" }],
        projectWording: "at",
        detail: event.note?.body === undefined ? null : noteExcerpt(event.note.body),
      };
    }
    case "Milestone":
      return { phrases: [{ text: `${action} milestone` }, { text: `%${event.target_title ?? ""}` }], projectWording: "at", detail: null };
    case null:
      // Project creation and membership changes: “created project”, “joined project”, “left project”.
      return { phrases: [{ text: action }], projectWording: "project", detail: null };
    default:
      return {
        phrases: [{ text: `${action} ${event.target_type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}` }, { text: event.target_title ?? "" }],
        projectWording: "at",
        detail: null,
      };
  }
}

/** The `id_before`/`id_after` value in a keyset `Link: <…>; rel="next"` header, if there is a next page. */
export function nextCursorFromLink(link: string | null): string | null {
  const next = link?.match(/<([^>]+)>;\s*rel="next"/)?.[1];
  if (!next) return null;
  const params = new URL(next).searchParams;
  return params.get("id_before") ?? params.get("id_after");
}

/**
 * The feed's filter chips: the Events API's `action` and `target_type` values, with labels people read. Comments are
 * one chip, as on GitLab: every `commented` event targets a note, so a second "notes" chip would show the same events.
 */
export const actionChips = [
  { value: "", label: "All actions" },
  { value: "pushed", label: "Pushes" },
  { value: "created", label: "Created" },
  { value: "closed", label: "Closed" },
  { value: "reopened", label: "Reopened" },
  { value: "commented", label: "Comments" },
  { value: "joined", label: "Joined" },
  { value: "left", label: "Left" },
] as const;

export const targetTypeChips = [
  { value: "", label: "All targets" },
  { value: "issue", label: "Issues" },
  { value: "milestone", label: "Milestones" },
] as const;

/** The filters a feed shows, kept in the page's URL (`?action=…&target_type=…&scope=all`) so links share them. */
export interface FeedFilters {
  action: (typeof actionChips)[number]["value"];
  targetType: (typeof targetTypeChips)[number]["value"];
  scopeAll: boolean;
}

function chipValue<T extends string>(chips: readonly { value: T }[], value: string | null): T {
  return chips.find((chip) => chip.value !== "" && chip.value === value)?.value ?? chips[0]!.value;
}

/** The filters in a URL's query; values no chip offers are ignored, as if absent. */
export function feedFiltersFrom(query: URLSearchParams): FeedFilters {
  return {
    action: chipValue(actionChips, query.get("action")),
    targetType: chipValue(targetTypeChips, query.get("target_type")),
    scopeAll: query.get("scope") === "all",
  };
}

/** The filters as the Events API's (and the page URL's) parameters; the defaults are left out. */
export function feedFilterParams(filters: FeedFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.action) params.set("action", filters.action);
  if (filters.targetType) params.set("target_type", filters.targetType);
  if (filters.scopeAll) params.set("scope", "all");
  return params;
}

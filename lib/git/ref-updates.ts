/** What a push did to one ref, as git's hooks report it (`<old> <new> <ref>`). Pure. */
export interface RefUpdate {
  oldSha: string;
  newSha: string;
  ref: string;
}

export type PushAction = "created" | "removed" | "pushed";
export type RefType = "branch" | "tag";

/** GitLab's push payload (`push_data` of a push event). */
export interface PushData {
  commit_count: number;
  action: PushAction;
  ref_type: RefType;
  commit_from: string | null;
  commit_to: string | null;
  ref: string;
  commit_title: string | null;
  ref_count: number | null;
}

const zeroSha = /^0+$/;
const updateLine = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (refs\/\S+)$/;

export function isZeroSha(sha: string): boolean {
  return zeroSha.test(sha);
}

/** The lines a post-receive hook received; anything that is not an update line is ignored. */
export function parseRefUpdates(text: string): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const line of text.split("\n")) {
    const match = updateLine.exec(line.trim());
    if (match) updates.push({ oldSha: match[1]!, newSha: match[2]!, ref: match[3]! });
  }
  return updates;
}

/** Branches and tags make push events; other refs (notes, merge request heads, …) do not. */
export function describeRef(ref: string): { refType: RefType; name: string } | null {
  if (ref.startsWith("refs/heads/")) return { refType: "branch", name: ref.slice("refs/heads/".length) };
  if (ref.startsWith("refs/tags/")) return { refType: "tag", name: ref.slice("refs/tags/".length) };
  return null;
}

export function pushActionOf(update: RefUpdate): PushAction {
  if (isZeroSha(update.oldSha)) return "created";
  if (isZeroSha(update.newSha)) return "removed";
  return "pushed";
}

/** A commit title as GitLab shows it: the first line of the message. */
export function commitTitleOf(message: string): string | null {
  const first = message.split("\n").find((line) => line.trim() !== "");
  return first === undefined ? null : first.trim();
}

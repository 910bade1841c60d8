// The people the scale matrix looks through, created through the API as an operator would: an admin (root), the big
// project's owner, a reporter and a guest of it, a signed-in user who is a member of nothing there, an external user
// and nobody at all; and the big public project, its members and its alert integrations.
import { createHash } from "node:crypto";
import { apiCall, signInCookie } from "../harness.mjs";

export const viewerKinds = ["admin", "owner", "reporter", "guest", "non-member", "external", "anonymous"];

const viewerPassword = "bench-viewer-password-1";

/** Creates the viewers and the big project; `integrations` alert integrations in it. */
export async function createViewersAndProject(base, { rootToken }, { integrations }) {
  const asRoot = (method, pathname, body) => apiCall(base, rootToken, method, pathname, body);
  const root = await asRoot("GET", "/api/v4/user");
  const people = {};
  for (const kind of ["owner", "reporter", "guest", "non-member", "external", "prolific"]) {
    const username = `bench-${kind}`;
    const user = await asRoot("POST", "/api/v4/users", {
      username,
      email: `${username}@bench.example`,
      name: `Bench ${kind}`,
      password: viewerPassword,
      skip_confirmation: true,
      external: kind === "external",
    });
    const { token } = await asRoot("POST", `/api/v4/users/${user.id}/personal_access_tokens`, { name: "bench", scopes: ["api"] });
    people[kind] = { kind, id: user.id, username, token };
  }
  const project = await apiCall(base, people.owner.token, "POST", "/api/v4/projects", { name: "Storefront", path: "storefront", visibility: "public" });
  for (const [kind, level] of [["reporter", 20], ["guest", 10], ["prolific", 30]]) {
    await asRoot("POST", `/api/v4/projects/${project.id}/members`, { user_id: people[kind].id, access_level: level });
  }
  const created = [];
  for (let index = 0; index < integrations; index++) {
    created.push(
      await asRoot("POST", `/api/v4/projects/${project.id}/alert_management/integrations`, { name: `monitoring ${index + 1}`, type: "http", active: true }),
    );
  }
  const viewers = {
    admin: { kind: "admin", id: root.id, username: root.username, token: rootToken },
    owner: people.owner,
    reporter: people.reporter,
    guest: people.guest,
    "non-member": people["non-member"],
    external: people.external,
    anonymous: { kind: "anonymous" },
  };
  return { viewers, prolific: people.prolific, project, integrations: created, rootId: root.id, passwordHashOf: people.owner.username };
}

/**
 * Feed tokens for the signed-in viewers, as SQL (the service keeps their SHA-256 digests, as resetting one through the
 * profile page would): each viewer gets `glft-bench-<kind>`.
 */
export function feedTokenStatements(viewers) {
  return Object.values(viewers)
    .filter((viewer) => viewer.id !== undefined)
    .map((viewer) => {
      viewer.feedToken = `glft-bench-${viewer.kind}-feed-token`;
      const digest = createHash("sha256").update(viewer.feedToken).digest("hex");
      return `update users set feed_token_digest = '${digest}', feed_token_created_at = now() where id = ${viewer.id}`;
    });
}

/** Browser sessions for the signed-in viewers (the pages read cookies); root signs in with its own password. */
export async function signInViewers(base, viewers, { rootPassword }) {
  for (const viewer of Object.values(viewers)) {
    if (viewer.kind === "anonymous") continue;
    viewer.cookie = await signInCookie(base, viewer.username, viewer.kind === "admin" ? rootPassword : viewerPassword);
  }
}

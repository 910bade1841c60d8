import "server-only";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { entity } from "@/lib/api/entities";
import { actingUser, type Ctx } from "@/lib/context";
import { keyedListPage, type ListPage } from "@/lib/db";
import { fuzzySearch } from "@/lib/db/like";
import { accessLevels, namespaces, type NamespaceRow } from "@/lib/db/schema";
import { NotFoundError, UnauthorizedError } from "@/lib/errors";
import type { PageRequest } from "@/lib/api/pagination";
import { noSuchId, numericReference } from "@/lib/api/param-types";
import { amongIds, utcDay } from "@/lib/projects/access";
import { memberGroupIds } from "./access";

/**
 * The namespaces a user works in (GitLab's `User#namespaces`): their own, and the groups they belong to, or with
 * `ownedOnly` those they own; everything for admins.
 */
function namespacesOf(ctx: Ctx, ownedOnly: boolean): SQL | undefined {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  if (user.isAdmin) return undefined;
  const groups = memberGroupIds(user.id, utcDay(ctx.now), ownedOnly ? accessLevels.owner : undefined);
  // One set of ids read from the user's own namespace and memberships: an OR of the two would be tested on every
  // namespace the list walks, all of them when the user has few.
  return amongIds(namespaces.id, sql`select own_namespace.id from ${namespaces} own_namespace where own_namespace.owner_id = ${user.id} union all ${groups}`);
}

/** `GET /namespaces`, by id. */
export async function listNamespaces(ctx: Ctx, filters: { search?: string; ownedOnly?: boolean }, page: PageRequest): Promise<ListPage<NamespaceRow>> {
  const where = and(
    namespacesOf(ctx, filters.ownedOnly ?? false),
    filters.search?.trim() ? fuzzySearch([sql`${namespaces.name}`, sql`${namespaces.path}`], filters.search) : undefined,
  );
  return keyedListPage(ctx.db, page, {
    order: [{ value: namespaces.id, descending: false }],
    branches: (keys) => [ctx.db.select(keys).from(namespaces).where(where).$dynamic()],
    rows: (pageKeys, key) => ctx.db.select({ namespace: namespaces }).from(pageKeys).innerJoin(namespaces, sql`${namespaces.id} = ${key(0)}`).$dynamic(),
  }).then((list) => ({ ...list, items: list.items.map((row) => row.namespace) }));
}

/** `GET /namespaces/:id` (an id or a full path): one of the caller's namespaces, else 404. */
export async function getNamespace(ctx: Ctx, reference: string): Promise<NamespaceRow> {
  const id = numericReference(reference);
  if (id === noSuchId) throw new NotFoundError("Namespace");
  const named = id === null ? sql`lower(${namespaces.fullPath}) = lower(${reference})` : eq(namespaces.id, id);
  const [row] = await ctx.db.select().from(namespaces).where(and(named, namespacesOf(ctx, false)));
  if (!row) throw new NotFoundError("Namespace");
  return row;
}

/**
 * `GET /namespaces/:namespace/exists`: whether a top-level namespace (or, with `parentId`, a subgroup of it) has the
 * path, and if so a free one to suggest, as GitLab's `Namespace.clean_path` numbering does.
 */
export const namespaceExistenceEntity = entity(
  "NamespaceExistence",
  "Whether a path is taken, and a free one like it",
  z.strictObject({ exists: z.boolean(), suggests: z.array(z.string()) }),
);

export async function namespaceExists(ctx: Ctx, path: string, parentId?: number): Promise<z.infer<typeof namespaceExistenceEntity>> {
  if (!actingUser(ctx)) throw new UnauthorizedError();
  // Found through the full path's unique index: the parent's full path and a slash, then the candidate.
  const prefix = parentId === undefined ? sql`''` : sql`(select parent.full_path || '/' from ${namespaces} parent where parent.id = ${parentId})`;
  const taken = async (candidate: string) => {
    const [row] = await ctx.db
      .select({ id: namespaces.id })
      .from(namespaces)
      .where(sql`lower(${namespaces.fullPath}) = lower(${prefix} || ${candidate})`)
      .limit(1);
    return row !== undefined;
  };
  if (!(await taken(path))) return { exists: false, suggests: [] };
  for (let suffix = 1; suffix < 100; suffix += 1) {
    if (!(await taken(`${path}${suffix}`))) return { exists: true, suggests: [`${path}${suffix}`] };
  }
  return { exists: true, suggests: [] };
}

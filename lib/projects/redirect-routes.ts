import "server-only";
import { eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { namespaces, projects, redirectRoutes } from "@/lib/db/schema";

/**
 * GitLab's redirect routes: a renamed project or namespace keeps its old path, which leads to it (API, git, pages)
 * until something else takes the path. Every write here runs in the transaction of the change that causes it.
 */

/** A project takes `namespace/project`: an old path that led elsewhere leads nowhere from now on. */
export async function claimProjectPath(tx: Executor, fullPath: string): Promise<void> {
  await tx.delete(redirectRoutes).where(sql`lower(${redirectRoutes.path}) = lower(${fullPath})`);
}

/** A namespace takes `path`: the old paths of that name, and every old project path below it, go. */
export async function claimNamespacePath(tx: Executor, path: string): Promise<void> {
  await tx.delete(redirectRoutes).where(sql`lower(split_part(${redirectRoutes.path}, '/', 1)) = lower(${path})`);
}

/** Changing only the case of a path keeps every link working by itself: paths are found whatever their case. */
function samePath(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * Old paths (`select`: path, project id, namespace id) that lead from now on to what they name. A path is held by one
 * row: an old path left again by something else leads to the latest thing that had it.
 */
async function leaveRedirects(tx: Executor, select: SQL): Promise<void> {
  await tx.execute(sql`
    insert into ${redirectRoutes} (path, project_id, namespace_id) ${select}
    on conflict (lower(path)) do update set project_id = excluded.project_id, namespace_id = excluded.namespace_id`);
}

/**
 * A project moved from `oldFullPath` to `newFullPath` (its own path changed): the new path is the project's, and the
 * old one now leads to it.
 */
export async function redirectRenamedProject(tx: Executor, projectId: number, oldFullPath: string, newFullPath: string): Promise<void> {
  if (samePath(oldFullPath, newFullPath)) return;
  await claimProjectPath(tx, newFullPath);
  await leaveRedirects(tx, sql`values (${oldFullPath}, ${projectId}::integer, null::integer)`);
}

/**
 * A namespace moved from `oldPath` (its user was renamed): the old path leads to the namespace, and each of its
 * projects' old full paths to that project, one statement for all of them, as GitLab's routes rename their descendants.
 */
export async function redirectRenamedNamespace(tx: Executor, namespaceId: number, oldPath: string, newPath: string): Promise<void> {
  if (samePath(oldPath, newPath)) return;
  await claimNamespacePath(tx, newPath);
  await leaveRedirects(tx, sql`values (${oldPath}, null::integer, ${namespaceId}::integer)`);
  await leaveRedirects(
    tx,
    sql`select ${oldPath} || '/' || ${projects.path}, ${projects.id}, null::integer from ${projects} where ${projects.namespaceId} = ${namespaceId}`,
  );
}

/** Where a namespace named by a path it had before a rename is now (its path today), if a rename left that path to it. */
export async function movedNamespacePath(db: Executor, oldPath: string): Promise<string | null> {
  const [row] = await db
    .select({ path: namespaces.path })
    .from(redirectRoutes)
    .innerJoin(namespaces, eq(namespaces.id, redirectRoutes.namespaceId))
    .where(sql`lower(${redirectRoutes.path}) = lower(${oldPath})`);
  return row?.path ?? null;
}

/**
 * A group takes `fullPath`: the old paths of that name and every old path below it go. Found by the first segment's
 * index, then the prefix.
 */
export async function claimGroupPath(tx: Executor, fullPath: string): Promise<void> {
  if (!fullPath.includes("/")) return claimNamespacePath(tx, fullPath);
  const root = fullPath.slice(0, fullPath.indexOf("/"));
  await tx.delete(redirectRoutes).where(sql`lower(split_part(${redirectRoutes.path}, '/', 1)) = lower(${root})
    and (lower(${redirectRoutes.path}) = lower(${fullPath}) or starts_with(lower(${redirectRoutes.path}), lower(${fullPath}) || '/'))`);
}

/**
 * A group moved from `oldFullPath` to `newFullPath` (its path changed; the database has moved everything below it):
 * each group's and each project's old full path below it leads to it from now on, in two statements.
 */
export async function redirectMovedGroup(tx: Executor, rootTraversal: SQL, oldFullPath: string, newFullPath: string): Promise<void> {
  if (samePath(oldFullPath, newFullPath)) return;
  await claimGroupPath(tx, newFullPath);
  const oldPathOf = (fullPath: SQL) => sql`${oldFullPath} || substr(${fullPath}, ${newFullPath.length + 1})`;
  await leaveRedirects(tx, sql`select ${oldPathOf(sql`${namespaces.fullPath}`)}, null::integer, ${namespaces.id} from ${namespaces} where ${rootTraversal}`);
  await leaveRedirects(
    tx,
    sql`select ${oldPathOf(sql`${namespaces.fullPath} || '/' || ${projects.path}`)}, ${projects.id}, null::integer
      from ${projects} inner join ${namespaces} on ${namespaces.id} = ${projects.namespaceId} where ${rootTraversal}`,
  );
}

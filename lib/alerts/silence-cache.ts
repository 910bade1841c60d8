import "server-only";
import { and, asc, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Database } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { NotifiedCache } from "@/lib/db/notified-cache";
import { alertSilences, type AlertSilenceRow } from "@/lib/db/schema";

/**
 * Each project's silences in this process's memory, so a firing alert is matched against them without a statement
 * (`silenceHolding`, `lib/alerts/silences.ts`). Kept as the token checks are (`lib/db/notified-cache.ts`): a trigger
 * (`drizzle/0033_…`) notifies `alert_silences` with `project:<id>` when any silence of the project is written or
 * deleted, which drops the project's entry in every process; a lost notification connection empties the cache and
 * stops it until it listens again. Only the matchers and windows are kept, for a bounded number of projects.
 */

/**
 * A silence as ingestion matches it. `version` is the row's `xmin`, which every update changes: a hold decided from
 * this copy is written only while the row is still this version (`recordFiring`), so a copy made stale by a change
 * another process has not yet heard of never silences anything.
 */
export type CachedSilence = Pick<AlertSilenceRow, "id" | "matchers" | "startsAt" | "endsAt" | "recurrence"> & { version: string };

interface ProjectSilences {
  /** The silences that had not ended at `readAt`; null when the project has more than an entry keeps. */
  silences: CachedSilence[] | null;
  /** Milliseconds: the entry answers for this instant and later, when no silence it lacks can have started to count. */
  readAt: number;
}

export const alertSilencesChannel = "alert_silences";

/** Projects kept at once, least recently used out: each entry is a project's silences (a few kilobytes). */
export const silenceCacheCapacity = 1024;

/**
 * A project with more silences that have not ended than this is matched by the database every time: an entry's
 * size stays bounded, and matching that many in process would cost what the statement does.
 */
export const maxCachedSilencesPerProject = 500;

/**
 * The same for the size of a project's matchers, as JSON text: a matcher may hold a kilobyte and a silence sixteen of
 * them, so a count alone would let a few projects' silences hold gigabytes across the cache's entries. Past it, the
 * database matches; a usual project's silences take a few hundred bytes.
 */
export const maxCachedMatcherTextPerProject = 32 * 1024;

// Instrumentation and route bundles can hold separate copies of this module; the caches live on globalThis.
const globalForSilences = globalThis as unknown as { silenceCaches?: WeakMap<Database, NotifiedCache<ProjectSilences>> };
const caches = (globalForSilences.silenceCaches ??= new WeakMap());

const projectTag = (projectId: number) => `project:${projectId}`;

/**
 * Starts caching silences for `handle`'s database, listening for the notifications that invalidate them. Until it is
 * called (scripts, a process that never started the service) every firing alert asks the database.
 */
export async function startSilenceCache(handle: DatabaseHandle, capacity = silenceCacheCapacity): Promise<void> {
  if (caches.has(handle.db)) return;
  const cache = new NotifiedCache<ProjectSilences>(capacity);
  caches.set(handle.db, cache);
  await cache.follow(handle, alertSilencesChannel);
}

/**
 * Drops this process's copy of a project's silences. Call it once a change to them has committed and before
 * answering, so the next alert here sees the change; other processes hear of it from the trigger's notification.
 */
export function forgetProjectSilences(db: Database, projectId: number): void {
  caches.get(db)?.invalidate(projectTag(projectId));
}

/** How many projects this process keeps silences for (tests of the bound). */
export function cachedSilenceProjects(db: Database): number {
  return caches.get(db)?.size ?? 0;
}

function matcherTextLength(silences: readonly CachedSilence[]): number {
  let length = 0;
  for (const silence of silences) length += JSON.stringify(silence.matchers).length;
  return length;
}

/**
 * The project's silences that have not ended at `now`, from the cache or read once (one indexed statement, by
 * `(project_id, ends_at)`). Undefined when the cache cannot answer and the database must match: it was never started
 * or is not listening, the project has more silences (or longer matchers) than an entry keeps, or `now` is before the entry was read.
 */
export async function liveSilencesOf(db: Database, projectId: number, now: Date): Promise<CachedSilence[] | undefined> {
  const cache = caches.get(db);
  if (!cache?.listening) return undefined;
  const key = projectTag(projectId);
  const at = now.getTime();
  const cached = cache.get(key);
  if (cached && cached.readAt <= at) return cached.silences ?? undefined;
  // An invalidation while the rows are read outdates the ticket, and the fill keeps nothing.
  const ticket = cache.ticket();
  const rows = await db
    .select({
      id: alertSilences.id,
      matchers: alertSilences.matchers,
      startsAt: alertSilences.startsAt,
      endsAt: alertSilences.endsAt,
      recurrence: alertSilences.recurrence,
      version: sql<string>`${alertSilences}.xmin::text`,
    })
    .from(alertSilences)
    .where(and(eq(alertSilences.projectId, projectId), or(isNull(alertSilences.endsAt), gt(alertSilences.endsAt, now))))
    .orderBy(asc(alertSilences.id))
    .limit(maxCachedSilencesPerProject + 1);
  const silences = rows.length > maxCachedSilencesPerProject || matcherTextLength(rows) > maxCachedMatcherTextPerProject ? null : rows;
  cache.fill(key, { silences, readAt: at }, [key], ticket);
  return silences ?? undefined;
}

import type { DatabaseHandle } from "./drivers";

/**
 * A bounded, least-recently-used map kept in step with the database by notifications (token checks by digest, a
 * project's silences by project), where every entry carries tags (`user:7`, `grant:12`…) so a change to anything it
 * was built from drops it, whatever its key.
 *
 * A lookup that misses reads the database and then fills the cache; if an invalidation arrives while that read is in
 * flight, the row it read may be the one just changed, so the fill is dropped (`ticket` / `fill`). While the cache
 * cannot hear invalidations (`pause`), it answers nothing and keeps nothing.
 */
export class NotifiedCache<Value> {
  private readonly entries = new Map<string, { value: Value; tags: readonly string[] }>();
  private readonly keysByTag = new Map<string, Set<string>>();
  private generation = 0;
  private live = false;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether invalidations are heard: while not, nothing is answered or kept, and callers read the database. */
  get listening(): boolean {
    return this.live;
  }

  get(key: string): Value | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: moving a hit to the end keeps the least recently used entry first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Taken before reading what `fill` will store; a fill whose ticket an invalidation has outdated stores nothing. */
  ticket(): number {
    return this.generation;
  }

  fill(key: string, value: Value, tags: readonly string[], ticket: number): void {
    if (!this.live || ticket !== this.generation) return;
    this.remove(key);
    this.entries.set(key, { value, tags });
    for (const tag of tags) {
      let keys = this.keysByTag.get(tag);
      if (!keys) this.keysByTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.remove(oldest);
    }
  }

  /** Drops every entry carrying `tag`, and outdates every fill in flight. */
  invalidate(tag: string): void {
    this.generation++;
    const keys = this.keysByTag.get(tag);
    if (!keys) return;
    for (const key of [...keys]) this.remove(key);
  }

  /**
   * Keeps the cache in step with `channel` on `handle`'s database: each notification's payload is a tag to drop,
   * and the cache answers only while it listens. Resolves once listening.
   */
  follow(handle: Pick<DatabaseHandle, "listen">, channel: string): Promise<void> {
    return handle.listen(channel, {
      notify: (tag) => this.invalidate(tag),
      listening: () => this.resume(),
      interrupted: () => this.pause(),
    });
  }

  /** Invalidations may be missed from now on (the notification connection is down): forget everything, keep nothing. */
  pause(): void {
    this.live = false;
    this.clear();
  }

  /** Invalidations are heard again; whatever happened in between is unknown, so start empty. */
  resume(): void {
    this.clear();
    this.live = true;
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
    this.keysByTag.clear();
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.keysByTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByTag.delete(tag);
    }
  }
}

import { describe, expect, it } from "vitest";
import { NotifiedCache } from "./notified-cache";

function liveCache(capacity = 3): NotifiedCache<string> {
  const cache = new NotifiedCache<string>(capacity);
  cache.resume();
  return cache;
}

describe("NotifiedCache", () => {
  it("answers what was filled", () => {
    const cache = liveCache();
    cache.fill("a", "check a", ["user:1"], cache.ticket());
    expect(cache.get("a")).toBe("check a");
    expect(cache.get("b")).toBeUndefined();
  });

  it("keeps at most its capacity, dropping the least recently used", () => {
    const cache = liveCache(3);
    for (const key of ["a", "b", "c"]) cache.fill(key, key, [`token:${key}`], cache.ticket());
    expect(cache.get("a")).toBe("a");
    cache.fill("d", "d", ["token:d"], cache.ticket());
    expect(cache.size).toBe(3);
    expect(cache.get("b")).toBeUndefined();
    expect(["a", "c", "d"].map((key) => cache.get(key))).toEqual(["a", "c", "d"]);
  });

  it("drops every entry that carries an invalidated tag and no other", () => {
    const cache = liveCache();
    cache.fill("a", "a", ["user:1", "grant:1"], cache.ticket());
    cache.fill("b", "b", ["user:1", "grant:2"], cache.ticket());
    cache.fill("c", "c", ["user:2", "grant:3"], cache.ticket());
    cache.invalidate("user:1");
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, undefined, "c"]);
    cache.invalidate("grant:3");
    expect(cache.size).toBe(0);
  });

  it("refuses a fill read before an invalidation", () => {
    const cache = liveCache();
    const ticket = cache.ticket();
    cache.invalidate("user:9");
    cache.fill("a", "stale", ["user:1"], ticket);
    expect(cache.get("a")).toBeUndefined();
    cache.fill("a", "fresh", ["user:1"], cache.ticket());
    expect(cache.get("a")).toBe("fresh");
  });

  it("refilling a key replaces its tags", () => {
    const cache = liveCache();
    cache.fill("a", "first", ["user:1"], cache.ticket());
    cache.fill("a", "second", ["user:2"], cache.ticket());
    cache.invalidate("user:1");
    expect(cache.get("a")).toBe("second");
    cache.invalidate("user:2");
    expect(cache.get("a")).toBeUndefined();
  });

  it("answers and keeps nothing until it hears invalidations, and forgets everything when it stops", () => {
    const cache = new NotifiedCache<string>(3);
    cache.fill("a", "a", ["user:1"], cache.ticket());
    expect(cache.get("a")).toBeUndefined();
    cache.resume();
    const ticket = cache.ticket();
    cache.fill("a", "a", ["user:1"], ticket);
    expect(cache.get("a")).toBe("a");
    cache.pause();
    expect(cache.size).toBe(0);
    cache.fill("a", "a", ["user:1"], cache.ticket());
    expect(cache.get("a")).toBeUndefined();
    const beforeResume = cache.ticket();
    cache.resume();
    cache.fill("b", "b", ["user:1"], beforeResume);
    expect(cache.get("b")).toBeUndefined();
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new NotifiedCache(0)).toThrow("capacity must be a positive integer, not 0");
  });
});

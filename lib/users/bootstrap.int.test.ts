import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";

// The configuration is read once, when lib/env is first imported.
vi.hoisted(() => {
  process.env.INITIAL_ROOT_PASSWORD = "bootstrap-root-password";
  process.env.INITIAL_ROOT_TOKEN = "bootstrap-root-token-0123456789";
});

import { namespaces, personalAccessTokens, users } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/crypto";
import { verifyPassword } from "@/lib/auth/password";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { bootstrapRoot } from "./bootstrap";
import { insertUser } from "./users";

const now = new Date("2030-06-15T12:00:00Z");
const rootToken = "bootstrap-root-token-0123456789";

describe.each(testDatabases())("root bootstrap on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const roots = () => handle.db.select().from(users).where(eq(users.username, "root"));
  const tokens = () => handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.tokenDigest, sha256Hex(rootToken)));

  it("creates the administrator with the configured password, and installs the configured token", async () => {
    await bootstrapRoot(handle.db, now);
    const [root] = await roots();
    expect(root).toMatchObject({ username: "root", email: "admin@example.com", name: "Administrator", isAdmin: true, state: "active", confirmedAt: now });
    expect(await verifyPassword(root!.passwordHash, "bootstrap-root-password")).toBe(true);
    expect(await handle.db.select().from(namespaces).where(eq(namespaces.ownerId, root!.id))).toHaveLength(1);
    const [token] = await tokens();
    expect(token).toMatchObject({ userId: root!.id, scopes: ["api", "read_user", "sudo"], revoked: false, expiresAt: null });
  });

  it("is idempotent", async () => {
    await bootstrapRoot(handle.db, now);
    await bootstrapRoot(handle.db, now);
    expect(await roots()).toHaveLength(1);
    expect(await tokens()).toHaveLength(1);
  });

  it("installs the token once: a revoked token stays revoked, a deleted one comes back", async () => {
    await handle.db.update(personalAccessTokens).set({ revoked: true }).where(eq(personalAccessTokens.tokenDigest, sha256Hex(rootToken)));
    await bootstrapRoot(handle.db, now);
    expect((await tokens()).map((token) => token.revoked)).toEqual([true]);
    await handle.db.delete(personalAccessTokens).where(eq(personalAccessTokens.tokenDigest, sha256Hex(rootToken)));
    await bootstrapRoot(handle.db, now);
    expect((await tokens()).map((token) => token.revoked)).toEqual([false]);
  });

  it("leaves an existing root's password alone", async () => {
    const [before] = await roots();
    await bootstrapRoot(handle.db, now);
    const [after] = await roots();
    expect(after!.passwordHash).toBe(before!.passwordHash);
  });
});

describe.each(testDatabases())("root bootstrap by replicas starting together on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("ends with one root and one token", async () => {
    // Root exists already (say, from an earlier start), so the replicas race on installing the token.
    await insertUser(handle.db, { username: "root", email: "admin@example.com", name: "Administrator", password: "some password", isAdmin: true });
    await Promise.all([bootstrapRoot(handle.db, now), bootstrapRoot(handle.db, now), bootstrapRoot(handle.db, now)]);
    expect(await handle.db.select().from(users).where(eq(users.username, "root"))).toHaveLength(1);
    expect(
      await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.tokenDigest, sha256Hex(rootToken))),
    ).toHaveLength(1);
  });
});

describe.each(testDatabases())("root bootstrap without a configured password on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("generates a password and prints it once", async () => {
    const saved = { password: process.env.INITIAL_ROOT_PASSWORD, token: process.env.INITIAL_ROOT_TOKEN };
    delete process.env.INITIAL_ROOT_PASSWORD;
    delete process.env.INITIAL_ROOT_TOKEN;
    vi.resetModules();
    try {
      const fresh = await import("./bootstrap");
      const print = vi.spyOn(console, "log").mockImplementation(() => {});
      await fresh.bootstrapRoot(handle.db, now);
      await fresh.bootstrapRoot(handle.db, now);
      expect(print).toHaveBeenCalledTimes(1);
      const password = /password "([^"]+)"/.exec(String(print.mock.calls[0]![0]))?.[1];
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      const [root] = await handle.db.select().from(users).where(eq(users.username, "root"));
      expect(await verifyPassword(root!.passwordHash, password!)).toBe(true);
      expect(await handle.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, root!.id))).toEqual([]);
    } finally {
      process.env.INITIAL_ROOT_PASSWORD = saved.password;
      process.env.INITIAL_ROOT_TOKEN = saved.token;
    }
  });
});

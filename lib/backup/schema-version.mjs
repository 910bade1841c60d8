// Which database schema a backup holds, named by the last migration applied to the database it was taken from, and
// what a restore must apply to recreate that schema before loading the rows. Drizzle's journal
// (drizzle/meta/_journal.json) lists the migrations in order, each with the time it was generated (`when`), and
// drizzle's migrator records that time for each migration it applies: that time identifies a schema.
import { readFileSync } from "node:fs";
import path from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { ArchiveError } from "./archive.mjs";

/**
 * @param {string} migrationsFolder
 * @returns {{ tag: string, when: number }[]}
 */
export function journalOf(migrationsFolder) {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8"));
  return journal.entries.map((/** @type {{ tag: string, when: number }} */ entry) => ({ tag: entry.tag, when: entry.when }));
}

/**
 * The schema a database is at, from the newest row of drizzle's bookkeeping table; throws if this code does not know
 * it (a newer version of the service migrated the database).
 * @param {string} migrationsFolder
 * @param {number} appliedWhen
 * @returns {{ migration: string, createdAt: number }}
 */
export function schemaAt(migrationsFolder, appliedWhen) {
  const entry = journalOf(migrationsFolder).find((migration) => migration.when === appliedWhen);
  if (!entry) throw new Error(`the database has a migration (generated at ${appliedWhen}) this version of the service does not know`);
  return { migration: entry.tag, createdAt: entry.when };
}

/**
 * The migrations that build the schema a backup was taken at, as drizzle reads them (statements, hash, time), or an
 * `ArchiveError` when this code cannot: the backup's schema is newer, or from a line of development it does not have.
 * @param {string} migrationsFolder
 * @param {{ migration: string, createdAt: number }} schema
 */
export function migrationsUpTo(migrationsFolder, schema) {
  const journal = journalOf(migrationsFolder);
  const index = journal.findIndex((entry) => entry.when === schema.createdAt && entry.tag === schema.migration);
  const latest = journal.at(-1);
  if (index < 0 && latest && schema.createdAt > latest.when) {
    throw new ArchiveError(
      `its database schema is newer than this version of the service knows: the backup is at migration ${schema.migration}, this version goes up to ${latest.tag}. Restore it with the version of the service that made it, or a newer one`,
    );
  }
  if (index < 0) {
    throw new ArchiveError(`its database schema (migration ${schema.migration}) is not one this version of the service has: restore it with the version of the service that made it`);
  }
  return readMigrationFiles({ migrationsFolder }).slice(0, index + 1);
}

import type { MigrationMeta } from "drizzle-orm/migrator";

export function journalOf(migrationsFolder: string): { tag: string; when: number }[];
export function schemaAt(migrationsFolder: string, appliedWhen: number): { migration: string; createdAt: number };
export function migrationsUpTo(migrationsFolder: string, schema: { migration: string; createdAt: number }): MigrationMeta[];

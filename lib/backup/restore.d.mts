import type { BackupManifest } from "./archive.d.mts";

export class TargetError extends Error {}

export type DatabaseTarget = { kind: "pglite"; dataDir: string } | { kind: "postgres"; url: string };
export interface RestoreTarget {
  database: DatabaseTarget;
  dataDir: string;
  repositoriesDir: string;
}

export function verifyArchiveFile(file: string): Promise<BackupManifest>;
export function checkTarget(target: RestoreTarget): Promise<void>;
export function databaseName(url: string): string;
export function restoreArchive(
  file: string,
  manifest: BackupManifest,
  target: RestoreTarget,
  options: { migrationsFolder: string; signal?: AbortSignal },
): Promise<{ tables: number; rows: number; repositories: number }>;

import type { Writable } from "node:stream";

export const backupFormat: "gitlab-compatible-service backup";
export const backupFormatVersion: 1;
export const manifestEntryName: "manifest.json";
export const manifestDigestEntryName: "manifest.json.sha256";
export const entryPartBytes: number;

export interface ArchiveEntry {
  name: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: string;
  formatVersion: number;
  createdAt: string;
  /** The last migration applied to the database backed up (its tag, and the time drizzle's journal gives it). */
  schema: { migration: string; createdAt: number };
  database: {
    kind: "pglite" | "postgres";
    serverVersion: string;
    tables: { name: string; columns: string[]; rows: number; entries: string[] }[];
    sequences: { name: string; lastValue: string }[];
  };
  /** The repositories of the projects in the database; a project that never had one is not listed. */
  repositories: { projectId: number; head: string | null; entries: string[] }[];
  /** Names of the secrets the server took from its environment rather than its database, so not in the backup. */
  environmentSecrets: string[];
  entries: ArchiveEntry[];
}

export class ArchiveError extends Error {}
export class ReaderGone extends Error {}

export class ArchiveWriter {
  constructor(output: Writable, createdAt: Date);
  readonly entries: ArchiveEntry[];
  readonly bytesWritten: number;
  add(name: string, data: Buffer): Promise<void>;
  finish(manifest: Omit<BackupManifest, "entries">): Promise<void>;
}

export class ArchiveParser {
  push(chunk: Buffer): { name: string; data: Buffer }[];
  end(): void;
}

export class ArchiveVerifier {
  push(chunk: Buffer): void;
  finish(): BackupManifest;
}

export function checkEntry(listed: ArchiveEntry, read: ArchiveEntry | undefined): void;
export function verifiedEntries(chunks: AsyncIterable<Buffer> | Iterable<Buffer>, manifest: BackupManifest): AsyncGenerator<{ name: string; data: Buffer }>;

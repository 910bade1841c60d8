import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { ArchiveError, ArchiveParser, ArchiveVerifier, ArchiveWriter, ReaderGone, verifiedEntries, type BackupManifest } from "./archive.mjs";

const createdAt = new Date("2025-03-04T05:06:07Z");
const manifestFields: Omit<BackupManifest, "entries"> = {
  format: "gitlab-compatible-service backup",
  formatVersion: 1,
  createdAt: createdAt.toISOString(),
  schema: { migration: "0028_group_events", createdAt: 1795830137602 },
  database: { kind: "pglite", serverVersion: "18.6", tables: [{ name: "users", columns: ["id"], rows: 2, entries: ["database/users.000001.copy.gz"] }], sequences: [] },
  repositories: [],
  environmentSecrets: [],
};

/** An archive of the given entries, as bytes. */
async function archiveOf(entries: Record<string, Buffer>, manifest: Record<string, unknown> = manifestFields): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const output = new PassThrough();
  output.on("data", (chunk: Buffer) => chunks.push(chunk));
  const writer = new ArchiveWriter(output, createdAt);
  for (const [name, data] of Object.entries(entries)) await writer.add(name, data);
  await writer.finish(manifest as Omit<BackupManifest, "entries">);
  output.end();
  return Buffer.concat(chunks);
}

function verify(bytes: Buffer, chunkSize = 1000): BackupManifest {
  const verifier = new ArchiveVerifier();
  for (let offset = 0; offset < bytes.length; offset += chunkSize) verifier.push(bytes.subarray(offset, offset + chunkSize));
  return verifier.finish();
}

function failureOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    return (error as Error).message;
  }
  throw new Error("expected an ArchiveError");
}

const rows = Buffer.from("1\troot\n2\talice\n");
const bundle = Buffer.alloc(1500, 7);
const directory = mkdtempSync(path.join(tmpdir(), "archive-test-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("backup archives", () => {
  it("are tar files that tar itself lists and extracts, with a manifest of every entry's size and checksum", async () => {
    const bytes = await archiveOf({ "database/users.000001.copy.gz": rows, "repositories/3.bundle.000001": bundle });
    const file = path.join(directory, "backup.tar");
    writeFileSync(file, bytes);
    expect(execFileSync("tar", ["-tf", file], { encoding: "utf8" })).toBe(
      "database/users.000001.copy.gz\nrepositories/3.bundle.000001\nmanifest.json\nmanifest.json.sha256\n",
    );
    expect(execFileSync("tar", ["-xOf", file, "repositories/3.bundle.000001"])).toEqual(bundle);
    // The digest file is in sha256sum's format.
    execFileSync("tar", ["-xf", file, "-C", directory, "manifest.json", "manifest.json.sha256"]);
    expect(execFileSync("sha256sum", ["-c", "manifest.json.sha256"], { cwd: directory, encoding: "utf8" })).toBe("manifest.json: OK\n");
    expect(verify(bytes)).toEqual({
      ...manifestFields,
      entries: [
        { name: "database/users.000001.copy.gz", size: rows.length, sha256: createHash("sha256").update(rows).digest("hex") },
        { name: "repositories/3.bundle.000001", size: 1500, sha256: createHash("sha256").update(bundle).digest("hex") },
      ],
    });
    // Byte by byte or in one piece, the same.
    expect(verify(bytes, 1)).toEqual(verify(bytes, bytes.length));
  });

  it("are read back entry by entry, each checked against the manifest", async () => {
    const bytes = await archiveOf({ "database/users.000001.copy.gz": rows, "repositories/3.bundle.000001": bundle });
    const manifest = verify(bytes);
    const read: { name: string; data: Buffer }[] = [];
    for await (const entry of verifiedEntries([bytes.subarray(0, 700), bytes.subarray(700)], manifest)) read.push(entry);
    expect(read).toEqual([
      { name: "database/users.000001.copy.gz", data: rows },
      { name: "repositories/3.bundle.000001", data: bundle },
    ]);
    // A file that changed since it was verified stops the reading.
    const other = await archiveOf({ "database/users.000001.copy.gz": Buffer.from("1\tmallory\n"), "repositories/3.bundle.000001": bundle });
    await expect(async () => {
      for await (const entry of verifiedEntries([other], manifest)) void entry;
    }).rejects.toThrow("it is damaged: database/users.000001.copy.gz does not match its checksum");
  });

  it("refuse what is damaged, incomplete or not a backup, saying which", async () => {
    const bytes = await archiveOf({ "database/users.000001.copy.gz": rows });
    const flipped = Buffer.from(bytes);
    flipped.writeUInt8(flipped.readUInt8(512 + 3) ^ 1, 512 + 3);
    expect(failureOf(() => verify(flipped))).toBe("it is damaged: database/users.000001.copy.gz does not match its checksum");
    expect(failureOf(() => verify(bytes.subarray(0, bytes.length - 1024 - 512)))).toBe("it is incomplete: it ends in the middle (was it copied whole?)");
    expect(failureOf(() => verify(bytes.subarray(0, 1024)))).toBe(
      "it is incomplete: it ends in the middle (was it copied whole?)",
    );
    const header = Buffer.from(bytes);
    header.writeUInt8(header.readUInt8(10) ^ 1, 10);
    expect(failureOf(() => verify(header))).toBe("it is not a backup archive, or it is damaged (no valid tar header at byte 0)");
    expect(failureOf(() => verify(Buffer.from("just some text\n".repeat(100))))).toBe("it is not a backup archive, or it is damaged (no valid tar header at byte 0)");
    const trailing = Buffer.concat([bytes, Buffer.from("x")]);
    expect(failureOf(() => verify(trailing))).toBe("it is damaged (data after the end of the archive)");
    const newerFormat = await archiveOf({ "database/users.000001.copy.gz": rows }, { ...manifestFields, formatVersion: 2 });
    expect(failureOf(() => verify(newerFormat))).toBe(
      "it is in backup format 2, and this version of the service reads format 1 only: restore it with the version of the service that made it",
    );
    const otherFormat = await archiveOf({}, { ...manifestFields, format: "tarball" });
    expect(failureOf(() => verify(otherFormat))).toBe("it is not a backup of this service (its manifest names another format)");
    const lacking = await archiveOf({}, { ...manifestFields, database: { kind: "mysql" } });
    expect(failureOf(() => verify(lacking))).toBe("it is damaged: manifest.json lacks what a backup's manifest holds");
  });

  it("refuse a manifest that does not match its digest, or entries it does not list", async () => {
    const bytes = await archiveOf({ "database/users.000001.copy.gz": rows });
    const parser = new ArchiveParser();
    const entries = [...parser.push(bytes)];
    parser.end();
    expect(entries.map((entry) => entry.name)).toEqual(["database/users.000001.copy.gz", "manifest.json", "manifest.json.sha256"]);
    const manifest = JSON.parse(entries[1]!.data.toString("utf8")) as BackupManifest;

    // A manifest edited after the fact (here: it claims another schema) no longer matches its digest.
    const edited = rebuilt([entries[0]!, { name: "manifest.json", data: Buffer.from(JSON.stringify({ ...manifest, schema: { migration: "0099_x", createdAt: 1 } })) }, entries[2]!]);
    expect(failureOf(() => verify(edited))).toBe("it is damaged: manifest.json does not match its checksum");
    // An entry the manifest does not list.
    const added = rebuilt([entries[0]!, { name: "database/extra.000001.copy.gz", data: rows }, entries[1]!, entries[2]!]);
    expect(failureOf(() => verify(added))).toBe("it is damaged: its entries are not those its manifest lists");
    // No manifest at all: the server stopped writing.
    expect(failureOf(() => verify(rebuilt([entries[0]!])))).toBe(
      "it is incomplete: it has no manifest (a backup that was interrupted, or not a backup of this service)",
    );
  });

  it("wait while their reader is full, and stop when it goes away", async () => {
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, callback) {
        release = callback;
      },
    });
    const writer = new ArchiveWriter(slow, createdAt);
    let added = false;
    const adding = writer.add("repositories/3.bundle.000001", bundle).then(() => (added = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(added).toBe(false);
    release!();
    await new Promise((resolve) => setTimeout(resolve, 20));
    release!();
    await adding;
    expect(added).toBe(true);

    const stuck = new Writable({ highWaterMark: 16, write() {} });
    const writing = new ArchiveWriter(stuck, createdAt).add("repositories/3.bundle.000001", bundle);
    stuck.destroy();
    await expect(writing).rejects.toBeInstanceOf(ReaderGone);
  });
});

/**
 * An archive with exactly these entries and nothing added, made by tar itself (as an operator who took a backup apart
 * and packed it again would): still read, and judged by the manifest alone.
 */
function rebuilt(entries: { name: string; data: Buffer }[]): Buffer {
  const root = mkdtempSync(path.join(directory, "rebuilt-"));
  for (const entry of entries) {
    mkdirSync(path.dirname(path.join(root, entry.name)), { recursive: true });
    writeFileSync(path.join(root, entry.name), entry.data);
  }
  execFileSync("tar", ["--format=ustar", "-cf", "archive.tar", ...entries.map((entry) => entry.name)], { cwd: root });
  return readFileSync(path.join(root, "archive.tar"));
}

// The backup archive (`npm run backup`, `npm run restore`): a POSIX tar file, so `tar tf` lists it and `tar xf` takes
// it apart, holding the database's tables as gzipped COPY text, the git repositories as bundles, and last a manifest
// with every entry's size and SHA-256. The manifest comes last because the checksums are known only once everything is
// written, which lets the server stream the archive without holding or re-reading any of it; readers therefore verify
// an archive in one pass before they use it in a second. Every entry is at most a few MiB (the writers cut tables and
// bundles into parts), so both sides hold one entry at a time, whatever the instance's size.
//
// Shared by the server (lib/backup/dump.ts), which writes archives, and the command-line scripts, which check and read
// them: plain JavaScript, so `node` runs it without a build.
import { createHash } from "node:crypto";
import { once } from "node:events";

export const backupFormat = "gitlab-compatible-service backup";
export const backupFormatVersion = 1;
export const manifestEntryName = "manifest.json";
export const manifestDigestEntryName = "manifest.json.sha256";
/** How much table data or bundle the writers put in one entry before starting the next (uncompressed for tables). */
export const entryPartBytes = 8 * 1024 * 1024;
/**
 * The largest entry a reader accepts: a part closes after the row or block that crosses `entryPartBytes`, and one
 * PostgreSQL row can hold a value of up to 1 GiB. A header claiming more is damage, not data.
 */
const largestEntryBytes = 1024 * 1024 * 1024 + entryPartBytes;

const blockSize = 512;
const zeroBlock = Buffer.alloc(blockSize);

/** An archive that is not one of ours, or is damaged or incomplete: the message says which, for a person. */
export class ArchiveError extends Error {}

/**
 * Writes a tar archive to `output` one entry at a time, waiting whenever `output` is full, and keeps each entry's size
 * and SHA-256 for the manifest. `finish` writes the manifest and ends the archive (not `output`).
 */
export class ArchiveWriter {
  /**
   * @param {import("node:stream").Writable} output
   * @param {Date} createdAt the time every entry carries
   */
  constructor(output, createdAt) {
    this.output = output;
    this.mtime = Math.floor(createdAt.getTime() / 1000);
    /** @type {{ name: string, size: number, sha256: string }[]} */
    this.entries = [];
    this.bytesWritten = 0;
  }

  /**
   * @param {string} name
   * @param {Buffer} data
   */
  async add(name, data) {
    this.entries.push({ name, size: data.length, sha256: sha256Hex(data) });
    await this.writeEntry(name, data);
  }

  /**
   * Writes the manifest (what it is given, plus `entries`) and the digest of the manifest, then tar's end.
   * @param {Record<string, unknown>} manifest
   */
  async finish(manifest) {
    const manifestBytes = Buffer.from(`${JSON.stringify({ ...manifest, entries: this.entries }, null, 1)}\n`);
    await this.writeEntry(manifestEntryName, manifestBytes);
    await this.writeEntry(manifestDigestEntryName, Buffer.from(`${sha256Hex(manifestBytes)}  ${manifestEntryName}\n`));
    await this.write(Buffer.concat([zeroBlock, zeroBlock]));
  }

  /**
   * @param {string} name
   * @param {Buffer} data
   */
  async writeEntry(name, data) {
    await this.write(tarHeader(name, data.length, this.mtime));
    await this.write(data);
    const padding = (blockSize - (data.length % blockSize)) % blockSize;
    if (padding) await this.write(zeroBlock.subarray(0, padding));
  }

  /** @param {Buffer} bytes */
  async write(bytes) {
    this.bytesWritten += bytes.length;
    if (this.output.write(bytes)) return;
    await drained(this.output);
  }
}

/**
 * Resolves when `output` can take more; rejects if it closes or fails first (the reader went away), so a writer
 * never waits forever for a reader that is gone.
 * @param {import("node:stream").Writable} output
 */
async function drained(output) {
  if (output.destroyed) throw new ReaderGone();
  const waiting = new AbortController();
  try {
    await Promise.race([
      once(output, "drain", { signal: waiting.signal }),
      once(output, "close", { signal: waiting.signal }).then(() => {
        throw new ReaderGone();
      }),
    ]);
  } finally {
    // Takes the listeners off again: a long archive waits thousands of times.
    waiting.abort();
  }
}

/** The stream an archive was being written to closed before the archive was whole. */
export class ReaderGone extends Error {
  constructor() {
    super("the archive's reader went away before the archive was complete");
  }
}

/**
 * A ustar header for a regular file. Names are ours and short (no prefix field needed); the mode keeps extracted
 * files to their owner, since the archive holds the instance's secrets.
 * @param {string} name
 * @param {number} size
 * @param {number} mtime
 */
function tarHeader(name, size, mtime) {
  const nameBytes = Buffer.from(name, "utf8");
  if (nameBytes.length > 100) throw new Error(`archive entry name too long: ${name}`);
  const header = Buffer.alloc(blockSize);
  nameBytes.copy(header, 0);
  header.write("0000600\0", 100, "ascii");
  header.write("0000000\0", 108, "ascii");
  header.write("0000000\0", 116, "ascii");
  header.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "ascii");
  header.write(`${mtime.toString(8).padStart(11, "0")}\0`, 136, "ascii");
  header.write("        ", 148, "ascii");
  header.write("0", 156, "ascii");
  header.write("ustar\0", 257, "ascii");
  header.write("00", 263, "ascii");
  header.write(`${headerChecksum(header).toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return header;
}

/** @param {Buffer} header */
function headerChecksum(header) {
  let sum = 0;
  for (let index = 0; index < blockSize; index += 1) sum += index >= 148 && index < 156 ? 0x20 : header[index];
  return sum;
}

/** @param {Buffer} bytes */
function sha256Hex(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Takes an archive's bytes as they come (`push`) and hands back each entry once it is whole. Only what this module
 * writes is accepted: regular files in ustar headers, then tar's end (zero blocks to the end of the file).
 */
export class ArchiveParser {
  constructor() {
    /** @type {Buffer[]} */
    this.pending = [];
    this.pendingBytes = 0;
    this.offset = 0;
    /** @type {{ name: string, size: number } | null} */
    this.current = null;
    this.ended = false;
  }

  /**
   * @param {Buffer} chunk
   * @returns {{ name: string, data: Buffer }[]}
   */
  push(chunk) {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const entries = [];
    for (;;) {
      if (this.ended) {
        this.skipEndPadding();
        return entries;
      }
      if (!this.current) {
        const header = this.take(blockSize);
        if (!header) return entries;
        if (header.equals(zeroBlock)) {
          this.ended = true;
          continue;
        }
        this.current = this.readHeader(header);
      }
      const padded = Math.ceil(this.current.size / blockSize) * blockSize;
      const body = this.take(padded);
      if (!body) return entries;
      entries.push({ name: this.current.name, data: body.subarray(0, this.current.size) });
      this.current = null;
    }
  }

  /** Throws unless the archive ended where tar's end says. */
  end() {
    if (!this.ended || this.pendingBytes > 0) throw new ArchiveError("it is incomplete: it ends in the middle (was it copied whole?)");
  }

  /** @param {Buffer} header */
  readHeader(header) {
    const at = this.offset - blockSize;
    const field = (start, length) => header.subarray(start, start + length).toString("ascii").replace(/[\0 ]+$/, "").replace(/^ +/, "");
    if (!header.subarray(257, 262).equals(Buffer.from("ustar")) || Number.parseInt(field(148, 8), 8) !== headerChecksum(header)) {
      throw new ArchiveError(`it is not a backup archive, or it is damaged (no valid tar header at byte ${at})`);
    }
    const type = header[156];
    if (type !== 0x30 && type !== 0) throw new ArchiveError(`it is not a backup archive (an entry at byte ${at} is not a plain file)`);
    const name = header.subarray(0, 100).toString("utf8").replace(/\0.*$/s, "");
    const sizeText = field(124, 12);
    const size = /^[0-7]+$/.test(sizeText) ? Number.parseInt(sizeText, 8) : Number.NaN;
    if (!Number.isSafeInteger(size) || size > largestEntryBytes) throw new ArchiveError(`it is damaged (the entry ${name} at byte ${at} has an impossible size)`);
    return { name, size };
  }

  /** After tar's end only zero bytes may follow (tar pads archives to whole records). */
  skipEndPadding() {
    const rest = this.take(this.pendingBytes);
    if (rest && rest.some((byte) => byte !== 0)) throw new ArchiveError("it is damaged (data after the end of the archive)");
  }

  /**
   * The next `length` bytes, or null until that many have arrived.
   * @param {number} length
   */
  take(length) {
    if (this.pendingBytes < length) return null;
    const joined = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    const taken = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this.pending = rest.length ? [rest] : [];
    this.pendingBytes = rest.length;
    this.offset += length;
    return taken;
  }
}

/**
 * Checks an archive as its bytes pass (`push`): every entry against the manifest's checksums, the manifest against
 * its digest, and that nothing is missing, added or reordered. `finish` answers the manifest once the whole archive
 * has been seen, or throws an `ArchiveError` saying what is wrong.
 */
export class ArchiveVerifier {
  constructor() {
    this.parser = new ArchiveParser();
    /** @type {{ name: string, size: number, sha256: string }[]} */
    this.seen = [];
    /** @type {Buffer | null} */
    this.manifestBytes = null;
    /** @type {string | null} */
    this.manifestDigest = null;
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    for (const { name, data } of this.parser.push(chunk)) {
      if (this.manifestDigest !== null) throw new ArchiveError(`it is damaged (${name} follows the manifest's digest)`);
      if (name === manifestDigestEntryName) {
        if (this.manifestBytes === null) throw new ArchiveError("it is damaged (the manifest's digest comes without a manifest)");
        this.manifestDigest = data.toString("utf8");
      } else if (this.manifestBytes !== null) {
        throw new ArchiveError(`it is damaged (${name} follows the manifest)`);
      } else if (name === manifestEntryName) {
        this.manifestBytes = data;
      } else {
        this.seen.push({ name, size: data.length, sha256: sha256Hex(data) });
      }
    }
  }

  /** @returns {import("./archive.d.mts").BackupManifest} */
  finish() {
    this.parser.end();
    if (this.manifestBytes === null || this.manifestDigest === null) {
      throw new ArchiveError("it is incomplete: it has no manifest (a backup that was interrupted, or not a backup of this service)");
    }
    if (this.manifestDigest !== `${sha256Hex(this.manifestBytes)}  ${manifestEntryName}\n`) {
      throw new ArchiveError(`it is damaged: ${manifestEntryName} does not match its checksum`);
    }
    const manifest = parseManifest(this.manifestBytes);
    if (manifest.entries.length !== this.seen.length) throw new ArchiveError("it is damaged: its entries are not those its manifest lists");
    manifest.entries.forEach((listed, index) => checkEntry(listed, this.seen[index]));
    return manifest;
  }
}

/**
 * Throws unless an entry read is the one the manifest lists at its place.
 * @param {{ name: string, size: number, sha256: string }} listed
 * @param {{ name: string, size: number, sha256: string } | undefined} read
 */
export function checkEntry(listed, read) {
  if (!read || read.name !== listed.name) throw new ArchiveError(`it is damaged: its entries are not those its manifest lists (${listed.name})`);
  if (read.size !== listed.size || read.sha256 !== listed.sha256) throw new ArchiveError(`it is damaged: ${listed.name} does not match its checksum`);
}

/**
 * Reads an archive's entries, in order, each checked against the manifest an earlier pass verified: a file that
 * changed between the passes stops the reading with an `ArchiveError`. The manifest's own entries are left out.
 * @param {AsyncIterable<Buffer> | Iterable<Buffer>} chunks
 * @param {import("./archive.d.mts").BackupManifest} manifest
 * @returns {AsyncGenerator<{ name: string, data: Buffer }>}
 */
export async function* verifiedEntries(chunks, manifest) {
  const parser = new ArchiveParser();
  let index = 0;
  for await (const chunk of chunks) {
    for (const entry of parser.push(chunk)) {
      if (entry.name === manifestEntryName || entry.name === manifestDigestEntryName) continue;
      const listed = manifest.entries[index];
      if (!listed) throw new ArchiveError(`it is damaged: ${entry.name} is not in its manifest`);
      checkEntry(listed, { name: entry.name, size: entry.data.length, sha256: sha256Hex(entry.data) });
      index += 1;
      yield entry;
    }
  }
  parser.end();
  if (index !== manifest.entries.length) throw new ArchiveError("it is incomplete: entries its manifest lists are missing");
}

/**
 * The manifest, with the shape checked that readers rely on; the format version decides whether we can read it.
 * @param {Buffer} bytes
 * @returns {import("./archive.d.mts").BackupManifest}
 */
function parseManifest(bytes) {
  let manifest;
  try {
    manifest = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new ArchiveError(`it is damaged: ${manifestEntryName} is not JSON`);
  }
  if (manifest?.format !== backupFormat) throw new ArchiveError("it is not a backup of this service (its manifest names another format)");
  if (manifest.formatVersion !== backupFormatVersion) {
    throw new ArchiveError(
      `it is in backup format ${manifest.formatVersion}, and this version of the service reads format ${backupFormatVersion} only: restore it with the version of the service that made it`,
    );
  }
  const valid =
    typeof manifest.createdAt === "string" &&
    typeof manifest.schema?.migration === "string" &&
    Number.isSafeInteger(manifest.schema?.createdAt) &&
    (manifest.database?.kind === "pglite" || manifest.database?.kind === "postgres") &&
    Array.isArray(manifest.database?.tables) &&
    Array.isArray(manifest.database?.sequences) &&
    Array.isArray(manifest.repositories) &&
    Array.isArray(manifest.environmentSecrets) &&
    Array.isArray(manifest.entries);
  if (!valid) throw new ArchiveError(`it is damaged: ${manifestEntryName} lacks what a backup's manifest holds`);
  return manifest;
}

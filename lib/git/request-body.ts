import { Transform, type TransformCallback } from "node:stream";

/** The two smart-HTTP services whose POST bodies go to git. */
export type GitService = "git-upload-pack" | "git-receive-pack";

/** 413, in words git users recognize: GitLab's "Maximum push size" is the same limit. */
export function tooLarge(rules: GitBodyRules): RefusedGitRequest {
  return new RefusedGitRequest(413, `Push rejected: it is larger than ${rules.limitName ?? `${rules.maxBytes} bytes`}.`);
}

/** A request body refused before git acts on it: the status and the plain-text line the client is answered with. */
export class RefusedGitRequest extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

export interface GitBodyRules {
  service: GitService;
  /**
   * How much of the body is pkt-lines: all of it (upload-pack: wants, haves, done), or up to the first flush-pkt
   * (receive-pack: the command list, after which comes the pack, which is not framed).
   */
  framing: "whole" | "until-flush";
  /** The most bytes that may pass to git; one more refuses the request (413). */
  maxBytes?: number;
  /** What the 413 says about the limit, e.g. "the maximum push size (2048 MiB)". */
  limitName?: string;
}

// pkt-line lengths (gitprotocol-common(5)): 0000 flush, 0001 delim and 0002 response-end carry no payload; 0003 is
// never valid; otherwise the 4 length digits count themselves, up to LARGE_PACKET_MAX.
const largestPacket = 65520;

/**
 * Checks a git request body while it streams to git, without holding any of it: counts the bytes against the limit,
 * and follows the pkt-line framing (only the 4-digit lengths are read; payloads are skipped). The first problem
 * stops the stream with a `RefusedGitRequest`, kept in `refusal` for whoever answers the client: git, which dies on
 * malformed input only after it has sent its response headers, would leave the client with an empty 200.
 */
export class GitBodyInspector extends Transform {
  refusal: RefusedGitRequest | null = null;
  private passed = 0;
  private lengthDigits = "";
  private payloadLeft = 0;
  private framingChecked = false;

  constructor(private readonly rules: GitBodyRules) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.passed += chunk.length;
    if (this.rules.maxBytes !== undefined && this.passed > this.rules.maxBytes) {
      this.refusal = tooLarge(this.rules);
      return callback(this.refusal);
    }
    const problem = this.framingChecked ? null : this.followFraming(chunk);
    if (problem) return this.refuse(400, problem, callback);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.passed === 0) return this.refuse(400, `Bad request: the ${this.rules.service} request is empty.`, callback);
    if (!this.framingChecked && (this.lengthDigits !== "" || this.payloadLeft > 0)) {
      return this.refuse(400, `Bad request: the ${this.rules.service} request ends inside a pkt-line.`, callback);
    }
    if (!this.framingChecked && this.rules.framing === "until-flush") {
      return this.refuse(400, `Bad request: the ${this.rules.service} request ends before its command list does.`, callback);
    }
    callback();
  }

  /** Advances over one chunk of pkt-lines; returns what is wrong with them, if anything. */
  private followFraming(chunk: Buffer): string | null {
    let offset = 0;
    while (offset < chunk.length && !this.framingChecked) {
      if (this.payloadLeft > 0) {
        const skipped = Math.min(this.payloadLeft, chunk.length - offset);
        this.payloadLeft -= skipped;
        offset += skipped;
        continue;
      }
      const digits = chunk.toString("latin1", offset, Math.min(chunk.length, offset + 4 - this.lengthDigits.length));
      this.lengthDigits += digits;
      offset += digits.length;
      if (this.lengthDigits.length < 4) break;
      const lengthText = this.lengthDigits;
      this.lengthDigits = "";
      const length = /^[0-9a-fA-F]{4}$/.test(lengthText) ? Number.parseInt(lengthText, 16) : Number.NaN;
      if (length === 0 && this.rules.framing === "until-flush") this.framingChecked = true;
      else if (length === 3 || length > largestPacket || Number.isNaN(length)) {
        return `Bad request: the body is not a ${this.rules.service} request (bad pkt-line length ${JSON.stringify(lengthText)}).`;
      } else if (length >= 4) this.payloadLeft = length - 4;
    }
    return null;
  }

  private refuse(status: RefusedGitRequest["status"], message: string, callback: TransformCallback): void {
    this.refusal = new RefusedGitRequest(status, message);
    callback(this.refusal);
  }
}

import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { GitBodyInspector, type GitBodyRules } from "./request-body";

function pkt(payload: string): string {
  return `${(payload.length + 4).toString(16).padStart(4, "0")}${payload}`;
}

/** Streams `chunks` through an inspector into a sink; returns what passed and the refusal, if any. */
async function inspect(rules: GitBodyRules, chunks: (string | Buffer)[]) {
  const inspector = new GitBodyInspector(rules);
  const passed: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      passed.push(chunk);
      callback();
    },
  });
  await pipeline(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), inspector, sink).catch(() => {});
  return { passed: Buffer.concat(passed).toString("latin1"), refusal: inspector.refusal && { status: inspector.refusal.status, message: inspector.refusal.message } };
}

const fetchRules: GitBodyRules = { service: "git-upload-pack", framing: "whole" };
const pushRules: GitBodyRules = { service: "git-receive-pack", framing: "until-flush", maxBytes: 200, limitName: "the test limit" };
const sha = "a".repeat(40);

describe("GitBodyInspector", () => {
  it("passes well-framed requests through unchanged, however they are split", async () => {
    const v0 = `${pkt(`want ${sha} multi_ack_detailed side-band-64k\n`)}0000${pkt(`have ${sha}\n`)}${pkt("done\n")}`;
    const v2 = `${pkt("command=fetch\n")}0001${pkt("thin-pack\n")}${pkt(`want ${sha}\n`)}${pkt("done\n")}0000`;
    for (const body of [v0, v2, "0000"]) {
      expect(await inspect(fetchRules, [body])).toEqual({ passed: body, refusal: null });
      expect(await inspect(fetchRules, body.split(""))).toEqual({ passed: body, refusal: null });
    }
  });

  it("refuses what is not pkt-lines, a body that ends inside one, and an empty body", async () => {
    const notFramed = (length: string) => ({
      status: 400,
      message: `Bad request: the body is not a git-upload-pack request (bad pkt-line length "${length}").`,
    });
    expect((await inspect(fetchRules, ["garbage"])).refusal).toEqual(notFramed("garb"));
    expect((await inspect(fetchRules, ["0003"])).refusal).toEqual(notFramed("0003"));
    expect((await inspect(fetchRules, ["fff1"])).refusal).toEqual(notFramed("fff1"));
    expect((await inspect(fetchRules, [`${pkt("done\n")}00`, "0g"])).refusal).toEqual(notFramed("000g"));
    const truncated = { status: 400, message: "Bad request: the git-upload-pack request ends inside a pkt-line." };
    expect((await inspect(fetchRules, [pkt(`want ${sha}\n`).slice(0, -3)])).refusal).toEqual(truncated);
    expect((await inspect(fetchRules, [`${pkt("done\n")}00`])).refusal).toEqual(truncated);
    expect((await inspect(fetchRules, [])).refusal).toEqual({ status: 400, message: "Bad request: the git-upload-pack request is empty." });
  });

  it("stops passing bytes on at the first problem", async () => {
    const { passed } = await inspect(fetchRules, [pkt("done\n"), "garbage", pkt("done\n")]);
    expect(passed).toBe(pkt("done\n"));
  });

  it("checks a push's command list, then lets its pack through as it is", async () => {
    const commands = `${pkt(`${"0".repeat(40)} ${sha} refs/heads/main\0report-status\n`)}0000`;
    const pack = "PACK\u0000\u0000\u0000\u0002garbage-looking binary";
    expect(await inspect(pushRules, [commands, pack])).toEqual({ passed: commands + pack, refusal: null });
    expect((await inspect(pushRules, [pkt(`${"0".repeat(40)} ${sha} refs/heads/main\n`)])).refusal).toEqual({
      status: 400,
      message: "Bad request: the git-receive-pack request ends before its command list does.",
    });
  });

  it("refuses a body over the limit with 413 before passing the bytes that cross it", async () => {
    const commands = `${pkt(`${"0".repeat(40)} ${sha} refs/heads/main\n`)}0000`;
    const { passed, refusal } = await inspect(pushRules, [commands, "x".repeat(200 - commands.length), "y"]);
    expect(refusal).toEqual({ status: 413, message: "Push rejected: it is larger than the test limit." });
    expect(passed).toBe(commands + "x".repeat(200 - commands.length));
  });
});

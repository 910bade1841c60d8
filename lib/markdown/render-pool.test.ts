import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { markdownToHtml } from "./markdown-to-html.mjs";
import { MarkdownRenderPool, type RenderPoolOptions } from "./render-pool";

// 60 KB that `marked` takes seconds over (its e-mail autolink rule is quadratic in a word's length).
const quadratic = `${"a".repeat(60_000)}@`;

const pools: MarkdownRenderPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function pool(options: Partial<RenderPoolOptions> = {}): MarkdownRenderPool {
  const created = new MarkdownRenderPool({
    threads: 1,
    timeLimitMs: 5000,
    maxWaitingDocuments: 16,
    maxWaitingCharacters: 1_000_000,
    maxWaitMs: 10_000,
    ...options,
  });
  pools.push(created);
  return created;
}

/** The longest pause of this thread's event loop while `work` runs, measured with a 5 ms timer. */
async function longestPauseDuring<T>(work: Promise<T>): Promise<{ result: T; longestPauseMs: number }> {
  let last = performance.now();
  let longestPauseMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestPauseMs = Math.max(longestPauseMs, now - last);
    last = now;
  }, 5);
  try {
    return { result: await work, longestPauseMs };
  } finally {
    clearInterval(ticker);
  }
}

describe("MarkdownRenderPool", () => {
  it("renders on a thread exactly what the renderer makes", async () => {
    const source = "**bold** <script>alert(1)</script>\n- [x] done";
    expect(await pool().render(source)).toEqual({ kind: "rendered", html: markdownToHtml(source) });
  });

  it("stops a document at the time limit, keeps this thread free meanwhile, and renders the next on a fresh thread", async () => {
    const renderer = pool({ timeLimitMs: 300 });
    await renderer.render("warm-up");
    const started = performance.now();
    const { result, longestPauseMs } = await longestPauseDuring(renderer.render(quadratic));
    expect(result).toEqual({ kind: "timed-out" });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(longestPauseMs).toBeLessThan(100);
    expect(await renderer.render("_after_")).toEqual({ kind: "rendered", html: "<p><em>after</em></p>" });
  });

  it("holds no thread until documents come, starts one for each up to its size, and ends each after a while without one", async () => {
    const renderer = pool({ threads: 2, idleMs: 300, maxWaitingDocuments: 0 });
    expect(renderer.threadCount).toBe(0);
    // Documents that start a thread wait for it, not in the line, which takes none here.
    expect(await Promise.all([renderer.render("one"), renderer.render("two")])).toEqual([
      { kind: "rendered", html: "<p>one</p>" },
      { kind: "rendered", html: "<p>two</p>" },
    ]);
    expect(renderer.threadCount).toBe(2);
    expect(await renderer.render("three")).toEqual({ kind: "rendered", html: "<p>three</p>" });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(renderer.threadCount).toBe(0);
    expect(await renderer.render("_again_")).toEqual({ kind: "rendered", html: "<p><em>again</em></p>" });
    expect(renderer.threadCount).toBe(1);
  });

  it("says when every thread is ready, again after a time-out replaced one, so the next document starts at once", async () => {
    const renderer = pool({ threads: 2, timeLimitMs: 300, maxWaitingDocuments: 0 });
    await renderer.whenReady();
    const pair = [renderer.render("one"), renderer.render("two")];
    expect(await renderer.render("three")).toEqual({ kind: "busy" });
    expect(await Promise.all(pair)).toEqual([{ kind: "rendered", html: "<p>one</p>" }, { kind: "rendered", html: "<p>two</p>" }]);
    expect(await renderer.render(quadratic)).toEqual({ kind: "timed-out" });
    await renderer.whenReady();
    expect(await Promise.all([renderer.render("_a_"), renderer.render("_b_")])).toEqual([
      { kind: "rendered", html: "<p><em>a</em></p>" },
      { kind: "rendered", html: "<p><em>b</em></p>" },
    ]);
  });

  it("renders thousands of nested quotes and list items instead of failing", async () => {
    const renderer = pool();
    for (const marker of ["> ", "- "]) {
      const outcome = await renderer.render(`${marker.repeat(2000)}x`);
      expect(outcome.kind).toBe("rendered");
    }
  });

  it("queues documents while the threads are busy, and answers busy past the line's bounds", async () => {
    const renderer = pool({ timeLimitMs: 400, maxWaitingDocuments: 2, maxWaitingCharacters: 10 });
    await renderer.render("warm-up");
    const running = renderer.render(quadratic);
    const waiting = [renderer.render("*one*"), renderer.render("*two*")];
    // A third document, or one that would take the line past its characters, is not held.
    expect(await renderer.render("three")).toEqual({ kind: "busy" });
    expect(await running).toEqual({ kind: "timed-out" });
    expect(await Promise.all(waiting)).toEqual([
      { kind: "rendered", html: "<p><em>one</em></p>" },
      { kind: "rendered", html: "<p><em>two</em></p>" },
    ]);
    const occupied = renderer.render(quadratic);
    expect(await renderer.render("eleven char")).toEqual({ kind: "busy" });
    expect(await occupied).toEqual({ kind: "timed-out" });
  });

  it("answers busy to a document that waited longer than it may", async () => {
    const renderer = pool({ timeLimitMs: 1000, maxWaitMs: 200 });
    await renderer.render("warm-up");
    const running = renderer.render(quadratic);
    const started = performance.now();
    expect(await renderer.render("patient")).toEqual({ kind: "busy" });
    expect(performance.now() - started).toBeLessThan(800);
    expect(await running).toEqual({ kind: "timed-out" });
  });

  describe("with threads that fail", () => {
    const directory = mkdtempSync(path.join(tmpdir(), "render-pool-"));
    afterAll(() => rmSync(directory, { recursive: true, force: true }));
    // Fails as told: throws (reported back), or ends its thread.
    const failingWorker = path.join(directory, "failing-worker.mjs");
    writeFileSync(
      failingWorker,
      `import { parentPort } from "node:worker_threads";
parentPort.on("message", ({ id, source }) => {
  if (source === "exit") process.exit(3);
  parentPort.postMessage(source === "throw" ? { id, error: "cannot" } : { id, html: source.toUpperCase() });
});
parentPort.postMessage({ ready: true });
`,
    );

    it("answers failed when the renderer fails or its thread stops, and carries on with a fresh thread", async () => {
      const troubles: string[] = [];
      const renderer = pool({ workerFile: failingWorker, onTrouble: ({ kind }) => troubles.push(kind) });
      expect(await renderer.render("throw")).toEqual({ kind: "failed" });
      expect(await renderer.render("exit")).toEqual({ kind: "failed" });
      expect(await renderer.render("fine")).toEqual({ kind: "rendered", html: "FINE" });
      expect(troubles).toEqual(["failed", "thread-stopped"]);
    });
  });

  it("answers failed once closed", async () => {
    const renderer = pool();
    await renderer.close();
    expect(await renderer.render("late")).toEqual({ kind: "failed" });
  });
});

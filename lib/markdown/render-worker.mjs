// A render thread (started by lib/markdown/render-pool.ts): one document at a time, in, HTML out. The pool owns the
// clock: a document that takes too long is not interrupted here, the pool terminates this thread and starts another.
import os from "node:os";
import { parentPort } from "node:worker_threads";
import { markdownToHtml } from "./markdown-to-html.mjs";

// Rendering is background work: when the cores are all busy, the thread that answers requests (and the embedded
// database's) go first. On Linux a nice value is the calling thread's own, so this thread alone is lowered, to the
// lowest priority there is: at 10, each render thread still weighs about a tenth of a request thread in the scheduler.
try {
  os.setPriority(19);
} catch {
  // A platform that cannot lower it renders at the usual priority.
}

parentPort.on("message", ({ id, source }) => {
  try {
    parentPort.postMessage({ id, html: markdownToHtml(source) });
  } catch (error) {
    // A document the renderer cannot handle (whatever it throws) is shown as written; the thread lives on.
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort.postMessage({ ready: true });

// A render thread (started by lib/markdown/render-pool.ts): one document at a time, in, HTML out. The pool owns the
// clock: a document that takes too long is not interrupted here, the pool terminates this thread and starts another.
import { parentPort } from "node:worker_threads";
import { markdownToHtml } from "./markdown-to-html.mjs";

parentPort.on("message", ({ id, source }) => {
  try {
    parentPort.postMessage({ id, html: markdownToHtml(source) });
  } catch (error) {
    // A document the renderer cannot handle (whatever it throws) is shown as written; the thread lives on.
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort.postMessage({ ready: true });

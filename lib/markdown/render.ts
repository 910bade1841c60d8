import "server-only";
import { env } from "@/lib/env";
import { logger } from "@/lib/log";
import { MarkdownRenderPool } from "./render-pool";

/**
 * Stored with each rendered text (`cached_markdown_version`). Raise it when the renderer's output changes (a new
 * `marked`, another allow-list): stored HTML of an older version is rendered again when it is next shown.
 */
export const markdownRendererVersion = 1;

/**
 * How much may wait for a render thread: a flood of documents is refused (429) rather than held in memory, and nobody
 * waits longer than a few time limits behind documents that run to the limit.
 */
export const renderWaitingLine = { documents: 64, characters: 8_000_000, timeLimits: 5 };

const poolKey = Symbol.for("gitlab-compatible.markdown-render-pool");

/** The process's render threads: one pool, whichever bundle layer (pages, actions, route handlers) asks. */
export function markdownRenderPool(): MarkdownRenderPool {
  const registry = globalThis as Record<symbol, MarkdownRenderPool | undefined>;
  return (registry[poolKey] ??= new MarkdownRenderPool({
    threads: env.MARKDOWN_RENDER_THREADS,
    timeLimitMs: env.MARKDOWN_RENDER_TIMEOUT_MS,
    maxWaitingDocuments: renderWaitingLine.documents,
    maxWaitingCharacters: renderWaitingLine.characters,
    maxWaitMs: renderWaitingLine.timeLimits * env.MARKDOWN_RENDER_TIMEOUT_MS,
    onTrouble: ({ kind, characters, detail }) => {
      if (kind === "timed-out") logger.warn({ characters }, "Markdown took too long to render; the text is shown as written");
      else logger.error({ characters, detail }, kind === "failed" ? "Markdown could not be rendered; the text is shown as written" : "a Markdown render thread stopped");
    },
  }));
}

/** What a client that was refused because the render threads are full should wait before trying again. */
export function renderRetryAfterSeconds(): number {
  return Math.ceil(env.MARKDOWN_RENDER_TIMEOUT_MS / 1000);
}

/** Why a text is shown as written instead of rendered. */
export type UnrenderedReason = "timed-out" | "failed" | "busy";

const notices: Record<UnrenderedReason, string> = {
  "timed-out": "This text took too long to display as formatted text, so it is shown as it was written.",
  failed: "This text could not be displayed as formatted text, so it is shown as it was written.",
  busy: "This text is still being prepared for display, so it is shown as it was written for now.",
};

const htmlEscapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/**
 * A text that did not render, as HTML: a notice saying so, then the author's text, escaped, in a preformatted block,
 * so nothing is lost and nothing in it runs. One pass over the text.
 */
export function shownAsWritten(source: string, reason: UnrenderedReason): string {
  return `<p class="notice notice-warning markdown-notice" role="note">${notices[reason]}</p>\n<pre class="markdown-source">${source.replace(/[&<>"]/g, (character) => htmlEscapes[character]!)}</pre>`;
}

/** A text as HTML to store with it, or null when the render threads have too much waiting to take it now. */
export async function renderToStore(source: string): Promise<string | null> {
  const outcome = await markdownRenderPool().render(source);
  if (outcome.kind === "rendered") return outcome.html;
  if (outcome.kind === "busy") return null;
  return shownAsWritten(source, outcome.kind);
}

import "server-only";
import { RenderingBusyError } from "@/lib/errors";
import { markdownRendererVersion, renderRetryAfterSeconds, renderToStore, shownAsWritten } from "@/lib/markdown/render";

/** A description's or a note's HTML as stored beside it, with the renderer version that made it. */
export interface RenderedText {
  html: string | null;
  version: number;
}

/**
 * The HTML to store with a text being saved, rendered now on the render threads. When they have too much waiting the
 * save is refused (429 with `Retry-After`, a form error on our pages) before anything is written.
 */
export async function renderForSave(source: string | null): Promise<RenderedText> {
  if (source === null) return { html: null, version: markdownRendererVersion };
  const html = await renderToStore(source);
  if (html === null) throw new RenderingBusyError(renderRetryAfterSeconds());
  return { html, version: markdownRendererVersion };
}

/** A stored text with what is stored of its HTML (nothing yet, or a renderer version's that may be old). */
export interface StoredText {
  source: string;
  html: string | null;
  version: number | null;
}

/**
 * The HTML to show for a stored text: the stored HTML when the current renderer made it. Otherwise (a row saved before
 * HTML was stored, an incident an alert opened, an older renderer's HTML) the text is rendered now, through the same
 * render threads and time limit as a save, and `keep` stores the result so this happens once. When the threads have
 * too much waiting, the text is shown as written this time and nothing is stored.
 */
export async function htmlToShow(text: StoredText, keep: (html: string, version: number) => Promise<unknown>): Promise<string> {
  if (text.html !== null && text.version === markdownRendererVersion) return text.html;
  const html = await renderToStore(text.source);
  if (html === null) return shownAsWritten(text.source, "busy");
  await keep(html, markdownRendererVersion);
  return html;
}

// Reading Atom feeds as feed readers do, and the feed token they are read with.
import { expect, type APIRequestContext, type Dialog, type Page } from "@playwright/test";

export interface ParsedFeed {
  id: string | null;
  title: string | null;
  updated: string | null;
  self: string | null;
  entries: { id: string | null; title: string | null; updated: string | null; link: string | null; author: string | null; summary: string | null }[];
}

/** Parses a feed with Chromium's XML parser, which refuses anything that is not well-formed, and reads its Atom elements. */
export async function parseFeed(page: Page, xml: string): Promise<ParsedFeed> {
  return page.evaluate((text) => {
    const atom = "http://www.w3.org/2005/Atom";
    const doc = new DOMParser().parseFromString(text, "application/xml");
    const failure = doc.getElementsByTagName("parsererror")[0];
    if (failure) throw new Error(`not well-formed XML: ${failure.textContent}`);
    const feed = doc.documentElement;
    if (feed.namespaceURI !== atom || feed.localName !== "feed") throw new Error(`not an Atom feed: ${feed.localName}`);
    const child = (parent: Element, name: string) => Array.from(parent.children).find((element) => element.namespaceURI === atom && element.localName === name);
    const textOf = (parent: Element, name: string) => child(parent, name)?.textContent ?? null;
    const linkOf = (parent: Element, rel: string) =>
      Array.from(parent.children).find((element) => element.localName === "link" && element.getAttribute("rel") === rel)?.getAttribute("href") ?? null;
    return {
      id: textOf(feed, "id"),
      title: textOf(feed, "title"),
      updated: textOf(feed, "updated"),
      self: linkOf(feed, "self"),
      entries: Array.from(feed.children)
        .filter((element) => element.localName === "entry")
        .map((entry) => ({
          id: textOf(entry, "id"),
          title: textOf(entry, "title"),
          updated: textOf(entry, "updated"),
          link: linkOf(entry, "alternate"),
          author: child(entry, "author") ? textOf(child(entry, "author")!, "name") : null,
          summary: textOf(entry, "summary"),
        })),
    };
  }, xml);
}

/** GETs a feed, checks it is Atom, and parses it. */
export async function readFeed(request: APIRequestContext, page: Page, path: string): Promise<{ feed: ParsedFeed; xml: string }> {
  const response = await request.get(path);
  expect(response.status(), `${path}: ${await response.text()}`).toBe(200);
  expect(response.headers()["content-type"]).toBe("application/atom+xml; charset=utf-8");
  const xml = await response.text();
  return { feed: await parseFeed(page, xml), xml };
}

/** Creates (or resets) the signed-in user's feed token on the profile page; answers the token and the feed link shown once. */
export async function resetFeedToken(page: Page): Promise<{ token: string; feedUrl: string }> {
  await page.goto("/profile");
  // Resetting asks for confirmation; creating the first token does not.
  const confirm = (dialog: Dialog) => void dialog.accept();
  page.on("dialog", confirm);
  try {
    await page.getByRole("button", { name: /^(Create|Reset) feed token$/ }).click();
    const token = await page.getByRole("textbox", { name: "Feed token", exact: true }).inputValue();
    const feedUrl = await page.getByRole("textbox", { name: "Activity feed link" }).inputValue();
    return { token, feedUrl };
  } finally {
    page.off("dialog", confirm);
  }
}

export function withToken(path: string, token: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}feed_token=${encodeURIComponent(token)}`;
}

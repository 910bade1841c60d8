/**
 * Activity as an Atom 1.0 feed (RFC 4287), as GitLab offers it to feed readers. Pure: the feed verbs gather the
 * events, this writes them.
 */
import { describeEvent, type FeedEvent } from "./describe";

export interface AtomEntry {
  id: string;
  title: string;
  /** ISO 8601. */
  updated: string;
  link: string;
  author: { name: string; uri: string };
  /** The pushed commit's title or the comment's text. */
  summary: string | null;
}

export interface AtomFeed {
  /** A permanent IRI: the feed's own URL without any token. */
  id: string;
  title: string;
  /** The page the feed mirrors. */
  alternateUrl: string;
  /** The newest entry's time, or the time of the request for an empty feed. */
  updated: string;
  entries: AtomEntry[];
}

export const atomContentType = "application/atom+xml; charset=utf-8";

/** Characters XML 1.0 does not allow at all, not even escaped (control characters other than tab and line breaks). */
const forbiddenInXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(forbiddenInXml, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function element(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}

function link(rel: string, href: string, type: string): string {
  return `<link rel="${rel}" type="${type}" href="${escapeXml(href)}"/>`;
}

function entryXml(entry: AtomEntry): string {
  return [
    "<entry>",
    element("id", entry.id),
    element("title", entry.title),
    element("updated", entry.updated),
    link("alternate", entry.link, "text/html"),
    `<author>${element("name", entry.author.name)}${element("uri", entry.author.uri)}</author>`,
    entry.summary ? `<summary type="text">${escapeXml(entry.summary)}</summary>` : "",
    "</entry>",
  ].join("");
}

export function renderAtom(feed: AtomFeed): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>\n',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    element("id", feed.id),
    element("title", feed.title),
    element("updated", feed.updated),
    link("self", feed.id, "application/atom+xml"),
    link("alternate", feed.alternateUrl, "text/html"),
    ...feed.entries.map(entryXml),
    "</feed>\n",
  ].join("");
}

/**
 * An event as an entry, titled as GitLab titles them (“Alice pushed to branch main at group/project”, “Alice joined
 * group Acme / Platform”). `projectPath` is the event's project (namespace/path), unused for a group's own event;
 * `baseUrl` makes the links absolute.
 */
export function eventEntry(event: FeedEvent, projectPath: string, baseUrl: string): AtomEntry {
  const sentence = describeEvent(event, projectPath);
  const words = sentence.phrases.map((phrase) => phrase.text.trim()).filter(Boolean);
  const where = sentence.group
    ? `group ${sentence.group.fullName}`
    : sentence.projectWording === "project"
      ? `project ${projectPath}`
      : `at ${projectPath}`;
  const targetPath = sentence.phrases.find((phrase) => phrase.href)?.href ?? sentence.group?.href ?? `/${projectPath}`;
  return {
    // A tag URI: an entry keeps its id when its project is renamed or moved.
    id: `tag:${new URL(baseUrl).host},2005:events/${event.id}`,
    title: [event.author.name, ...words, where].join(" "),
    updated: event.created_at,
    link: `${baseUrl}${targetPath}`,
    author: { name: event.author.name, uri: `${baseUrl}/${event.author.username}` },
    summary: sentence.detail,
  };
}

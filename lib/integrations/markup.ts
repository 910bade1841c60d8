/**
 * The text rules GitLab's chat messages go through, rewritten as single passes so no text, however long or odd, costs
 * more than time in proportion to its length (GitLab runs regular expressions that can backtrack):
 *
 * - `slackLinks`: slack-messenger's `LinkFormatter` (GitLab's fork of slack-notifier), HTML `<a href>` and Markdown
 *   `[text](url)` links as Slack's `<url|text>`;
 * - `stripMarkup`: `SlackMarkdownSanitizer.sanitize`, the link markup characters removed from user input;
 * - `escapeSlackLinks`: `SlackMarkdownSanitizer.sanitize_slack_link`, `<url|text>` written by users made inert;
 * - `absoluteUploadLinks`: `BaseMessage#format_relative_links`, image uploads as absolute links.
 *
 * Pure.
 */

const unsafeMarkup = /[<>[\]|]/g;

export function stripMarkup(text: string): string;
export function stripMarkup(text: string | null | undefined): string | null;
export function stripMarkup(text: string | null | undefined): string | null {
  return text == null ? null : text.replace(unsafeMarkup, "");
}

function slackLink(url: string, text: string): string {
  return text === "" ? `<${url}>` : `<${url}|${text}>`;
}

/**
 * For each position, the first index at or after it where `matches` holds on the character, or `text.length`: built
 * backwards in one pass, so each lookup below is constant time.
 */
function nextIndexWhere(text: string, matches: (code: number, index: number) => boolean): Int32Array {
  const next = new Int32Array(text.length + 1);
  next[text.length] = text.length;
  for (let index = text.length - 1; index >= 0; index--) next[index] = matches(text.charCodeAt(index), index) ? index : next[index + 1]!;
  return next;
}

const newline = 10;
const isQuote = (code: number) => code === 34 || code === 39;

/**
 * The `HTML_PATTERN` (`<a(?:.*?)href=['"](.+?)['"](?:.*?)>(.+?)</a>`, on one line): from each `<a`, the
 * first `href=` with a quote, the URL up to the next quote (at least one character), the first `>` after it and the
 * text up to the first `</a>` (at least one character). A later quote or `>` could only push the `</a>` further, so the
 * first of each is the one the expression settles on; a start that fails leaves the text as it is.
 */
function htmlLinks(text: string): string {
  if (!text.includes("<a")) return text;
  const lineEnd = nextIndexWhere(text, (code) => code === newline);
  const href = nextIndexWhere(text, (_, index) => text.startsWith("href=", index) && isQuote(text.charCodeAt(index + 5)));
  const quote = nextIndexWhere(text, isQuote);
  const closingAngle = nextIndexWhere(text, (code) => code === 62);
  const closingTag = nextIndexWhere(text, (code, index) => code === 60 && text.startsWith("</a>", index));
  let result = "";
  let copied = 0;
  let start = text.indexOf("<a");
  while (start !== -1) {
    const end = lineEnd[start]!;
    const hrefAt = href[start + 2]!;
    const urlEnd = hrefAt < end ? quote[Math.min(hrefAt + 7, text.length)]! : text.length;
    const angle = urlEnd < end ? closingAngle[urlEnd + 1]! : text.length;
    const close = angle < end ? closingTag[Math.min(angle + 2, text.length)]! : text.length;
    if (close < end) {
      result += text.slice(copied, start) + slackLink(text.slice(hrefAt + 6, urlEnd), text.slice(angle + 1, close));
      copied = close + 4;
      start = text.indexOf("<a", copied);
    } else {
      start = text.indexOf("<a", start + 1);
    }
  }
  return result + text.slice(copied);
}

/** Characters a link's URL may hold (`VALID_URI_CHARS`, `\w` as Ruby reads it: ASCII); parentheses only paired, once. */
const uriCharacters = new Set([..."_-.~:/?#[]@!$&'*+,;="].map((character) => character.charCodeAt(0)));
function isUriChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || uriCharacters.has(code);
}

/**
 * slack-messenger's `MARKDOWN_PATTERN` (`\[([^\[\]]*?)\]\(((?:https?://|mailto:)(?:[uri]*?|[uri]*?\([uri]*?\)[uri]*?))\)`):
 * from each `[`, the text up to the next `]` (no `[` in between), then `(`, a URL starting `http://`, `https://` or
 * `mailto:` made of URI characters with at most one pair of parentheses, and `)`. Parentheses are not URI characters,
 * so each run of them ends where the expression must find the next parenthesis: one answer per start.
 */
function markdownLinks(text: string): string {
  if (!text.includes("](")) return text;
  const bracket = nextIndexWhere(text, (code) => code === 91 || code === 93);
  const runEnd = nextIndexWhere(text, (code) => !isUriChar(code));
  const at = (index: number) => text.charCodeAt(index);
  /** Where the URL starting at `from` ends (its closing `)`), or -1. */
  const urlEnd = (from: number): number => {
    const run = runEnd[from]!;
    if (at(run) === 41) return run;
    if (at(run) !== 40) return -1;
    const inner = runEnd[run + 1]!;
    if (at(inner) !== 41) return -1;
    const after = runEnd[inner + 1]!;
    return at(after) === 41 ? after : -1;
  };
  let result = "";
  let copied = 0;
  let start = text.indexOf("[");
  while (start !== -1) {
    const close = bracket[start + 1]!;
    let matched = false;
    if (close < text.length && at(close) === 93 && at(close + 1) === 40) {
      const urlStart = close + 2;
      const scheme = ["https://", "http://", "mailto:"].find((prefix) => text.startsWith(prefix, urlStart));
      const end = scheme ? urlEnd(urlStart + scheme.length) : -1;
      if (end !== -1) {
        result += text.slice(copied, start) + slackLink(text.slice(urlStart, end), text.slice(start + 1, close));
        copied = end + 1;
        matched = true;
      }
    }
    start = text.indexOf("[", matched ? copied : start + 1);
  }
  return result + text.slice(copied);
}

/** `Slack::Messenger::Util::LinkFormatter.format`: HTML links, then Markdown links, as Slack links. */
export function slackLinks(text: string): string {
  return markdownLinks(htmlLinks(text));
}

/**
 * `sanitize_slack_link`: a `<…|…>` a user wrote (no `<`, `>` or `|` inside but the one bar) is shown as text rather
 * than taken as a link, its angle brackets escaped.
 */
export function escapeSlackLinks(text: string): string {
  if (!text.includes("<")) return text;
  const special = nextIndexWhere(text, (code) => code === 60 || code === 62 || code === 124);
  let result = "";
  let copied = 0;
  let start = text.indexOf("<");
  while (start !== -1) {
    const bar = special[start + 1]!;
    const end = bar < text.length && text.charCodeAt(bar) === 124 ? special[bar + 1]! : text.length;
    if (end < text.length && text.charCodeAt(end) === 62) {
      result += `${text.slice(copied, start)}&lt;${text.slice(start + 1, end)}&gt;`;
      copied = end + 1;
      start = text.indexOf("<", copied);
    } else {
      start = text.indexOf("<", start + 1);
    }
  }
  return result + text.slice(copied);
}

/** `format_relative_links`: `![alt](/uploads/…)` becomes the upload's absolute URL under the project. */
export function absoluteUploadLinks(text: string, projectUrl: string): string {
  if (!text.includes("](/uploads/")) return text;
  const closeBracket = nextIndexWhere(text, (code) => code === 93);
  const closeParen = nextIndexWhere(text, (code) => code === 41);
  let result = "";
  let copied = 0;
  let start = text.indexOf("![");
  while (start !== -1) {
    const close = closeBracket[start + 2]!;
    const pathEnd = close < text.length && text.startsWith("](/uploads/", close) ? closeParen[close + 11]! : text.length;
    if (pathEnd < text.length) {
      result += text.slice(copied, start) + projectUrl + text.slice(close + 2, pathEnd);
      copied = pathEnd + 1;
      start = text.indexOf("![", copied);
    } else {
      start = text.indexOf("![", start + 1);
    }
  }
  return result + text.slice(copied);
}

import { absoluteUploadLinks, escapeSlackLinks, slackLinks, stripMarkup } from "./markup";

/**
 * GitLab's chat messages (`Integrations::ChatMessage::IssueMessage`, `NoteMessage`, `PushMessage`, `AlertMessage`),
 * built from the hook data of the event, as GitLab builds them from its `*_hooks` data: the same words, links and
 * colours. Slack, Mattermost and Google Chat get Slack's link syntax (`<url|text>`); Discord and Microsoft Teams get
 * Markdown (`markdown`). Whatever a user wrote is stripped of link markup before it goes inside our own links. Pure.
 */

/** What a message is built from besides the event's data: the project as GitLab names it (`full_name`, `web_url`). */
export interface MessageOptions {
  projectName: string;
  projectUrl: string;
  markdown: boolean;
}

/** An attachment of a Slack message (`attachments[]`), as GitLab fills it. */
export interface SlackAttachment {
  title?: string;
  title_link?: string;
  text?: string;
  color: string;
  fields?: { title: string; value: string | number; short: boolean }[];
}

/** The card Microsoft Teams shows (`activity`). */
export interface Activity {
  title: string;
  subtitle: string;
  text: string;
  image: string | null;
}

export interface ChatMessage {
  /** The message's line (Slack's `text`). */
  pretext: string;
  fallback: string;
  /** Slack attachments; with Markdown, the details as text (or none: an empty list). */
  attachments: SlackAttachment[] | string;
  /** None for alerts, which GitLab sends to Slack only. */
  activity: Activity | null;
  /** The colour Discord shows, where GitLab's message makes it public (issues and pushes). */
  color: string | null;
  userName: string | null;
  userAvatar: string | null;
  projectName: string;
  /** Google Chat's thread for the message's subject. */
  threadKey: string | null;
}

interface HookUser {
  name: string;
  username: string;
  avatar_url: string | null;
}

interface HookLabel {
  title: string;
}

export interface IssueMessageData {
  object_kind: string;
  user: HookUser;
  object_attributes: { title: string; iid: number; url: string; action?: string; state: string; description: string | null; type?: string | null };
  labels: HookLabel[];
}

export interface NoteMessageData {
  user: HookUser;
  object_attributes: { note: string; url: string };
  issue: { iid: number; title: string; labels: HookLabel[] };
}

export interface PushMessageData {
  before: string;
  after: string;
  ref: string;
  user_name: string;
  user_avatar: string | null;
  commits: { id: string; title: string; url: string; author: { name: string } }[];
}

export interface AlertMessageData {
  object_attributes: { title: string; url: string; severity: string; events: number; status: string; started_at: string };
}

const issueColor = "#C95823";
const defaultColor = "#334455";

function link(text: string, url: string): string {
  return `[${stripMarkup(text)}](${url})`;
}

/** `BaseMessage#format`: upload images as absolute links, then links in Slack's syntax. */
function format(text: string, projectUrl: string): string {
  return slackLinks(absoluteUploadLinks(text, projectUrl));
}

function combinedName(user: { name: string | null; username: string | null }): string {
  return user.name ? `${user.name} (${user.username ?? ""})` : (user.username ?? "");
}

/** `String#humanize` for one lowercase word or snake_case words: `triggered` → `Triggered`. */
function humanize(word: string): string {
  const spaced = word.replace(/_/g, " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function ordinal(day: number): string {
  if (day % 100 >= 11 && day % 100 <= 13) return `${day}th`;
  return `${day}${{ 1: "st", 2: "nd", 3: "rd" }[day % 10] ?? "th"}`;
}

const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** GitLab's alert start time, `strftime("%B #{day.ordinalize}, %Y %l:%M%p %Z")` in UTC: `April 23rd, 2020  1:06AM UTC`. */
export function alertStartTime(iso: string): string {
  const time = new Date(iso);
  const hour = time.getUTCHours() % 12 || 12;
  const minutes = String(time.getUTCMinutes()).padStart(2, "0");
  return `${months[time.getUTCMonth()]} ${ordinal(time.getUTCDate())}, ${time.getUTCFullYear()} ${String(hour).padStart(2, " ")}:${minutes}${time.getUTCHours() < 12 ? "AM" : "PM"} UTC`;
}

/** What every message shows the same way: the line itself, formatted unless the service reads Markdown. */
function lines(message: string, options: MessageOptions, formatted = format(message, options.projectUrl)) {
  return { pretext: options.markdown ? message : formatted, fallback: formatted, projectName: options.projectName };
}

/** `IssueMessage`: an issue (or incident) opened, closed or reopened; an opened one carries its description. */
export function issueMessage(data: IssueMessageData, options: MessageOptions): ChatMessage {
  const attributes = data.object_attributes;
  const user = combinedName(data.user);
  const issueType = attributes.type || (data.object_kind === "incident" ? "Incident" : "Issue");
  const issueTitle = `#${attributes.iid} ${stripMarkup(attributes.title)}`;
  const issueLink = link(issueTitle, attributes.url);
  const projectLink = options.projectName === "" ? null : link(options.projectName, options.projectUrl);
  const message = `${projectLink ? `[${projectLink}] ` : ""}${issueType} ${issueLink} ${attributes.state} by ${stripMarkup(user)}`;
  const description = escapeSlackLinks(attributes.description ?? "");
  const opened = attributes.action === "open";
  return {
    ...lines(message, options),
    attachments: !opened
      ? []
      : options.markdown
        ? description
        : [{ title: issueTitle, title_link: attributes.url, text: format(description, options.projectUrl), color: issueColor }],
    activity: {
      title: `${issueType} ${attributes.state} by ${stripMarkup(user)}`,
      subtitle: projectLink ? `in ${projectLink}` : "",
      text: issueLink,
      image: data.user.avatar_url,
    },
    color: issueColor,
    userName: data.user.username,
    userAvatar: data.user.avatar_url,
    threadKey: `issue ${options.projectName}#${attributes.iid}`,
  };
}

/** Ruby's `lines.first.chomp`: the first line without its line break. */
function firstLine(text: string): string {
  const end = text.indexOf("\n");
  const line = end === -1 ? text : text.slice(0, end + 1);
  return line.replace(/(\r\n|\n|\r)$/, "");
}

/** `NoteMessage`: a comment on an issue, with the issue's title and the comment. */
export function noteMessage(data: NoteMessageData, options: MessageOptions): ChatMessage {
  const user = stripMarkup(combinedName(data.user));
  const target = `issue #${data.issue.iid}`;
  const commented = link(`commented on ${target}`, data.object_attributes.url);
  const projectLink = link(options.projectName, options.projectUrl);
  const title = stripMarkup(firstLine(data.issue.title));
  const note = data.object_attributes.note;
  return {
    ...lines(`${user} ${commented} in ${projectLink}: *${title}*`, options),
    attachments: options.markdown ? note : [{ text: format(note, options.projectUrl), color: defaultColor }],
    activity: { title: `${user} ${commented}`, subtitle: `in ${projectLink}`, text: title, image: data.user.avatar_url },
    color: null,
    userName: data.user.username,
    userAvatar: data.user.avatar_url,
    threadKey: target,
  };
}

const isBlank = (sha: string) => /^0+$/.test(sha);

/** `Gitlab::Git.ref_name`. */
function refName(ref: string): string {
  return ref.replace(/^refs\/(tags|heads|remotes)\//, "");
}

/** `PushMessage`: a push or tag push; pushed commits (not a new or removed ref's) listed with their links. */
export function pushMessage(data: PushMessageData, options: MessageOptions): ChatMessage {
  const refType = data.ref.startsWith("refs/tags/") ? "tag" : "branch";
  const ref = refName(data.ref);
  const projectUrl = options.projectUrl;
  const refLink = link(ref, refType === "tag" ? `${projectUrl}/-/tags/${ref}` : `${projectUrl}/-/commits/${ref}`);
  const projectLink = link(options.projectName, projectUrl);
  const compareLink = link("Compare changes", `${projectUrl}/-/compare/${data.before}...${data.after}`);
  const user = stripMarkup(data.user_name);
  const newRef = isBlank(data.before);
  const removedRef = isBlank(data.after);
  const [action, shownRef, target] = newRef
    ? ["pushed new", refLink, `to ${projectLink}`]
    : removedRef
      ? ["removed", ref, `from ${projectLink}`]
      : ["pushed to", refLink, `of ${projectLink} (${compareLink})`];
  const short = [user, action, refType, shownRef].join(" ");
  const message = `${short} ${target}`;
  const commits = data.commits.map((commit) => `${link(commit.id.slice(0, 8), commit.url)}: ${stripMarkup(commit.title)} - ${stripMarkup(commit.author.name)}`).join("\n\n");
  return {
    ...lines(message, options, slackLinks(message)),
    attachments: newRef || removedRef ? [] : options.markdown ? commits : [{ text: slackLinks(commits), color: defaultColor }],
    activity: { title: short, subtitle: `in ${projectLink}`, text: compareLink, image: data.user_avatar },
    color: defaultColor,
    userName: data.user_name,
    userAvatar: data.user_avatar,
    threadKey: `push ${options.projectName}_${ref}`,
  };
}

/** `AlertMessage`: a new alert, with its severity, events, status and start time. */
export function alertMessage(data: AlertMessageData, options: MessageOptions): ChatMessage {
  const alert = data.object_attributes;
  return {
    ...lines(`Alert firing in ${stripMarkup(options.projectName)}`, options),
    attachments: [
      {
        title: stripMarkup(alert.title),
        title_link: alert.url,
        color: issueColor,
        fields: [
          { title: "Severity", value: humanize(alert.severity), short: true },
          { title: "Events", value: alert.events, short: true },
          { title: "Status", value: humanize(alert.status), short: true },
          { title: "Start time", value: alertStartTime(alert.started_at), short: true },
        ],
      },
    ],
    activity: null,
    color: null,
    userName: null,
    userAvatar: null,
    threadKey: null,
  };
}

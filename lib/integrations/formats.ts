import type { ChatIntegrationType } from "@/lib/db/schema/integrations";
import { slackLinks } from "./markup";
import type { ChatMessage, SlackAttachment } from "./messages";

/**
 * What each service's incoming webhook is sent for a message, as GitLab's notifiers send it:
 * - Slack and Mattermost: slack-notifier's form post, `payload=<json>` with `text`, `attachments`, `fallback`, and the
 *   channel and username when set; one post per channel (`SlackMattermostNotifier`);
 * - Discord: a JSON embed (`Integrations::Base::Discord#notify`);
 * - Microsoft Teams: a JSON Adaptive Card (`MicrosoftTeams::Notifier`, `MicrosoftTeams::Activity`);
 * - Google Chat: JSON `{text, thread}`, with the reply option in the URL (`Integrations::Base::HangoutsChat#notify`).
 * Pure.
 */

export interface ChatRequest {
  contentType: "application/json" | "application/x-www-form-urlencoded";
  body: string;
  /** Parameters added to the webhook's URL. */
  query?: Record<string, string>;
}

/** Whether the service reads Markdown (GitLab merges `markdown: true` into their data). */
export function readsMarkdown(type: ChatIntegrationType): boolean {
  return type === "discord" || type === "microsoft_teams";
}

const wrapped = (attachments: SlackAttachment[] | string): (SlackAttachment | string)[] => (Array.isArray(attachments) ? attachments : attachments === "" ? [] : [attachments]);

/** slack-notifier's middleware: links in the text and in each attachment's text, in Slack's syntax. */
function slackPayload(message: ChatMessage, settings: { channel: string | null; username: string | null }) {
  const attachments = (Array.isArray(message.attachments) ? message.attachments : []).map((attachment) =>
    attachment.text === undefined ? attachment : { ...attachment, text: slackLinks(attachment.text) },
  );
  return {
    ...(settings.channel !== null ? { channel: settings.channel } : {}),
    ...(settings.username !== null ? { username: settings.username } : {}),
    attachments,
    fallback: message.fallback,
    text: slackLinks(message.pretext),
  };
}

const discordColorOverrides: Record<string, string> = { good: "#0d532a", warning: "#703800", danger: "#8d1300" };

/** Discord's embed colour: the message's own, else GitLab's orange; `#abc` as `#aabbcc`. */
function discordColor(color: string | null): number {
  if (color === null) return 0xfc6d26;
  const hex = (discordColorOverrides[color] ?? color).replace(/^#/, "");
  const full = hex.length === 3 ? hex.replace(/(.)/g, "$1$1") : hex;
  return parseInt(full, 16);
}

/**
 * Discord's `ATTACHMENT_REGEX` replacement, `': (?<entry>[^\n]*)\n - (?<name>[^\n]*)\n*'` → `' entry - name\n'`, line
 * by line: a line with `: ` followed by a line starting ` - ` become one.
 */
function joinListedEntries(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let joined = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const colon = line.indexOf(": ");
    const next = lines[index + 1];
    if (colon !== -1 && next !== undefined && next.startsWith(" - ")) {
      out.push(`${line.slice(0, colon)} ${line.slice(colon + 2)} - ${next.slice(3)}`);
      index += 1;
      // The replacement ends with one line break, whatever number of them it swallowed (none, at the very end).
      while (index + 1 < lines.length - 1 && lines[index + 1] === "") index += 1;
      if (index === lines.length - 1) out.push("");
      joined = true;
      continue;
    }
    out.push(line);
  }
  return joined ? out.join("\n") : text;
}

function discordPayload(message: ChatMessage, now: Date) {
  const description = `${message.pretext}\n${wrapped(message.attachments).join("\n")}`;
  return {
    content: "",
    embeds: [
      {
        color: discordColor(message.color),
        timestamp: `${now.toISOString().slice(0, 19)}Z`,
        author: { name: message.userName, icon_url: message.userAvatar },
        description: joinListedEntries(description),
      },
    ],
  };
}

function teamsPayload(message: ChatMessage, activity: NonNullable<ChatMessage["activity"]>) {
  const attachments = wrapped(message.attachments);
  const body: Record<string, unknown>[] = [
    { type: "TextBlock", text: message.projectName, weight: "bolder", size: "medium" },
    {
      type: "ColumnSet",
      columns: [
        { type: "Column", width: "auto", items: [{ type: "Image", url: activity.image, size: "medium" }] },
        {
          type: "Column",
          width: "stretch",
          items: [
            { type: "TextBlock", text: activity.title, weight: "bolder", wrap: true },
            { type: "TextBlock", text: activity.subtitle, isSubtle: true, wrap: true },
            { type: "TextBlock", text: activity.text, wrap: true },
          ],
        },
      ],
    },
  ];
  if (attachments.length > 0) body.push({ type: "TextBlock", text: typeof message.attachments === "string" ? message.attachments : attachments, wrap: true });
  return {
    type: "message",
    attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", content: { type: "AdaptiveCard", msteams: { width: "Full" }, version: "1.0", body } }],
  };
}

/** Google Chat's text: the line, then the first attachment's title (linked) and text. */
function googleChatText(message: ChatMessage): string {
  const [attachment] = Array.isArray(message.attachments) ? message.attachments : [];
  if (!attachment) return message.pretext;
  const title = attachment.title === undefined ? undefined : attachment.title_link ? `<${attachment.title_link}|${attachment.title}>` : attachment.title;
  return [message.pretext, title, attachment.text].filter((part) => part !== undefined).join("\n");
}

/** Google Chat answers in the message's thread when it has one, else opens one (`REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`). */
const googleChatQuery = { messageReplyOption: "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" };

/**
 * The requests that deliver `message` through an integration of `type`: one per channel for Slack and Mattermost
 * (one without a channel when none is set), one otherwise. `now` is the moment Discord's embed shows.
 */
export function chatRequests(
  type: ChatIntegrationType,
  message: ChatMessage,
  settings: { channels: string[]; username: string | null; now: Date },
): ChatRequest[] {
  switch (type) {
    case "slack":
    case "mattermost": {
      const channels = settings.channels.length > 0 ? settings.channels : [null];
      return channels.map((channel) => ({
        contentType: "application/x-www-form-urlencoded",
        body: new URLSearchParams({ payload: JSON.stringify(slackPayload(message, { channel, username: settings.username })) }).toString(),
      }));
    }
    case "discord":
      return [{ contentType: "application/json", body: JSON.stringify(discordPayload(message, settings.now)) }];
    case "microsoft_teams":
      // The card is the message's activity, which alerts have none of (GitLab sends them to Slack only).
      return message.activity ? [{ contentType: "application/json", body: JSON.stringify(teamsPayload(message, message.activity)) }] : [];
    case "hangouts_chat": {
      const payload = { text: googleChatText(message), ...(message.threadKey ? { thread: { threadKey: message.threadKey } } : {}) };
      return [{ contentType: "application/json", body: JSON.stringify(payload), query: googleChatQuery }];
    }
  }
}

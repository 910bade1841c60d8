import type { ChatProperties } from "@/lib/db/schema/integrations";
import { channelProperty, type ChatEvent } from "./catalog";

/**
 * The channels an event goes to (`channels_for_event`): its own channels, else the default channel, comma-separated,
 * each once. A confidential issue or comment without channels of its own goes where public ones go. Pure.
 */
export function channelsFor(properties: ChatProperties, event: ChatEvent): string[] {
  const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : null);
  const own =
    text(properties[channelProperty(event)]) ??
    (event === "confidential_issue" ? text(properties.issue_channel) : event === "confidential_note" ? text(properties.note_channel) : null);
  const names = own ?? text(properties.channel);
  if (names === null) return [];
  return [...new Set(names.split(",").map((name) => name.trim()))];
}

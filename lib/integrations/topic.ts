/** The outbox topic of chat notifications. */
export const chatNotificationTopic = "chat_notification";

/** An integration's messages go out in the order they were written. */
export function integrationOrderingKey(integrationId: number): string {
  return `${chatNotificationTopic}:${integrationId}`;
}

import { expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { serverLogFile } from "./constants";

interface MailedEntry {
  subject: string;
  link?: string;
}

/**
 * What the e2e server "mailed" to `recipient`, oldest first. The e2e servers have no SMTP_URL, so each message is one
 * structured line in the server's log: `{"mail":{"to":…,"subject":…,"link":…},…}` (a notification has no link).
 */
function mailedTo(projectName: string, recipient: string): MailedEntry[] {
  const entries: MailedEntry[] = [];
  for (const line of readFileSync(serverLogFile(projectName), "utf8").split("\n")) {
    if (!line.includes('"mail":')) continue;
    const entry = JSON.parse(line) as { mail?: { to?: string; subject?: string; link?: string } };
    if (entry.mail?.to === recipient.toLowerCase() && entry.mail.subject !== undefined) entries.push({ subject: entry.mail.subject, link: entry.mail.link });
  }
  return entries;
}

/** The links the e2e server mailed to `recipient`, oldest first. */
export function mailedLinks(projectName: string, recipient: string): string[] {
  return mailedTo(projectName, recipient).flatMap((entry) => (entry.link ? [entry.link] : []));
}

/** The subjects of what the e2e server mailed to `recipient`, oldest first. */
export function mailedSubjects(projectName: string, recipient: string): string[] {
  return mailedTo(projectName, recipient).map((entry) => entry.subject);
}

/** Waits until `recipient` has been sent `count` links and returns the newest, as a path on the test server. */
export async function waitForMailedLink(projectName: string, recipient: string, count = 1): Promise<string> {
  await expect.poll(() => mailedLinks(projectName, recipient).length, { message: `links mailed to ${recipient}` }).toBeGreaterThanOrEqual(count);
  const link = new URL(mailedLinks(projectName, recipient)[count - 1]!);
  return `${link.pathname}${link.search}`;
}

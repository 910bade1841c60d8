import { expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { serverLogFile } from "./constants";

/**
 * The links the e2e server "mailed" to `recipient`, oldest first. The e2e servers have no SMTP_URL, so each message
 * is one structured line in the server's log: `{"mail":{"to":…,"subject":…,"link":…},…}`.
 */
export function mailedLinks(projectName: string, recipient: string): string[] {
  const links: string[] = [];
  for (const line of readFileSync(serverLogFile(projectName), "utf8").split("\n")) {
    if (!line.includes('"mail":')) continue;
    const entry = JSON.parse(line) as { mail?: { to?: string; link?: string } };
    if (entry.mail?.to === recipient.toLowerCase() && entry.mail.link) links.push(entry.mail.link);
  }
  return links;
}

/** Waits until `recipient` has been sent `count` links and returns the newest, as a path on the test server. */
export async function waitForMailedLink(projectName: string, recipient: string, count = 1): Promise<string> {
  await expect.poll(() => mailedLinks(projectName, recipient).length, { message: `links mailed to ${recipient}` }).toBeGreaterThanOrEqual(count);
  const link = new URL(mailedLinks(projectName, recipient)[count - 1]!);
  return `${link.pathname}${link.search}`;
}

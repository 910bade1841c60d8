import "server-only";
import type { Executor } from "@/lib/db";
import { alertNotes } from "@/lib/db/schema";

/** A system note in the alert's timeline (what changed, by whom), as GitLab's `SystemNoteService` writes for alerts. */
export async function addSystemNote(tx: Executor, alertId: number, body: string, now: Date, authorId: number | null): Promise<void> {
  await tx.insert(alertNotes).values({ alertId, authorId, body, system: true, createdAt: now });
}

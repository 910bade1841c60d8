import type { FieldPath, FieldValues, UseFormSetError } from "react-hook-form";

/**
 * Puts a server action's per-field errors next to their inputs. Returns the messages for fields this form does not
 * show, so the caller can display them in its notice instead of losing them.
 */
export function applyFieldErrors<T extends FieldValues>(
  fieldErrors: Record<string, string[]> | undefined,
  setError: UseFormSetError<T>,
  fields: readonly FieldPath<T>[],
): string {
  const unplaced: string[] = [];
  for (const [field, messages] of Object.entries(fieldErrors ?? {})) {
    if ((fields as readonly string[]).includes(field)) setError(field as FieldPath<T>, { type: "server", message: messages.join(" ") });
    else unplaced.push(...messages);
  }
  return unplaced.join(" ");
}

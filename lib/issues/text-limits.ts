import { longerThan, requiredTextProblem, tooLong } from "@/lib/text-rules";

/**
 * How long descriptions and comments may be: GitLab's limits (`Issuable::DESCRIPTION_LENGTH_MAX`, one megabyte, and
 * `Gitlab::Database::MAX_TEXT_SIZE_LIMIT` for notes), in characters as GitLab counts them. Pure: the page forms check
 * the same rules in the browser.
 */
export const maxDescriptionLength = 1_048_576;
export const maxNoteLength = 1_000_000;

/**
 * The request body the endpoints that take these texts read (the API's other endpoints read 1 MiB): room for the
 * longest description in UTF-8 JSON or a form, whatever its script, with the other parameters.
 */
export const maxTextRequestBytes = 4 * 1024 * 1024;

/** How long an issue's or a milestone's title may be (GitLab's `Issuable` and `Milestone` validations). */
export const maxTitleLength = 255;

/**
 * GitLab's validation message for an issue's or a milestone's title, or null when it may be saved: the title as it is
 * stored, with surrounding whitespace stripped (GitLab's `strip_attributes!`), must be present and at most 255
 * characters.
 */
export function titleProblem(title: string): string | null {
  return requiredTextProblem(title.trim(), maxTitleLength);
}

/** GitLab's validation message for a description, or null when it may be saved. */
export function descriptionProblem(description: string | null | undefined): string | null {
  return description && longerThan(description, maxDescriptionLength) ? tooLong(maxDescriptionLength) : null;
}

/** GitLab's validation message for a note's body, or null when it may be saved. */
export function noteBodyProblem(body: string): string | null {
  return requiredTextProblem(body, maxNoteLength);
}

/**
 * GitLab's length rules for text people type, with its validation messages (Rails' `presence` and `length`), counted
 * as GitLab counts characters. Pure: page forms check the same rules in the browser.
 */

/**
 * Whether `text` has more than `limit` characters, counted as Ruby counts them (code points: an emoji is one, where
 * JavaScript's `length` counts two). Only texts longer than the limit in code units are counted, in one pass.
 */
export function longerThan(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let characters = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const secondHalfOfPair = unit >= 0xdc00 && unit <= 0xdfff && index > 0 && text.charCodeAt(index - 1) >= 0xd800 && text.charCodeAt(index - 1) <= 0xdbff;
    if (!secondHalfOfPair) characters += 1;
  }
  return characters > limit;
}

/** How long a name or a path may be: GitLab's limit for users', projects', groups', tokens' and applications' names. */
export const maxNameLength = 255;

export function tooLong(limit: number): string {
  return `is too long (maximum is ${limit} characters)`;
}

/**
 * The message for a text that must be present (not only whitespace) and at most `limit` characters long, or null when
 * it may be saved. `text` is measured as it will be stored: a caller that strips it passes it stripped.
 */
export function requiredTextProblem(text: string, limit: number): string | null {
  if (text.trim() === "") return "can't be blank";
  return longerThan(text, limit) ? tooLong(limit) : null;
}

/** Labels' rules as GitLab has them (`BaseLabel`, `Gitlab::Color`); pure, so forms and tests share them. */

import { titleProblem } from "./text-limits";

/** The colour GitLab gives a label nobody chose one for (one created by naming it on an issue). */
export const defaultLabelColor = "#6699cc";

const colorPattern = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** A colour as stored and shown (`#RGB` or `#RRGGBB`, surrounding spaces dropped), or null when it is not one. */
export function normalizeLabelColor(color: string): string | null {
  const trimmed = color.trim();
  return colorPattern.test(trimmed) ? trimmed : null;
}

/** The text colour that reads on a label's background: dark on light colours (channels summing over 500), else white. */
export function labelTextColor(color: string): string {
  const hex = color.slice(1);
  const channels = hex.length === 3 ? [...hex].map((digit) => parseInt(digit + digit, 16)) : [0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return channels.reduce((sum, channel) => sum + channel, 0) > 500 ? "#1F1E24" : "#FFFFFF";
}

/** What is wrong with a label title (surrounding spaces dropped first), in GitLab's words; undefined if nothing. */
export function labelTitleProblem(title: string): string | undefined {
  // Commas separate names in every label list, so no name may hold one; otherwise a label's title is held to the
  // rule of issue and milestone titles.
  if (title.trim() !== "" && title.includes(",")) return "is invalid";
  return titleProblem(title) ?? undefined;
}

/**
 * Label names as issues take them: a comma list or an array (whose items may be comma lists too), each name trimmed,
 * blanks and repeats dropped, as GitLab's `CommaSeparatedToArray` and `find_or_create_by_titles` read them.
 */
export function splitLabelNames(names: readonly string[]): string[] {
  return [...new Set(names.flatMap((name) => name.split(",")).map((name) => name.trim()).filter((name) => name !== ""))];
}

/** Label names in the order GitLab lists them on an issue: by code point, as Ruby sorts strings. */
export function sortByTitle<T extends { title: string }>(labels: readonly T[]): T[] {
  return [...labels].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
}

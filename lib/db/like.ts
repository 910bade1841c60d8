import { and, ilike, or, type Column, type SQL } from "drizzle-orm";
import { ParameterError } from "@/lib/errors";
import { searchProblem } from "./search-limits";

/** A search within GitLab's bounds (`searchLimits`), else 400 `search is too long…` / `search has too many terms…`. */
function bounded(query: string): string {
  const problem = searchProblem(query);
  if (problem) throw new ParameterError("search", problem);
  return query;
}

/** `text` with its `%`, `_` and `\` escaped, so an ILIKE pattern built from it matches them literally. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** An ILIKE pattern matching values that contain `text` literally (its `%`, `_` and `\` lose their meaning). */
export function containsPattern(text: string): string {
  return `%${escapeLike(bounded(text))}%`;
}

/**
 * The words of a search as GitLab picks them (`Gitlab::SQL::Pattern.select_fuzzy_words`): `"quoted phrases"` stay
 * whole, the rest splits on whitespace, and words shorter than `minimumLength` are dropped.
 */
export function fuzzyWords(query: string, minimumLength: number): string[] {
  const quoted = [...query.matchAll(/(?<=^| )"[^"]+"(?= |$)/g)].map((match) => match[0]);
  const rest = quoted.reduce((remaining, phrase) => remaining.replace(phrase, ""), query);
  const words = [...rest.split(/\s+/).filter((word) => word !== ""), ...quoted.map((phrase) => phrase.slice(1, -1))];
  return words.filter((word) => word.length >= minimumLength);
}

/**
 * GitLab's `fuzzy_search` over `columns`: a row matches when one column contains every word of the query (any case);
 * a query with no word long enough must equal a column whole, ignoring case. Undefined for a blank query.
 */
export function fuzzySearch(columns: readonly (Column | SQL)[], query: string, { minimumLength = 3 } = {}): SQL | undefined {
  const squished = bounded(query).trim().replace(/\s+/g, " ");
  if (squished === "") return undefined;
  const words = fuzzyWords(squished, minimumLength);
  return or(
    ...columns.map((column) =>
      words.length > 0 ? and(...words.map((word) => ilike(column, containsPattern(word)))) : ilike(column, escapeLike(squished)),
    ),
  );
}

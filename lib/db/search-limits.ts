/**
 * GitLab's bounds on a search string (`Gitlab::Search::Params`: SEARCH_CHAR_LIMIT and SEARCH_TERM_LIMIT): every word
 * of three characters or more is matched against each searched column, so a search may be this long and have this
 * many such words, and one request cannot make the database match a table thousands of times over. Pure: parameter
 * types and the SQL helpers both use it.
 */
export const searchLimits = { characters: 4096, terms: 64 } as const;

/** Why a search is refused, in GitLab's words after the parameter's name, or null when it is within the bounds. */
export function searchProblem(query: string): string | null {
  if (query.length > searchLimits.characters) return `is too long (maximum is ${searchLimits.characters} characters)`;
  const terms = query.split(/\s+/).filter((word) => word.length >= 3).length;
  if (terms > searchLimits.terms) return `has too many terms (maximum is ${searchLimits.terms} terms)`;
  return null;
}

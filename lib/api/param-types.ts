import { z } from "zod";
import { searchProblem } from "@/lib/db/search-limits";

/**
 * Parameter types that accept what GitLab clients send: JSON values, or the strings of query strings and forms.
 * Pure: no server imports, so forms may share them.
 */

/**
 * The range of PostgreSQL's `integer` columns, which hold every id, iid, level and count except events' ids. The
 * database refuses to compare such a column with a value beyond it, so parameters stop there.
 */
export const integerColumnRange = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/** The largest value of a `bigint` column (events' ids). */
const bigintColumnMax = 9_223_372_036_854_775_807n;

/** An id no row has (ids start at 1): what a path segment that can name no row stands for. */
export const noSuchId = 0;

const integerText = /^-?\d+$/;

/**
 * An integer parameter, as a JSON number or decimal text, within the integer column's range: beyond it, as anything
 * that is not an integer, the parameter "is invalid" (400).
 */
const integerInColumnRange = z.number().int().min(integerColumnRange.min).max(integerColumnRange.max);
const integerFromText = z.string().regex(integerText).transform(Number).pipe(integerInColumnRange);
export const integerParam = z.union([integerInColumnRange, integerFromText]);

export const positiveIntegerParam = integerParam.pipe(z.number().int().min(1));

/**
 * An event id in a parameter (`id_before`, `id_after`): events' ids are `bigint`, so anything from 1 to the column's
 * largest value is valid. Ids are read as JavaScript numbers, exact up to 2^53 − 1, which no event id reaches; a
 * larger parameter is taken as 2^53 − 1, which stands above every event just as it does.
 */
export const eventIdParam = z
  .string()
  .regex(integerText)
  .transform((text, context) => {
    const id = BigInt(text);
    if (id < 1n || id > bigintColumnMax) {
      context.addIssue({ code: "custom", message: "is invalid" });
      return z.NEVER;
    }
    return id > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(id);
  });

/**
 * An id in a path (`/users/:id`, `…/issues/:issue_iid`): any decimal integer, as GitLab's `type: Integer` path
 * parameters take it (anything else is a 400). One that no row can have (zero, negative, or beyond the integer
 * column's range) becomes `noSuchId`, so the route answers the 404 it gives for any id that names nothing, after the
 * checks that come before it (a missing project's 404 first).
 */
export const idSegment = z.string().regex(integerText).transform((text) => idNamedBy(text));

function idNamedBy(digits: string): number {
  const id = Number(digits);
  return id >= 1 && id <= integerColumnRange.max ? id : noSuchId;
}

/**
 * What a path segment that takes an id or a name (`/users/:id` also takes a username, `/projects/:id` a path, label
 * paths a title) names by id: its id when it is all digits (`noSuchId` when they are beyond the integer column's
 * range), or null when it is a name.
 */
export function numericReference(segment: string): number | null {
  return /^\d+$/.test(segment) ? idNamedBy(segment) : null;
}

/**
 * Booleans as GitLab's API framework reads them (dry-types' `Params::Bool`): JSON `true`/`false`, or `true/false`,
 * `1/0`, `yes/no`, `y/n`, `t/f`, `on/off` in any case (python-gitlab sends `True`).
 */
const trueWords = new Set(["true", "1", "yes", "y", "t", "on"]);
const falseWords = new Set(["false", "0", "no", "n", "f", "off"]);
export const booleanParam = z.union([
  z.boolean(),
  z
    .string()
    .refine((value) => trueWords.has(value.toLowerCase()) || falseWords.has(value.toLowerCase()))
    .transform((value) => trueWords.has(value.toLowerCase())),
]);

/** Arrays arrive as JSON arrays, repeated `name[]=` form fields, or one comma-separated string. */
export const stringListParam = z.union([
  z.array(z.string()),
  z.string().transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  ),
]);

/**
 * Integer lists (`iids[]=1&iids[]=2`, JSON arrays or `1,2`), as GitLab's `Array[Integer]` with comma coercion; each
 * item as `integerParam`.
 */
export const integerListParam = z.union([
  z.array(integerParam),
  z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
    )
    .pipe(z.array(integerFromText)),
]);

/** A calendar date `YYYY-MM-DD` that exists. */
export const dateParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  });

/**
 * A point in time as GitLab's `DateTime` parameters take it: an ISO 8601 date (`2024-05-01`, midnight UTC) or date and
 * time (`2024-05-01T08:30:00Z`, `…+02:00`, `2024-05-01 08:30`); without an offset the time is UTC, as Ruby reads it.
 */
export const dateTimeParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i)
  .transform((value, context) => {
    const [day, time] = value.toUpperCase().split(/[T ]/);
    const normalizedTime = time === undefined ? "00:00:00Z" : /(?:Z|[+-]\d{2}:?\d{2})$/.test(time) ? time : `${time}Z`;
    const instant = new Date(`${day}T${normalizedTime.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")}`);
    if (Number.isNaN(instant.getTime()) || !dateParam.safeParse(day).success) {
      context.addIssue({ code: "custom", message: "is invalid" });
      return z.NEVER;
    }
    return instant;
  });

/** A date that can also be cleared: JSON `null`, or an empty value from a query string or form. */
export const clearableDateParam = z.union([dateParam, z.literal("").transform(() => null), z.null()]);

/**
 * A search string (`search`, the members' `query`), within GitLab's bounds on its length and words: past them, 400
 * `{"error":"search is too long (maximum is 4096 characters)"}` or `…has too many terms (maximum is 64 terms)`.
 */
export const searchParam = z.string().check((context) => {
  const problem = searchProblem(context.value);
  if (problem) context.issues.push({ code: "custom", message: problem, input: context.value, params: { problem } });
});

export const paginationParams = {
  page: positiveIntegerParam.optional(),
  per_page: integerParam.optional(),
};

/** How a list that GitLab also pages by keyset is asked to page (`offset` by default). */
export const keysetPaginationParams = {
  pagination: z.enum(["offset", "keyset"]).optional(),
};

/** `:id` of `/projects/:id/…`: a numeric id or a URL-encoded `namespace/path`, looked up by the domain verbs. */
export const projectPath = { id: z.string() };

/** `PUT …/members/:user_id` of a project or a group: the new role and expiry. */
export const memberUpdateParams = { access_level: integerParam, expires_at: clearableDateParam.optional() };

/** `POST …/members` of a project or a group: who, with which role, until when. */
export const newMemberParams = { user_id: positiveIntegerParam, ...memberUpdateParams };

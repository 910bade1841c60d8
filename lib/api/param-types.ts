import { z } from "zod";

/**
 * Parameter types that accept what GitLab clients send: JSON values, or the strings of query strings and forms.
 * Pure: no server imports, so forms may share them.
 */
export const integerParam = z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)]);

export const positiveIntegerParam = integerParam.pipe(z.number().int().min(1).max(2_147_483_647));

export const booleanParam = z.union([
  z.boolean(),
  z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1"),
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

/** A calendar date `YYYY-MM-DD` that exists. */
export const dateParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  });

export const paginationParams = {
  page: positiveIntegerParam.optional(),
  per_page: integerParam.optional(),
};

import { z } from "zod";
import { alertFields } from "./fields";

const pathSegmentSchema = z.union([z.string(), z.number().int().min(0), z.strictObject({ each: z.literal(true) })]);

/**
 * One mapped field as clients send it: GitLab's stored format (`path`, `type`, `label`), optionally with a value map
 * and a fallback. Pure: forms share it.
 */
export const mappedFieldSchema = z.strictObject({
  path: z.array(pathSegmentSchema).min(1).max(100),
  type: z.enum(["string", "datetime", "number", "array"]),
  label: z.string().nullable().optional(),
  values: z
    .record(z.string().min(1, "A payload value can't be blank").max(255), z.string().trim().min(1, "An alert value can't be blank").max(1000))
    .refine((values) => Object.keys(values).length <= 100, "A value map holds at most 100 values")
    .optional(),
  fallback: z.string().max(1000).optional(),
});

/** `payload_attribute_mapping` as clients send it. */
export const payloadAttributeMappingSchema = z.partialRecord(
  z.enum(alertFields.map((field) => field.name) as [string, ...string[]]),
  mappedFieldSchema,
);

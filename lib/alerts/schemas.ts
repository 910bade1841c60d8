import { z } from "zod";
import { alertFields } from "./fields";

/** `payload_attribute_mapping` as clients send it (GitLab's stored format). Pure: forms share it. */
export const mappedFieldSchema = z.strictObject({
  path: z.array(z.union([z.string(), z.number().int().min(0)])).min(1),
  type: z.enum(["string", "datetime", "array"]),
  label: z.string().nullable().optional(),
});

export const payloadAttributeMappingSchema = z.partialRecord(
  z.enum(alertFields.map((field) => field.name) as [string, ...string[]]),
  mappedFieldSchema,
);

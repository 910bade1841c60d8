import { z } from "zod";
import { requireAtLeastOne } from "@/lib/api/request";
import { ParameterError } from "@/lib/errors";

/** What `PUT /projects/:id/labels[/:name]` changes (GitLab's `label_update_params`, without priorities). */
export const labelUpdateParams = {
  new_name: z.string().optional(),
  color: z.string().optional(),
  description: z.string().nullable().optional(),
};

export function labelChangesFrom(params: z.infer<z.ZodObject<typeof labelUpdateParams>>) {
  requireAtLeastOne(params, ["new_name", "color", "description"]);
  return { newName: params.new_name, color: params.color, description: params.description };
}

/** The label the older `PUT`/`DELETE /projects/:id/labels` forms name: exactly one of `label_id` and `name`. */
export function labelNamedBy(params: { label_id?: number; name?: string }): string {
  if (params.label_id !== undefined && params.name !== undefined) throw new ParameterError("label_id, name", "are mutually exclusive");
  if (params.label_id !== undefined) return String(params.label_id);
  if (params.name !== undefined) return params.name;
  throw new ParameterError("label_id, name", "are missing, exactly one parameter must be provided");
}

import { dateParam } from "@/lib/api/param-types";

/** A rotated token's expiry date; without one it lives a week, as on GitLab. */
export const rotationParams = { expires_at: dateParam.optional() };

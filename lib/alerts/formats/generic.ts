import { normalizeGenericPayload } from "../normalize";
import type { PayloadFormatDefinition } from "./types";

/**
 * GitLab's generic HTTP endpoint format, read through the integration's custom mapping when it has one: takes any
 * object, so detection ends here. Answered with the alert it opened or changed, as GitLab answers.
 */
export const genericFormat: PayloadFormatDefinition = {
  id: "generic",
  detect: () => true,
  read: (body, now, mapping) => ({ kind: "events", events: [{ alert: normalizeGenericPayload(body, mapping, now), payload: body }] }),
  links: () => [],
};

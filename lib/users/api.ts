import { z } from "zod";
import { booleanParam } from "@/lib/api/param-types";
import type { ProfileFields } from "./username-rules";

/** The profile parameters `POST /users` and `PUT /users/:id` take (GitLab's `optional_attributes` this service keeps). */
export const profileParams = {
  external: booleanParam.optional(),
  bio: z.string().optional(),
  location: z.string().optional(),
  organization: z.string().optional(),
  job_title: z.string().optional(),
  website_url: z.string().optional(),
};

export function profileOf(params: z.infer<z.ZodObject<typeof profileParams>>): ProfileFields & { external?: boolean } {
  return {
    external: params.external,
    bio: params.bio,
    location: params.location,
    organization: params.organization,
    jobTitle: params.job_title,
    websiteUrl: params.website_url,
  };
}

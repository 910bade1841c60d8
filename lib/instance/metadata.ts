import { z } from "zod";
import { entity } from "@/lib/api/entities";
import packageJson from "@/package.json";

/**
 * The GitLab release whose REST API this service answers as: clients compare it to decide which routes and fields
 * exist. 16.10 is the first release with every route and behaviour this service serves the way it serves them
 * (`/metadata` from 15.2, `GET /personal_access_tokens/self` from 15.5, rotating a token with a one-week default
 * expiry from 16.0, `POST /personal_access_tokens/self/rotate` from 16.10), so a client gating a feature on a
 * version finds it here; a later release would promise routes added since that we do not have.
 */
export const compatibleGitlabVersion = "16.10.0";

/**
 * GitLab's Metadata entity (`GET /metadata`, and the deprecated `GET /version`, which answers the same). `revision`
 * is this service's own release rather than a GitLab commit, so bug reports can name what runs; there is no
 * Kubernetes agent server, and no Enterprise Edition.
 */
export const metadataEntity = entity(
  "Metadata",
  "The GitLab release this service answers as, and this service's own",
  z.strictObject({
    version: z.string(),
    revision: z.string(),
    kas: z.strictObject({ enabled: z.boolean(), externalUrl: z.string().nullable(), externalK8sProxyUrl: z.string().nullable(), version: z.string().nullable() }),
    enterprise: z.boolean(),
  }),
);

export function instanceMetadata(): z.infer<typeof metadataEntity> {
  return {
    version: compatibleGitlabVersion,
    revision: packageJson.version,
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: false,
  };
}

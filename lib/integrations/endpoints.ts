import "server-only";
import { z } from "zod";
import { endpoint, type ApiMethod, type Endpoint } from "@/lib/api/endpoint";
import { booleanParam, projectPath } from "@/lib/api/param-types";
import { json, noContent } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import type { ChatIntegrationType } from "@/lib/db/schema";
import { RouteNotFoundError } from "@/lib/errors";
import { channelProperty, chatEvents, chatIntegrationSlugs, eventToggles, integrationTypeOfSlug } from "./catalog";
import {
  disableIntegration,
  getIntegration,
  integrationBasicEntity,
  integrationEntity,
  listActiveIntegrations,
  saveIntegration,
  serializeIntegration,
  serializeIntegrationBasic,
} from "./integrations";
import { noContentAnswer, okWith } from "@/lib/api/responses";

/**
 * The integrations API (`lib/api/integrations.rb`), declared once and served at GitLab's `/projects/:id/integrations`
 * and at its older `/projects/:id/services`.
 */

const optionalText = z.string().nullable().optional();
const optionalBoolean = booleanParam.optional();

/**
 * Every parameter any chat integration's `PUT` takes, with GitLab's names and types; `saveIntegration` keeps those
 * the integration's own declaration has. The webhook is required by all of them.
 */
const integrationParams = {
  webhook: z.string(),
  username: optionalText,
  channel: optionalText,
  branches_to_be_notified: optionalText,
  labels_to_be_notified: optionalText,
  labels_to_be_notified_behavior: optionalText,
  notify_only_broken_pipelines: optionalBoolean,
  notify_only_when_pipeline_status_changes: optionalBoolean,
  ...Object.fromEntries(chatEvents.map((event) => [channelProperty(event), optionalText])),
  ...Object.fromEntries(chatEvents.map((event) => [eventToggles[event], optionalBoolean])),
} as Record<string, z.ZodType> & { webhook: z.ZodString };

/** `GET /projects/:id/integrations`: the project's active integrations, without their settings. */
export const listIntegrationsEndpoint = endpoint({
  response: okWith(z.array(integrationBasicEntity)),
  scopes: readApiScopes,
  path: projectPath,
  handle: async ({ ctx, path }) => json((await listActiveIntegrations(ctx, path.id)).map(({ integration }) => serializeIntegrationBasic(integration))),
});

const integrationPath = { ...projectPath, slug: z.enum(chatIntegrationSlugs as [string, ...string[]]) };

function typeOf(slug: string): ChatIntegrationType {
  const type = integrationTypeOfSlug(slug);
  if (!type) throw new Error(`${slug} passed the slug check`);
  return type;
}

/** `GET`, `PUT` and `DELETE /projects/:id/integrations/:slug`. */
export const integrationEndpoints: Partial<Record<ApiMethod, Endpoint>> = {
  GET: endpoint({
    response: okWith(integrationEntity),
    scopes: readApiScopes,
    path: integrationPath,
    handle: async ({ ctx, path }) => json(serializeIntegration((await getIntegration(ctx, path.id, typeOf(path.slug))).integration)),
  }),
  PUT: endpoint({
    response: okWith(integrationEntity),
    scopes: writeApiScopes,
    path: { ...projectPath, slug: z.string() },
    params: integrationParams,
    handle: async ({ ctx, path, params }) => {
      // GitLab declares one route per integration: another name is a path it does not serve.
      if (!chatIntegrationSlugs.includes(path.slug)) throw new RouteNotFoundError();
      const saved = await saveIntegration(ctx, path.id, typeOf(path.slug), params as Parameters<typeof saveIntegration>[3]);
      return json(serializeIntegration(saved.integration));
    },
  }),
  DELETE: endpoint({
    response: noContentAnswer,
    scopes: writeApiScopes,
    path: integrationPath,
    handle: async ({ ctx, path }) => {
      await disableIntegration(ctx, path.id, typeOf(path.slug));
      return noContent();
    },
  }),
};

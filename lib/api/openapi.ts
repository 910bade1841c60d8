import { z } from "zod";
import type { Declaration, Shape } from "./endpoint";
import { scopeDescriptions } from "@/lib/oauth/scopes";
import { apiEntities } from "./entities";
import { successStatuses, type EndpointResponse } from "./responses";
import { knownScopes } from "./scopes";

/**
 * The OpenAPI 3.1 document of `/api/v4`, made from the routes' own declarations (`apiResource`): each route and
 * method, its path segments and parameters as JSON Schemas of the zod types the route parses them with (what a caller
 * may send: `io: "input"`), the scopes a token needs, pagination, and its success response as the JSON Schema of the
 * entity's zod schema (what the serializer's type is inferred from: `io: "output"`), each entity once in
 * `components.schemas`. Pure, so a test can hold the committed document (`docs/openapi.json`, served at
 * `/api/v4/openapi.json`) to the declarations.
 *
 * Errors are GitLab's error shape. The MCP endpoint (JSON-RPC, `/api/v4/mcp`) is not a REST route and is left out.
 */
export interface OpenApiInfo {
  /** This service's version. */
  version: string;
  /** The GitLab release whose API it answers as. */
  gitlabVersion: string;
}

type JsonSchema = Record<string, unknown>;

const bodyMethods = new Set(["POST", "PUT", "PATCH"]);

/** A parameter's JSON Schema, without the draft marker each standalone schema carries. */
function schemaOf(type: z.ZodType): JsonSchema {
  const { $schema: _draft, ...schema } = z.toJSONSchema(type, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return schema;
}

/** Whether a caller may leave the parameter out. */
function optional(type: z.ZodType): boolean {
  return type.safeParse(undefined).success;
}

/** `/projects/:id/hooks/:hook_id` → `/projects/{id}/hooks/{hook_id}`. */
function openApiPath(route: string): string {
  return route.replace(/:([A-Za-z_]\w*)/g, "{$1}");
}

function pathSegments(route: string): string[] {
  return [...route.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]!);
}

function sortedEntries(shape: Shape): [string, z.ZodType][] {
  return (Object.entries(shape) as [string, z.ZodType][]).sort(([a], [b]) => a.localeCompare(b));
}

function bodySchema(shape: Shape): JsonSchema {
  const entries = sortedEntries(shape);
  const required = entries.filter(([, type]) => !optional(type)).map(([name]) => name);
  return {
    type: "object",
    properties: Object.fromEntries(entries.map(([name, type]) => [name, schemaOf(type)])),
    ...(required.length ? { required } : {}),
  };
}

const paginationHeaders = Object.fromEntries(
  [
    ["X-Total", "Items in all pages (left out past 10,000, as GitLab)"],
    ["X-Total-Pages", "Pages in all (left out with X-Total)"],
    ["X-Page", "This page"],
    ["X-Per-Page", "Items per page"],
    ["X-Next-Page", "The next page, empty on the last"],
    ["X-Prev-Page", "The previous page, empty on the first"],
    ["Link", "`rel=\"next\"`, `\"prev\"`, `\"first\"` and `\"last\"` links (keyset pages: `next` only)"],
  ].map(([name, description]) => [name, { description, schema: { type: "string" } }]),
);

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

/** The errors every route may answer, described once (`components.responses`) and referred to by each operation. */
const errorResponses = {
  "400": errorResponse("A parameter is missing or invalid (`{\"error\": \"<name> is missing\"}`, `{\"message\": …}`)"),
  "401": errorResponse("No valid token (`{\"message\": \"401 Unauthorized\"}`)"),
  "403": errorResponse("The token's scopes or the caller's role do not allow it"),
  "404": errorResponse("Nothing there the caller may see"),
};

/** What `GET /openapi.json` answers: this document, checked in its outline (its own schema would be all of it). */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.literal("3.1.0"),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.looseObject({ operationId: z.string(), responses: z.record(z.string(), z.unknown()) }))),
  components: z.looseObject({ schemas: z.record(z.string(), z.unknown()) }),
});

/**
 * A response body's JSON Schema, its entities referred to by name; their own schemas go to `entities`. zod names them
 * under `$defs`, which becomes `components.schemas`.
 */
function responseSchemaOf(body: z.ZodType, entities: Record<string, JsonSchema>): JsonSchema {
  const converted = z.toJSONSchema(body, { io: "output", metadata: apiEntities, unrepresentable: "any" }) as JsonSchema;
  const { $schema: _draft, $defs, ...schema } = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  Object.assign(entities, $defs);
  return schema;
}

function successResponses(declared: EndpointResponse, paginated: boolean, entities: Record<string, JsonSchema>) {
  if (!("body" in declared)) return { "204": { description: declared.description ?? "Done; no body" } };
  const content = { "application/json": { schema: responseSchemaOf(declared.body, entities) } };
  const description = declared.description ?? (paginated ? "A page of the list" : successDescriptions[successStatuses(declared)[0]!]);
  return Object.fromEntries(
    successStatuses(declared).map((status) => [String(status), { description, ...(paginated ? { headers: paginationHeaders } : {}), content }]),
  );
}

const successDescriptions: Record<number, string> = { 200: "The entity", 201: "What was created or done", 202: "Accepted; done shortly" };

function operation(declaration: Declaration, entities: Record<string, JsonSchema>) {
  const { method, route, endpoint } = declaration;
  const segments = new Set(pathSegments(route));
  const pathParameters = [...segments].map((name) => {
    const type = declaration.path[name] as z.ZodType | undefined;
    return { name, in: "path", required: true, schema: type ? schemaOf(type) : { type: "string" } };
  });
  const inBody = bodyMethods.has(method);
  const queryParameters = inBody
    ? []
    : sortedEntries(declaration.params).map(([name, type]) => ({ name, in: "query", required: !optional(type), schema: schemaOf(type) }));
  const security = [
    { "PRIVATE-TOKEN": [] },
    { bearer: [] },
    { oauth2: [...endpoint.scopes] },
    ...(endpoint.allowAnonymous ? [{}] : []),
  ];
  return {
    // URL-safe, as generators that name functions after it need: `GET /projects/:id/hooks` → `get_projects_id_hooks`.
    operationId: `${method}${route}`.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/_$/, ""),
    summary: `${method} ${route}`,
    ...(endpoint.allowAnonymous ? { description: "Anonymous callers are answered too, with what anybody may see." } : {}),
    parameters: [...pathParameters, ...queryParameters],
    ...(inBody && Object.keys(declaration.params).length
      ? {
          requestBody: {
            description: "As JSON; the same parameters may come as a form (`application/x-www-form-urlencoded`) or in the query string, as GitLab takes them.",
            content: { "application/json": { schema: bodySchema(declaration.params) } },
          },
        }
      : {}),
    security,
    responses: {
      ...successResponses(endpoint.response, endpoint.paginated !== undefined, entities),
      ...Object.fromEntries(Object.keys(errorResponses).map((status) => [status, { $ref: `#/components/responses/${status}` }])),
    },
  };
}

export function openApiDocument(declarations: readonly Declaration[], info: OpenApiInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  const entities: Record<string, JsonSchema> = {};
  const sorted = [...declarations].sort((a, b) => a.route.localeCompare(b.route) || a.method.localeCompare(b.method));
  for (const declaration of sorted) {
    (paths[openApiPath(declaration.route)] ??= {})[declaration.method.toLowerCase()] = operation(declaration, entities);
  }
  const entitySchemas = Object.fromEntries(Object.entries(entities).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: "3.1.0",
    info: {
      title: "REST API (GitLab-compatible)",
      version: info.version,
      description: `The GitLab ${info.gitlabVersion} REST API routes this service serves: the parameters each one reads and the entity it answers with, from the same zod schemas the routes parse with and the serializers are typed by. Generated from the routes' declarations (\`npm run openapi\`).`,
    },
    servers: [{ url: "/api/v4" }],
    paths,
    components: {
      responses: errorResponses,
      schemas: {
        ...entitySchemas,
        Error: {
          type: "object",
          description: "GitLab's error answers: `message` (a text, or an object of messages by field) or `error`.",
          properties: { message: {}, error: { type: "string" }, error_description: { type: "string" } },
        },
      },
      securitySchemes: {
        "PRIVATE-TOKEN": { type: "apiKey", in: "header", name: "PRIVATE-TOKEN", description: "A personal access token" },
        bearer: { type: "http", scheme: "bearer", description: "A personal access token or an OAuth access token" },
        oauth2: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: "/oauth/authorize",
              tokenUrl: "/oauth/token",
              refreshUrl: "/oauth/token",
              scopes: Object.fromEntries(knownScopes.map((scope) => [scope, scopeDescriptions[scope].description])),
            },
          },
        },
      },
    },
  };
}

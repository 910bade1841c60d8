import { beforeAll, describe, expect, it } from "vitest";
import { compatibleGitlabVersion } from "@/lib/instance/metadata";
import { routeDeclarations } from "@/lib/testing/route-declarations";
import packageJson from "@/package.json";
import committed from "@/docs/openapi.json";
import { openApiDocument } from "./openapi";
import { successStatuses, type EndpointResponse } from "./responses";

describe("the OpenAPI document (docs/openapi.json)", () => {
  let declarations: Awaited<ReturnType<typeof routeDeclarations>>;
  // Imports every route module, with the entities' schemas: seconds on a busy machine, once for all the tests.
  beforeAll(async () => {
    declarations = await routeDeclarations();
  }, 120_000);

  it("is the one the routes' declarations make now (`npm run openapi` writes it again)", async () => {
    const document = openApiDocument(declarations, { version: packageJson.version, gitlabVersion: compatibleGitlabVersion });
    await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot("../../docs/openapi.json");
  });

  it("has every declared route and method, each with its path segments and parameters", async () => {
    const paths = (committed as { paths?: Record<string, Record<string, { parameters: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }>> }).paths ?? {};
    for (const declaration of declarations) {
      const name = `${declaration.method} ${declaration.route}`;
      const described = paths[declaration.route.replace(/:(\w+)/g, "{$1}")]?.[declaration.method.toLowerCase()];
      expect(described, `${name} is missing from docs/openapi.json`).toBeDefined();
      const parameters = described!.parameters.filter((parameter) => parameter.in !== "path").map((parameter) => parameter.name);
      const bodyParameters = Object.keys(described!.requestBody?.content["application/json"]?.schema.properties ?? {});
      expect([...parameters, ...bodyParameters].sort(), name).toEqual(Object.keys(declaration.params).sort());
      expect(described!.parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name), name).toEqual(
        [...declaration.route.matchAll(/:(\w+)/g)].map((match) => match[1]),
      );
    }
  });

  it("has every declared route's success response: its status, and the entity's schema unless it is a 204", async () => {
    type Described = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
    const paths = (committed as unknown as { paths: Record<string, Record<string, Described>> }).paths;
    for (const declaration of declarations) {
      const name = `${declaration.method} ${declaration.route}`;
      // Declared in the type, but a declaration spread from another or cast could still leave it out.
      const response = declaration.endpoint.response as EndpointResponse | undefined;
      expect(response, `${name} declares no response`).toBeDefined();
      const described = paths[declaration.route.replace(/:(\w+)/g, "{$1}")]![declaration.method.toLowerCase()]!;
      for (const status of successStatuses(response!)) {
        const content = described.responses[String(status)]?.content?.["application/json"];
        if (status === 204) expect(content, name).toBeUndefined();
        else expect(content?.schema, `${name} answers ${status} with no schema in docs/openapi.json`).toBeDefined();
      }
    }
  });
});

import { describe, expect, it } from "vitest";
import { sweptRoutes } from "@/e2e/api/swept-routes";
import { apiMethods, declarationOf } from "./endpoint";

/** Every route module of the API, loaded as the framework loads them. */
const routeModules = import.meta.glob<Record<string, unknown>>("/app/api/v4/**/route.ts");

describe("the API's routes", () => {
  it("are all reached by the parameter sweep (e2e/api/parameter-sweep.spec.ts)", async () => {
    const declared: string[] = [];
    for (const load of Object.values(routeModules)) {
      const routeModule = await load();
      for (const method of apiMethods) {
        const declaration = declarationOf(routeModule[method]);
        if (declaration) declared.push(`${declaration.method} ${declaration.route}`);
      }
    }
    expect(declared.length).toBeGreaterThan(50);
    expect(declared.sort()).toEqual([...sweptRoutes].sort());
  });
});

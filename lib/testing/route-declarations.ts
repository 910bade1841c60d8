import { apiMethods, declarationOf, type Declaration } from "@/lib/api/endpoint";

/** Every route module of the API, loaded as the framework loads them. */
const routeModules = import.meta.glob<Record<string, unknown>>("/app/api/v4/**/route.ts");

/** What every route file of the API declares, method by method, for the tests that hold other lists to them. */
export async function routeDeclarations(): Promise<Declaration[]> {
  const declared: Declaration[] = [];
  for (const load of Object.values(routeModules)) {
    const routeModule = await load();
    for (const method of apiMethods) {
      const declaration = declarationOf(routeModule[method]);
      if (declaration) declared.push(declaration);
    }
  }
  return declared;
}

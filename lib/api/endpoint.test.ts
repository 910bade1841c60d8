import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sweptIntegerParameters, sweptRoutes, type IntegerColumn } from "@/e2e/api/swept-routes";
import { routeDeclarations as declarations } from "@/lib/testing/route-declarations";

/** Whether a parameter takes integers, as its JSON Schema says: integer values, or text of digits, or lists of them. */
function takesIntegers(schema: Record<string, unknown>): boolean {
  if (schema.type === "integer" || schema.pattern === "^-?\\d+$") return true;
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((option) => takesIntegers(option as Record<string, unknown>));
  return schema.type === "array" && typeof schema.items === "object" && takesIntegers(schema.items as Record<string, unknown>);
}

/** The column an integer parameter is compared with: events' bigint ids take values past the integer's range. */
function columnOf(schema: z.ZodType): IntegerColumn {
  return schema.safeParse("3000000000").success ? "bigint" : "integer";
}

describe("the API's routes", () => {
  it("are all reached by the parameter sweep (e2e/api/parameter-sweep.spec.ts)", async () => {
    const declared = (await declarations()).map((declaration) => `${declaration.method} ${declaration.route}`);
    expect(declared.length).toBeGreaterThan(50);
    expect(declared.sort()).toEqual([...sweptRoutes].sort());
  });

  it("have each of their integer parameters swept with values beyond its column's range", async () => {
    const integerParameters: Record<string, Record<string, IntegerColumn>> = {};
    for (const declaration of await declarations()) {
      for (const [name, schema] of Object.entries(declaration.params) as [string, z.ZodType][]) {
        if (!takesIntegers(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>)) continue;
        (integerParameters[`${declaration.method} ${declaration.route}`] ??= {})[name] = columnOf(schema);
      }
    }
    expect(integerParameters).toEqual(sweptIntegerParameters);
  });
});

import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTypescript,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Transport code never talks to the database directly: it calls a domain verb in lib/.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["drizzle-orm", "drizzle-orm/*", "@/lib/db/schema", "@/lib/db/schema/*"], message: "Call a domain verb in lib/ instead." }] },
      ],
    },
  },
  globalIgnores([".next/**", "node_modules/**", ".data/**", ".e2e-data/**", "test-results/**", "playwright-report/**", "next-env.d.ts"]),
]);

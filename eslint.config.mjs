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
  {
    // Request bodies are read through lib/http/body.ts only: it holds the size limits, and on the production server's
    // direct lane the body is read from the socket there (a web Request's own body is empty on that lane).
    files: ["app/**/*.{ts,tsx}", "lib/**/*.ts"],
    ignores: ["lib/http/body.ts", "**/*.test.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='request'][property.name=/^(body|text|json|formData|arrayBuffer|blob|bytes|clone)$/]",
          message: "Read request bodies with lib/http/body.ts (readBodyBytes, readBodyText, bodyAsNodeStream).",
        },
      ],
    },
  },
  globalIgnores([".next/**", "node_modules/**", ".data/**", ".e2e-data/**", "test-results/**", "playwright-report/**", "next-env.d.ts"]),
]);

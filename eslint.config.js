// ESLint flat config: the recommended JavaScript and typescript-eslint rules.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** SQL statement text, as opposed to an HTTP method name such as "DELETE". */
const SQL_TEXT = String.raw`/\b(SELECT\s[\s\S]*\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|REPLACE\s+INTO|PRAGMA)\b/i`;

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "dashboard/dist/", "data/", "**/*.generated.ts", ".wrangler/"] },
  js.configs.recommended,
  { files: ["bin/**/*.js"], languageOptions: { globals: { process: "readonly" } } },
  {
    // The example scripts run in Node; their page.evaluate callbacks run in the page.
    files: ["examples/**/*.mjs"],
    languageOptions: {
      globals: Object.fromEntries(
        ["process", "console", "fetch", "AbortSignal", "setTimeout", "window", "document"].map((name) => [name, "readonly"]),
      ),
    },
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Route handlers parse → call worker/domain or worker/reports → reply; persistence lives there.
    files: ["worker/api/routes/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["drizzle-orm", "drizzle-orm/*", "@libsql/*"], message: "Route handlers do no database work: call worker/domain or worker/reports." },
            { group: ["**/lib/schema", "**/lib/schema/*", "**/lib/db"], message: "Route handlers do no database work: call worker/domain or worker/reports." },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "MemberExpression[property.name='$client']", message: "Route handlers do no database work: call worker/domain or worker/reports." },
        {
          selector: "CallExpression[callee.property.name=/^(select|insert|update|delete|execute|batch|transaction|run|all|get|values)$/][callee.object.name='db']",
          message: "Route handlers do no database work: call worker/domain or worker/reports.",
        },
        { selector: `Literal[value=${SQL_TEXT}]`, message: "No SQL in route handlers." },
        { selector: `TemplateElement[value.raw=${SQL_TEXT}]`, message: "No SQL in route handlers." },
      ],
    },
  },
);

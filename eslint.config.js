// ESLint flat config: the recommended JavaScript and typescript-eslint rules.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "dashboard/dist/", "data/", "**/*.generated.ts", ".wrangler/"] },
  js.configs.recommended,
  { files: ["bin/**/*.js"], languageOptions: { globals: { process: "readonly" } } },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);

// ESLint for the extension: typescript-eslint's strict and stylistic type-checked rules on src/
// and test/ (typed through tsconfig.json), ESLint's recommended rules on the build scripts.
// Layout (quotes, wrapping, commas) is Prettier's: `npm run format:check`.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["dist/", "out/", "node_modules/"] },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  {
    files: ["**/*.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["src/**/*.ts", "test/**/*.ts"],
    extends: [
      js.configs.recommended,
      tseslint.configs.strictTypeChecked,
      tseslint.configs.stylisticTypeChecked,
    ],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Numbers in templates (SVG coordinates, counts) print as expected; other values must be
      // converted explicitly.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      eqeqeq: ["error", "always"],
    },
  },
  {
    // The test doubles stand in for async APIs (probes, VS Code's windows, the client) with
    // `async` functions that answer at once: an `await` in each would add nothing.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/require-await": "off" },
  },
);

import effect from "@effect/eslint-plugin"
import sortDestructureKeys from "eslint-plugin-sort-destructure-keys"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    // assembly/: AssemblyScript (its decorators and types are not TypeScript's), compiled by asc
    ignores: ["**/build/**", "**/dist/**", "**/node_modules/**", "**/.tsbuildinfo/**", "**/*.d.ts", "**/assembly/**"]
  },
  ...tseslint.configs.recommended,
  ...effect.configs.dprint,
  {
    plugins: { "sort-destructure-keys": sortDestructureKeys },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      "sort-destructure-keys/sort-destructure-keys": "error",
      "@typescript-eslint/array-type": ["warn", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-empty-object-type": "off"
    }
  }
)

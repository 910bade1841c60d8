/**
 * The stylesheet linter (part of `npm run lint`). Browsers forgive a missing brace by nesting every later rule under
 * the open one, so such a mistake silently unstyles half the site; the parser and the nesting limit refuse it here.
 * @type {import("stylelint").Config}
 */
const config = {
  extends: ["stylelint-config-recommended"],
  rules: {
    "max-nesting-depth": [
      0,
      { message: "Nested rules are not used in this stylesheet: a nested rule here usually means a missing closing brace above" },
    ],
    // The stylesheet is ordered by page area, not by specificity; later, more general rules are deliberate.
    "no-descending-specificity": null,
  },
};

export default config;

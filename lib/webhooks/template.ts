/**
 * GitLab's custom webhook templates: `{{path.to.value}}` in the template is replaced by the payload's value there,
 * written as JSON (a string without its quotes, so it can sit inside a JSON string of the template), and the result
 * must be JSON. Pure.
 */
const placeholder = /{{(.+?)}}/g;

export function renderCustomTemplate(template: string, data: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const rendered = template.replace(placeholder, (_, path: string) => {
    let value: unknown = data;
    for (const key of path.split(".")) {
      value = value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined) return "null";
    const json = JSON.stringify(value);
    return typeof value === "string" ? json.slice(1, -1) : json;
  });
  try {
    return { ok: true, value: JSON.parse(rendered) };
  } catch (error) {
    return { ok: false, error: `Error while parsing rendered custom webhook template: ${error instanceof Error ? error.message : "invalid JSON"}` };
  }
}

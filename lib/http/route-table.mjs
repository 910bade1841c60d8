// The production server's table of routes, built from the framework's own build output: `next build` writes every
// route of app/ to .next/server/app-paths-manifest.json, so there is no second list of paths to keep in step.
// Plain JavaScript: server.mjs loads it before (and outside) the framework's bundles.

/**
 * A trie of the manifest's route handlers (`/api/v4/projects/[id]/route` → `app/api/v4/projects/[id]/route.js`), and
 * of its pages with `pages: true`; other entries are left out. Route groups `(name)` and parallel-route slots `@name`
 * take no part in the URL, as in the framework. Each route keeps its `pattern`: its URL as its folders name it
 * (`/api/v4/projects/[id]`).
 */
export function routeTable(manifest, { pages = false } = {}) {
  const root = emptyNode();
  for (const [entry, file] of Object.entries(manifest)) {
    const suffix = entry.endsWith("/route") ? "/route" : pages && entry.endsWith("/page") ? "/page" : null;
    if (!suffix) continue;
    let node = root;
    const segments = entry.slice(1, -suffix.length).split("/").filter((segment) => segment && !/^\(.*\)$/.test(segment) && !segment.startsWith("@"));
    const route = { entry, file, pattern: `/${segments.join("/")}` };
    for (const [index, segment] of segments.entries()) {
      const catchAll = segment.match(/^\[(\[)?\.\.\.([^\]]+)\]\]?$/);
      if (catchAll) {
        if (index !== segments.length - 1) throw new Error(`a catch-all segment must come last: ${entry}`);
        node[catchAll[1] ? "optionalCatchAll" : "catchAll"] = { name: catchAll[2], route };
        node = null;
        break;
      }
      const dynamic = segment.match(/^\[([^\]]+)\]$/);
      if (dynamic) {
        node.dynamic ??= { name: dynamic[1], node: emptyNode() };
        node = node.dynamic.node;
      } else {
        if (!node.static.has(segment)) node.static.set(segment, emptyNode());
        node = node.static.get(segment);
      }
    }
    if (node) node.route = route;
  }
  return root;
}

function emptyNode() {
  return { static: new Map(), dynamic: null, catchAll: null, optionalCatchAll: null, route: null };
}

/**
 * The route the framework would give `pathname` (`/a/b`, no query), with its parameters decoded as the framework
 * decodes them; null when no route handler matches, or when the path is one the framework would first normalize or
 * refuse (a trailing or doubled slash, dot segments, malformed percent-encoding). Precedence is the framework's: at
 * each segment a static name, then a dynamic segment, then a catch-all, then an optional catch-all.
 */
export function matchRoute(table, pathname) {
  if (!pathname.startsWith("/")) return null;
  const segments = pathname === "/" ? [] : pathname.slice(1).split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return null;
  let decoded;
  try {
    decoded = segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  return matchFrom(table, segments, decoded, 0, {});
}

function matchFrom(node, segments, decoded, index, params) {
  if (index === segments.length) {
    if (node.route) return found(node.route, params);
    if (node.optionalCatchAll) return found(node.optionalCatchAll.route, params);
    return null;
  }
  const child = node.static.get(segments[index]);
  const viaStatic = child && matchFrom(child, segments, decoded, index + 1, params);
  if (viaStatic) return viaStatic;
  if (node.dynamic) {
    const viaDynamic = matchFrom(node.dynamic.node, segments, decoded, index + 1, { ...params, [node.dynamic.name]: decoded[index] });
    if (viaDynamic) return viaDynamic;
  }
  for (const catchAll of [node.catchAll, node.optionalCatchAll]) {
    if (catchAll) return found(catchAll.route, { ...params, [catchAll.name]: decoded.slice(index) });
  }
  return null;
}

function found({ entry, file }, params) {
  return { entry, file, params };
}

/**
 * The pattern of the route `matchRoute` would find for `pathname` (`/api/v4/projects/[id]`), or null; found without
 * decoding the path or collecting its parameters, so that it costs no more than the walk down the trie.
 */
export function matchPattern(table, pathname) {
  if (!pathname.startsWith("/")) return null;
  const segments = pathname === "/" ? [] : pathname.slice(1).split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return null;
  return patternFrom(table, segments, 0);
}

function patternFrom(node, segments, index) {
  if (index === segments.length) return (node.route ?? node.optionalCatchAll?.route)?.pattern ?? null;
  const child = node.static.get(segments[index]);
  const viaStatic = child && patternFrom(child, segments, index + 1);
  if (viaStatic) return viaStatic;
  const viaDynamic = node.dynamic && patternFrom(node.dynamic.node, segments, index + 1);
  if (viaDynamic) return viaDynamic;
  return (node.catchAll ?? node.optionalCatchAll)?.route.pattern ?? null;
}

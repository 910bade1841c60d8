// `npm run events:prune`: asks a running server to delete events past the retention period now (the server also does
// this on its own every EVENTS_PRUNE_INTERVAL_MINUTES). Needs an admin token with scope `api`.
const base = (process.env.EXTERNAL_URL || "http://localhost:3000").replace(/\/+$/, "");
const token = process.env.PRUNE_TOKEN || process.env.INITIAL_ROOT_TOKEN;
if (!token) {
  console.error("Set PRUNE_TOKEN (an admin token with scope api) or INITIAL_ROOT_TOKEN.");
  process.exit(2);
}
try {
  const response = await fetch(`${base}/api/v4/admin/events/prune`, { method: "POST", headers: { "PRIVATE-TOKEN": token } });
  console.log(response.status, await response.text());
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  console.error(`Could not reach ${base}: ${error.message}`);
  process.exit(1);
}

/** The process is up and answering; touches nothing else, so it is also the framework's cost per request. */
export function GET(): Response {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}

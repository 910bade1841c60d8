/** GitLab's plain health check: the process answers. Monitoring that expects GitLab's text reads `GitLab OK`. */
export function GET(): Response {
  return new Response("GitLab OK", { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

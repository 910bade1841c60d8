import { numericReference } from "@/lib/api/param-types";
import { anonymousContext } from "@/lib/context";
import { renderAvatar } from "@/lib/users/avatar";

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const id = numericReference((await params).id);
  const svg = id === null ? null : await renderAvatar(await anonymousContext(), id);
  if (!svg) return new Response("Not found", { status: 404 });
  return new Response(svg, {
    headers: { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=3600", "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'" },
  });
}

import { anonymousContext } from "@/lib/context";
import { renderAvatar } from "@/lib/users/avatar";

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const svg = /^\d{1,9}$/.test(id) ? await renderAvatar(await anonymousContext(), Number(id)) : null;
  if (!svg) return new Response("Not found", { status: 404 });
  return new Response(svg, {
    headers: { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=3600", "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'" },
  });
}

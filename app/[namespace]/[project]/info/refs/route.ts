import { serveGitRequest } from "@/lib/git/serve";

type GitRouteContext = { params: Promise<{ namespace: string; project: string }> };

/** Smart HTTP ref advertisement: `GET /:namespace/:project.git/info/refs?service=git-upload-pack|git-receive-pack`. */
export async function GET(request: Request, { params }: GitRouteContext): Promise<Response> {
  const { namespace, project } = await params;
  return serveGitRequest(request, { namespace, project, endpoint: "info-refs" });
}

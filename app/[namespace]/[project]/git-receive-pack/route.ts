import { serveGitRequest } from "@/lib/git/serve";

type GitRouteContext = { params: Promise<{ namespace: string; project: string }> };

/** Smart HTTP push: `POST /:namespace/:project.git/git-receive-pack`; each updated branch or tag becomes a push event. */
export async function POST(request: Request, { params }: GitRouteContext): Promise<Response> {
  const { namespace, project } = await params;
  return serveGitRequest(request, { namespace, project, endpoint: "git-receive-pack" });
}

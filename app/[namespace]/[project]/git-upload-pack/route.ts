import { serveGitRequest } from "@/lib/git/serve";

type GitRouteContext = { params: Promise<{ namespace: string; project: string }> };

/** Smart HTTP fetch and clone: `POST /:namespace/:project.git/git-upload-pack`. */
export async function POST(request: Request, { params }: GitRouteContext): Promise<Response> {
  const { namespace, project } = await params;
  return serveGitRequest(request, { namespace, project, endpoint: "git-upload-pack" });
}

/** Any path under /api/v4 that no endpoint serves: GitLab's JSON 404, whatever the method. */
export {
  routeNotFound as GET,
  routeNotFound as HEAD,
  routeNotFound as POST,
  routeNotFound as PUT,
  routeNotFound as PATCH,
  routeNotFound as DELETE,
  routeNotFound as OPTIONS,
} from "@/lib/api/handler";

// RFC 8414 metadata: the same document as OpenID Connect discovery.
export { GET, OPTIONS } from "../openid-configuration/route";

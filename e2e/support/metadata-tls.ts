import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";

/**
 * The certificate MCP clients in the suites serve their client ID metadata documents with: the MCP SDK only uses
 * `https` client_id URLs, and the servers under test trust this certificate (NODE_EXTRA_CA_CERTS) and may fetch from
 * loopback (OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES). Self-signed for 127.0.0.1, made once per checkout.
 */
export const metadataDocumentTls = {
  keyPath: path.resolve(".e2e-data/metadata-document-tls/key.pem"),
  certPath: path.resolve(".e2e-data/metadata-document-tls/cert.pem"),
};

export function ensureMetadataDocumentCertificate(): void {
  if (existsSync(metadataDocumentTls.certPath) && existsSync(metadataDocumentTls.keyPath)) return;
  mkdirSync(path.dirname(metadataDocumentTls.certPath), { recursive: true });
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "3650",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      metadataDocumentTls.keyPath,
      "-out",
      metadataDocumentTls.certPath,
    ],
    { stdio: "ignore" },
  );
}

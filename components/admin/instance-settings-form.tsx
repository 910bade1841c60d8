"use client";

import { SettingsForm } from "@/components/ui/settings-form";
import type { ActionResult } from "@/lib/forms/action-result";
import { instanceSettingsFormSchema, type InstanceSettingsForm as Settings } from "@/lib/instance/form-schemas";

/** Admin area › Settings: the instance's switches, saved together. */
export function InstanceSettingsForm({ settings, save }: { settings: Settings; save: (settings: Settings) => Promise<ActionResult> }) {
  return (
    <SettingsForm schema={instanceSettingsFormSchema} settings={settings} save={save} savedMessage="Application settings saved successfully.">
      {(register) => (
        <>
          <fieldset className="stack">
            <legend>OAuth provider</legend>
            <label className="checkbox">
              <input type="checkbox" aria-describedby="authorization-response-iss-help" {...register("oauthAuthorizationResponseIss")} />
              <span>Send the issuer (iss) with authorization responses</span>
            </label>
            <p id="authorization-response-iss-help" className="muted">
              RFC 9207: every answer to an application&apos;s redirect URI (a code, an error, a denial) names this server, and
              discovery says so. GitLab sends neither, and sign-in libraries set up for GitLab without an issuer (Auth.js,
              NextAuth.js) refuse such answers; turn it on only when your applications are set up with this server&apos;s
              issuer and want it.
            </p>
          </fieldset>
          <fieldset className="stack">
            <legend>Outbound requests</legend>
            <label className="checkbox">
              <input type="checkbox" aria-describedby="local-requests-help" {...register("allowLocalRequestsFromWebHooksAndServices")} />
              <span>Allow requests to the local network from webhooks and integrations</span>
            </label>
            <p id="local-requests-help" className="muted">
              Webhooks and integrations send requests to URLs that project maintainers enter. Unless this is on, requests to
              this server, to loopback, private and link-local addresses (the cloud metadata address among them), and to
              shared, multicast and reserved ranges are refused, whatever the URL&apos;s host name resolves to.
            </p>
          </fieldset>
          <fieldset className="stack">
            <legend>Groups</legend>
            <label className="checkbox">
              <input type="checkbox" aria-describedby="create-group-help" {...register("canCreateGroup")} />
              <span>Allow users to create top-level groups</span>
            </label>
            <p id="create-group-help" className="muted">
              Administrators always may. Subgroups are created by the parent group&apos;s Owners and Maintainers either way.
            </p>
          </fieldset>
        </>
      )}
    </SettingsForm>
  );
}

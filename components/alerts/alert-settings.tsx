"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { RelativeTime } from "@/components/ui/relative-time";
import { Notice } from "@/components/ui/notice";
import { SettingsForm } from "@/components/ui/settings-form";
import { TableHead } from "@/components/ui/table-head";
import { Tabs } from "@/components/ui/tabs";
import { alertSettingsFormSchema, integrationTypeOptions, type AlertSettingsForm } from "@/lib/alerts/form-schemas";
import { payloadFormatLabels, payloadFormatShortLabels } from "@/lib/alerts/formats/types";
import type { ActionResult } from "@/lib/forms/action-result";
import { IntegrationForm, type IntegrationActions, type IntegrationItem } from "./integration-form";

/** Settings → Monitor → Alerts: "Current integrations" and "Alert settings". */
export function AlertSettings({
  integrations,
  settings,
  now,
  actions,
}: {
  integrations: IntegrationItem[];
  settings: AlertSettingsForm;
  /** The request's time, which heartbeats' last pings are told against (so server and browser render the same). */
  now: string;
  actions: IntegrationActions & {
    remove: (integrationId: number) => Promise<ActionResult>;
    saveSettings: (settings: AlertSettingsForm) => Promise<ActionResult>;
  };
}) {
  const [tab, setTab] = useState("integrations");
  return (
    <Tabs
      label="Alerts settings"
      selected={tab}
      onSelect={setTab}
      items={[
        { key: "integrations", label: "Current integrations", content: <CurrentIntegrations integrations={integrations} now={now} actions={actions} /> },
        { key: "settings", label: "Alert settings", content: <AlertSettingsTab settings={settings} save={actions.saveSettings} /> },
      ]}
    />
  );
}

function CurrentIntegrations({
  integrations,
  now,
  actions,
}: {
  integrations: IntegrationItem[];
  now: string;
  actions: IntegrationActions & { remove: (integrationId: number) => Promise<ActionResult> };
}) {
  const router = useRouter();
  // The form edits a copy; "new" opens an empty one. Keyed, so switching integrations starts the form afresh.
  const [editing, setEditing] = useState<number | "new" | null>(null);
  const [deleting, setDeleting] = useState<IntegrationItem | null>(null);
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const editedIntegration = typeof editing === "number" ? (integrations.find((integration) => integration.id === editing) ?? null) : null;

  async function remove(integration: IntegrationItem) {
    setDeleting(null);
    setMessage(null);
    const result = await actions.remove(integration.id);
    if (!result.ok) {
      setMessage({ tone: "error", text: result.message });
      return;
    }
    if (editing === integration.id) setEditing(null);
    setMessage({ tone: "success", text: "Integration successfully removed." });
    router.refresh();
  }

  return (
    <div className="stack">
      {message ? <Notice tone={message.tone}>{message.text}</Notice> : null}
      {integrations.map((integration) =>
        integration.sns_subscription_confirmation ? (
          <SubscriptionConfirmationNotice key={integration.id} integration={integration} confirmation={integration.sns_subscription_confirmation} />
        ) : null,
      )}
      {integrations.length === 0 ? (
        <p className="empty">No integrations have been added yet.</p>
      ) : (
        <table className="table">
          <caption className="visually-hidden">Current integrations</caption>
          <TableHead columns={["Status", "Integration Name", "Type", "Actions"]} />
          <tbody>
            {integrations.map((integration) => (
              <tr key={integration.id}>
                <td>
                  {integration.active ? (
                    <span className="badge badge-success" title="Alerts will be created through this integration">
                      Enabled
                    </span>
                  ) : (
                    <span className="badge badge-warning" title="Alerts will not be created through this integration">
                      Disabled
                    </span>
                  )}
                </td>
                <td className="long-text">
                  {integration.name}
                  {/* Which of the formats the receiver recognizes the latest payload was read in. */}
                  {integration.last_payload_format ? (
                    <span className="muted integration-last-format" title={payloadFormatLabels[integration.last_payload_format]}>
                      Last alert: {payloadFormatShortLabels[integration.last_payload_format]}
                    </span>
                  ) : null}
                  {integration.heartbeat ? <HeartbeatState heartbeat={integration.heartbeat} now={now} /> : null}
                </td>
                <td>{integrationTypeOptions.find((option) => option.value === integration.type)?.short ?? integration.type}</td>
                <td className="actions">
                  <button
                    type="button"
                    className="button button-secondary button-small"
                    aria-label={`Edit integration ${integration.name}`}
                    onClick={() => setEditing(integration.id)}
                  >
                    Edit
                  </button>{" "}
                  <button
                    type="button"
                    className="button button-danger button-small"
                    aria-label={`Delete integration ${integration.name}`}
                    onClick={() => setDeleting(integration)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting ? (
        <ConfirmDialog title="Delete integration" confirmLabel="Delete integration" danger onConfirm={() => remove(deleting)} onCancel={() => setDeleting(null)}>
          <p>
            If you delete the {deleting.name} integration, alerts are no longer sent from this endpoint. This action cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
      {editing === null ? (
        <div className="form-actions">
          <button type="button" className="button" onClick={() => setEditing("new")}>
            Add new integration
          </button>
        </div>
      ) : (
        <IntegrationForm
          key={editing}
          integration={editedIntegration}
          actions={actions}
          onClose={() => setEditing(null)}
        />
      )}
    </div>
  );
}

const heartbeatStatusLabels = { inactive: "Inactive", waiting: "Waiting for first ping", up: "Up", missed: "Missed" } as const;

/** A heartbeat's state and last ping, under its name in the list. */
function HeartbeatState({ heartbeat, now }: { heartbeat: NonNullable<IntegrationItem["heartbeat"]>; now: string }) {
  return (
    <span className="muted integration-last-format" data-heartbeat-status={heartbeat.status}>
      <span className={heartbeat.status === "missed" ? "badge badge-danger" : heartbeat.status === "up" ? "badge badge-success" : "badge"}>
        {heartbeatStatusLabels[heartbeat.status]}
      </span>{" "}
      {heartbeat.last_ping_at ? (
        <>
          Last ping <RelativeTime value={heartbeat.last_ping_at} now={new Date(now)} />
        </>
      ) : (
        "No ping yet"
      )}
    </span>
  );
}

/**
 * Amazon SNS waits for its subscription to be confirmed by opening a URL it sent. The service never opens URLs from
 * payloads, so a Maintainer confirms it here by hand; the notice goes when the topic's first notification arrives.
 */
function SubscriptionConfirmationNotice({
  integration,
  confirmation,
}: {
  integration: IntegrationItem;
  confirmation: NonNullable<IntegrationItem["sns_subscription_confirmation"]>;
}) {
  return (
    <Notice tone="warning" title={`Confirm the Amazon SNS subscription of ${integration.name}`}>
      <p>
        Amazon SNS asks to confirm that topic <code>{confirmation.topic_arn}</code> may send alerts to this integration. If you set up
        this subscription, open the confirmation URL to confirm it:{" "}
        <a href={confirmation.subscribe_url} target="_blank" rel="noopener noreferrer">
          Confirm the subscription in Amazon SNS
        </a>
        . Otherwise, ignore it.
      </p>
    </Notice>
  );
}

function AlertSettingsTab({ settings, save }: { settings: AlertSettingsForm; save: (settings: AlertSettingsForm) => Promise<ActionResult> }) {
  return (
    <SettingsForm schema={alertSettingsFormSchema} settings={settings} save={save} savedMessage="Your changes have been saved.">
      {(register) => (
        <>
          <label className="checkbox">
            <input type="checkbox" {...register("createIncident")} />
            <span>Create an incident. Incidents are created for each alert triggered.</span>
          </label>
          <label className="checkbox">
            <input type="checkbox" {...register("sendEmail")} />
            <span>Send a single email notification to Owners and Maintainers for new alerts.</span>
          </label>
          <label className="checkbox">
            <input type="checkbox" {...register("autoCloseIncident")} />
            <span>Automatically close associated incident when a recovery alert notification resolves an alert</span>
          </label>
        </>
      )}
    </SettingsForm>
  );
}

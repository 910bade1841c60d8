"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CopyField } from "@/components/ui/copy-field";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { Notice } from "@/components/ui/notice";
import { Tabs } from "@/components/ui/tabs";
import { FieldError, TextField } from "@/components/ui/text-field";
import type { PayloadAttributeMapping } from "@/lib/alerts/fields";
import {
  payloadFormatLabels,
  payloadFormatSettingLabels,
  payloadFormatSettings,
  type PayloadFormat,
  type PayloadFormatSetting,
} from "@/lib/alerts/formats/types";
import {
  heartbeatLimits,
  integrationDetailsSchema,
  integrationTypeOptions,
  type IntegrationDetails,
  type IntegrationSave,
} from "@/lib/alerts/form-schemas";
import type { PayloadField } from "@/lib/alerts/payload-fields";
import type { ActionResult } from "@/lib/forms/action-result";
import { initialMapperState, PayloadMapper, type MapperState } from "./payload-mapper";

/** An integration as the settings page receives it (the REST shape). */
export interface IntegrationItem {
  id: number;
  name: string;
  type: "http" | "prometheus" | "heartbeat";
  active: boolean;
  url: string;
  /** Null where the caller's credential may not see keys (never for a browser session). */
  token: string | null;
  payload_example: string;
  payload_attribute_mapping: PayloadAttributeMapping;
  payload_format: PayloadFormatSetting;
  last_payload_format: PayloadFormat | null;
  /** Null for a heartbeat, which takes pings, not alerts; as the Opsgenie URL. */
  pagerduty_events_url: string | null;
  opsgenie_alerts_url: string | null;
  sns_subscription_confirmation: { topic_arn: string; subscribe_url: string; received_at: string } | null;
  heartbeat: {
    interval_seconds: number;
    grace_seconds: number;
    last_ping_at: string | null;
    next_due_at: string | null;
    status: "inactive" | "waiting" | "up" | "missed";
  } | null;
}

export interface IntegrationActions {
  create: (input: IntegrationSave) => Promise<ActionResult<IntegrationItem>>;
  update: (integrationId: number, input: Omit<IntegrationSave, "type">) => Promise<ActionResult<IntegrationItem>>;
  resetToken: (integrationId: number) => Promise<ActionResult<IntegrationItem>>;
  parseFields: (payloadExample: string) => Promise<ActionResult<PayloadField[]>>;
  sendTestAlert: (integrationId: number, payload: string) => Promise<ActionResult<{ iid: number; title: string }[]>>;
}

type FormTab = "details" | "credentials" | "test";

/** Create or edit one integration: Configure details (with the payload mapper), View credentials, Send test alert. */
export function IntegrationForm({
  integration: initial,
  actions,
  onClose,
}: {
  integration: IntegrationItem | null;
  actions: IntegrationActions;
  onClose: () => void;
}) {
  const router = useRouter();
  const [integration, setIntegration] = useState<IntegrationItem | null>(initial);
  const [tab, setTab] = useState<FormTab>("details");
  const [saved, setSaved] = useState<string | null>(null);
  const headingId = useId();

  function onSaved(next: IntegrationItem, created: boolean) {
    setIntegration(next);
    setSaved(created ? "Integration successfully saved" : "The integration is saved.");
    if (created) setTab("credentials");
    router.refresh();
  }

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} style={{ margin: 0 }}>
        {integration ? `Edit integration: ${integration.name}` : "Add new integration"}
      </h2>
      {saved ? <Notice tone="success">{saved}</Notice> : null}
      <Tabs
        label="Integration"
        selected={tab}
        onSelect={(key) => setTab(key as FormTab)}
        items={[
          {
            key: "details",
            label: "Configure details",
            content: <DetailsTab integration={integration} actions={actions} onSaved={onSaved} onClose={onClose} />,
          },
          {
            key: "credentials",
            label: "View credentials",
            disabled: !integration,
            content: integration ? <CredentialsTab integration={integration} actions={actions} onReset={setIntegration} /> : null,
          },
          {
            key: "test",
            label: "Send test alert",
            // A heartbeat's alerts come from missed pings only.
            disabled: !integration || integration.type === "heartbeat",
            content: integration ? <TestAlertTab integration={integration} actions={actions} /> : null,
          },
        ]}
      />
    </section>
  );
}

function DetailsTab({
  integration,
  actions,
  onSaved,
  onClose,
}: {
  integration: IntegrationItem | null;
  actions: IntegrationActions;
  onSaved: (integration: IntegrationItem, created: boolean) => void;
  onClose: () => void;
}) {
  const typeId = useId();
  const formatId = useId();
  const activeId = useId();
  const activeHintId = `${activeId}-hint`;
  const { register, handleSubmit, formState, setError, setFocus, control } = useForm<IntegrationDetails>({
    resolver: zodResolver(integrationDetailsSchema),
    defaultValues: {
      type: integration?.type ?? "http",
      name: integration?.name ?? "",
      active: integration?.active ?? false,
      payloadFormat: integration?.payload_format ?? "auto",
      heartbeatIntervalSeconds: integration?.heartbeat?.interval_seconds,
      heartbeatGraceSeconds: integration?.heartbeat?.grace_seconds,
    },
  });
  const [mapper, setMapper] = useState<MapperState>(() =>
    initialMapperState(integration?.payload_example ?? null, integration?.payload_attribute_mapping ?? {}),
  );
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, [
    "type",
    "name",
    "active",
    "payloadFormat",
    "heartbeatIntervalSeconds",
    "heartbeatGraceSeconds",
  ]);
  const type = useWatch({ control, name: "type" });

  async function onSubmit(values: IntegrationDetails) {
    clear();
    const mapping =
      values.type === "http"
        ? {
            // Only a sample whose fields were parsed is saved, with the mapping built on it.
            payloadExample: mapper.parsedSample !== null && mapper.parsedSample !== integration?.payload_example ? mapper.parsedSample : undefined,
            payloadAttributeMapping: mapper.mapping,
          }
        : {};
    const heartbeat =
      values.type === "heartbeat" ? { heartbeatIntervalSeconds: values.heartbeatIntervalSeconds, heartbeatGraceSeconds: values.heartbeatGraceSeconds } : {};
    const result = integration
      ? await actions.update(integration.id, { name: values.name, active: values.active, payloadFormat: values.payloadFormat, ...mapping, ...heartbeat })
      : await actions.create({ type: values.type, name: values.name, active: values.active, payloadFormat: values.payloadFormat, ...mapping, ...heartbeat });
    if (!result.ok) {
      report(result);
      return;
    }
    setMapper(initialMapperState(result.data.payload_example, result.data.payload_attribute_mapping));
    onSaved(result.data, integration === null);
  }

  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate>
      <FormFailureNotice failure={failure} />
      <div className="field">
        <label htmlFor={typeId}>1. Select integration type</label>
        <select
          id={typeId}
          disabled={integration !== null}
          aria-invalid={formState.errors.type ? true : undefined}
          aria-describedby={formState.errors.type ? `${typeId}-error` : undefined}
          {...register("type")}
        >
          {integrationTypeOptions.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        <FieldError id={`${typeId}-error`} message={formState.errors.type?.message} />
      </div>
      <TextField label="2. Name integration" registration={register("name")} error={formState.errors.name?.message} autoComplete="off" />
      <div className="field">
        <span className="field-label">3. Enable integration</span>
        <label className="toggle" htmlFor={activeId}>
          <input id={activeId} type="checkbox" role="switch" aria-describedby={activeHintId} {...register("active")} />
          <span>Active</span>
        </label>
        <p className="field-hint" id={activeHintId}>
          A webhook URL and authorization key is generated for the integration. After you save the integration, both are visible under
          the &quot;View credentials&quot; tab.
        </p>
      </div>
      {type === "heartbeat" ? (
        <>
          <TextField
            label="4. Expected interval (seconds)"
            inputMode="numeric"
            registration={register("heartbeatIntervalSeconds", { setValueAs: secondsOf })}
            error={formState.errors.heartbeatIntervalSeconds?.message}
            hint={`How often the job pings: from ${heartbeatLimits.intervalSeconds.min} seconds to ${heartbeatLimits.intervalSeconds.max} (7 days).`}
          />
          <TextField
            label="5. Grace period (seconds)"
            inputMode="numeric"
            registration={register("heartbeatGraceSeconds", { setValueAs: secondsOf })}
            error={formState.errors.heartbeatGraceSeconds?.message}
            hint="How late a ping may be before the heartbeat counts as missed and an alert is created; 60 seconds when left empty."
          />
        </>
      ) : (
        <div className="field">
          <label htmlFor={formatId}>4. Payload format</label>
          <select id={formatId} aria-describedby={`${formatId}-hint`} {...register("payloadFormat")}>
            {payloadFormatSettings.map((setting) => (
              <option key={setting} value={setting}>
                {payloadFormatSettingLabels[setting]}
              </option>
            ))}
          </select>
          <p className="field-hint" id={`${formatId}-hint`}>
            Alerts from Prometheus Alertmanager, Grafana, PagerDuty Events API v2 senders, Azure Monitor, Amazon CloudWatch (through SNS),
            Sentry and Datadog are recognized automatically. Choose a format to read every payload in it. A custom mapping, when there is
            one, is used instead.
            {integration?.last_payload_format ? ` The last alert was recognized as ${payloadFormatLabels[integration.last_payload_format]}.` : null}
          </p>
        </div>
      )}
      {type === "http" ? <PayloadMapper state={mapper} onChange={setMapper} parseFields={actions.parseFields} /> : null}
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Save integration
        </button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel and close
        </button>
      </div>
    </form>
  );
}

/** A number field's value: none when empty. */
function secondsOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  return typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : undefined;
}

function CredentialsTab({
  integration,
  actions,
  onReset,
}: {
  integration: IntegrationItem;
  actions: IntegrationActions;
  onReset: (integration: IntegrationItem) => void;
}) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);

  async function reset() {
    setConfirming(false);
    setPending(true);
    setMessage(null);
    const result = await actions.resetToken(integration.id);
    setPending(false);
    if (!result.ok) {
      setMessage({ tone: "error", text: result.message });
      return;
    }
    onReset(result.data);
    setMessage({ tone: "success", text: "The authorization key has been reset." });
    router.refresh();
  }

  return (
    <div className="stack">
      {integration.type === "heartbeat" ? (
        <>
          <p className="muted">
            Ping the URL with GET or POST at least once every interval, with the authorization key as a Bearer token or as the{" "}
            <code>token</code> query parameter. When no ping arrives within the interval and the grace period, an alert is created;
            the next ping resolves it.
          </p>
          <CopyField label="Ping URL" value={integration.url} />
          {integration.token !== null ? <CopyField label="Authorization key" value={integration.token} /> : null}
          {integration.token !== null ? (
            <CopyField label="Cron example" value={`curl -fsS -m 10 --retry 3 "${integration.url}?token=${integration.token}"`} />
          ) : null}
        </>
      ) : (
        <>
          <p className="muted">Use the webhook URL and authorization key to send alerts to this integration.</p>
          <CopyField label="Webhook URL" value={integration.url} />
          {integration.token !== null ? <CopyField label="Authorization key" value={integration.token} /> : null}
          {integration.pagerduty_events_url !== null ? (
            <CopyField
              label="PagerDuty Events API v2 URL"
              value={integration.pagerduty_events_url}
              hint="For tools that send to PagerDuty and let you set its URL: use this URL, with the authorization key as the routing (integration) key."
            />
          ) : null}
          {integration.opsgenie_alerts_url !== null ? (
            <CopyField
              label="Opsgenie Alert API URL"
              value={integration.opsgenie_alerts_url}
              hint="For tools that send to Opsgenie and let you set its URL: use this URL (Alertmanager's api_url is the part before v2/alerts), with the authorization key as the API key (GenieKey)."
            />
          ) : null}
        </>
      )}
      {message ? <Notice tone={message.tone}>{message.text}</Notice> : null}
      <div className="form-actions">
        <button type="button" className="button button-danger" disabled={pending} onClick={() => setConfirming(true)}>
          Reset Key
        </button>
      </div>
      {confirming ? (
        <ConfirmDialog title="Reset Key" confirmLabel="Reset Key" danger onConfirm={reset} onCancel={() => setConfirming(false)}>
          <p>If you reset the authorization key for this project, you must update the key in every enabled alert source.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

function TestAlertTab({ integration, actions }: { integration: IntegrationItem; actions: IntegrationActions }) {
  const payloadId = useId();
  const errorId = `${payloadId}-error`;
  // The saved sample is a payload the integration is known to map, so it starts the test; "{}" is no sample.
  const [payload, setPayload] = useState(integration.payload_example === "{}" ? "" : integration.payload_example);
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const error = useMemo(() => {
    if (payload.trim() === "") return null;
    try {
      JSON.parse(payload);
      return null;
    } catch (parseError) {
      return parseError instanceof Error ? parseError.message : "Invalid JSON.";
    }
  }, [payload]);

  async function send() {
    setPending(true);
    setMessage(null);
    const result = await actions.sendTestAlert(integration.id, payload);
    setPending(false);
    setMessage(result.ok ? { tone: "success", text: "The test alert should now be visible in your alerts list." } : { tone: "error", text: result.message });
  }

  return (
    <div className="stack">
      <div className="field">
        <label htmlFor={payloadId}>Alert test payload</label>
        <textarea
          id={payloadId}
          rows={8}
          className="monospace"
          value={payload}
          placeholder='{"title": "Test alert"}'
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          onChange={(event) => setPayload(event.target.value)}
        />
        {error ? (
          <p className="field-error" id={errorId}>
            {error}
          </p>
        ) : (
          <p className="field-hint">Enter a test alert payload in JSON format.</p>
        )}
      </div>
      {message ? <Notice tone={message.tone}>{message.text}</Notice> : null}
      <div className="form-actions">
        <button type="button" className="button" disabled={pending || error !== null || payload.trim() === ""} onClick={send}>
          Send
        </button>
      </div>
    </div>
  );
}

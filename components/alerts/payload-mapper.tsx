"use client";

import { useId, useMemo, useState } from "react";
import { Combobox } from "@/components/ui/combobox";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DetailsList } from "@/components/ui/details-list";
import { Notice } from "@/components/ui/notice";
import { TableHead } from "@/components/ui/table-head";
import { alertFields, type AlertFieldName, type PayloadAttributeMapping } from "@/lib/alerts/fields";
import { alertSeverityLabels } from "@/lib/alerts/form-schemas";
import { isPlainObject } from "@/lib/alerts/json-values";
import { normalizeGenericPayload } from "@/lib/alerts/normalize";
import { extractPayloadFields, type PayloadField } from "@/lib/alerts/payload-fields";
import type { ActionResult } from "@/lib/forms/action-result";

/** What the mapper holds: the sample being edited, the sample the fields were parsed from, and the mapping. */
export interface MapperState {
  sample: string;
  parsedSample: string | null;
  fields: PayloadField[];
  mapping: PayloadAttributeMapping;
  /** A saved sample cannot be edited until the person agrees to lose the mapping. */
  locked: boolean;
}

/** The mapper as a saved integration left it: its sample (parsed again here, the extraction is pure) and mapping. */
export function initialMapperState(payloadExample: string | null, mapping: PayloadAttributeMapping): MapperState {
  const sample = payloadExample && payloadExample.trim() !== "{}" ? payloadExample : "";
  const parsed = parseObject(sample);
  return {
    sample,
    parsedSample: parsed.ok ? sample : null,
    fields: parsed.ok ? extractPayloadFields(parsed.value) : [],
    mapping,
    locked: sample !== "",
  };
}

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; error: string | null };

function parseObject(text: string): Parsed {
  if (text.trim() === "") return { ok: false, error: null };
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? { ok: true, value } : { ok: false, error: "The payload must be a JSON object." };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : "Invalid JSON." };
  }
}

const typeLabels = { string: "String", datetime: "DateTime", array: "Array" } as const;

function fieldTypesLabel(types: readonly string[]): string {
  return types.map((type) => typeLabels[type as keyof typeof typeLabels] ?? type).join(" or ");
}

function fieldKey(field: Pick<PayloadField, "path">): string {
  return JSON.stringify(field.path);
}

/**
 * "Customize alert payload mapping": a sample payload is parsed into its fields, each alert field is pointed at one
 * of them (only fields of a type it accepts), and a preview shows the alert the sample would produce.
 */
export function PayloadMapper({
  state,
  onChange,
  parseFields,
}: {
  state: MapperState;
  onChange: (state: MapperState) => void;
  parseFields: (payloadExample: string) => Promise<ActionResult<PayloadField[]>>;
}) {
  const sampleId = useId();
  const sampleErrorId = `${sampleId}-error`;
  const [parsing, setParsing] = useState(false);
  const [notice, setNotice] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const [confirmingEdit, setConfirmingEdit] = useState(false);
  const parsedInput = useMemo(() => parseObject(state.sample), [state.sample]);

  async function parse() {
    if (!parsedInput.ok) return;
    setParsing(true);
    setNotice(null);
    const result = await parseFields(state.sample);
    setParsing(false);
    if (!result.ok) {
      setNotice({ tone: "error", text: result.fieldErrors ? Object.values(result.fieldErrors).flat().join(" ") : result.message });
      return;
    }
    onChange({ ...state, parsedSample: state.sample, fields: result.data, mapping: {} });
    setNotice({ tone: "success", text: "Sample payload has been parsed. You can now map the fields." });
  }

  function map(field: AlertFieldName, key: string | null) {
    const next = { ...state.mapping };
    const chosen = key === null ? undefined : state.fields.find((candidate) => fieldKey(candidate) === key);
    if (chosen) next[field] = { path: chosen.path, type: chosen.type, label: chosen.label };
    else delete next[field];
    onChange({ ...state, mapping: next });
  }

  return (
    <fieldset className="mapper stack">
      <legend>Customize alert payload mapping (optional)</legend>
      <p className="field-hint">
        If you edit the payload, the stored mapping will be reset, and you&apos;ll need to re-map the fields. Valid JSON is required.
      </p>
      <div className="field">
        <label htmlFor={sampleId}>Sample payload</label>
        <textarea
          id={sampleId}
          rows={8}
          className="monospace"
          value={state.sample}
          disabled={state.locked}
          placeholder='{"alert": {"name": "Disk full"}}'
          aria-invalid={parsedInput.ok || parsedInput.error === null ? undefined : true}
          aria-describedby={!parsedInput.ok && parsedInput.error ? sampleErrorId : undefined}
          onChange={(event) => onChange({ ...state, sample: event.target.value })}
        />
        {!parsedInput.ok && parsedInput.error ? (
          <p className="field-error" id={sampleErrorId}>
            {parsedInput.error}
          </p>
        ) : null}
      </div>
      <div className="form-actions">
        {state.locked ? (
          <button type="button" className="button button-secondary" onClick={() => setConfirmingEdit(true)}>
            Edit payload
          </button>
        ) : (
          <button type="button" className="button button-secondary" disabled={!parsedInput.ok || parsing} onClick={parse}>
            Parse payload fields
          </button>
        )}
      </div>
      {notice ? <Notice tone={notice.tone}>{notice.text}</Notice> : null}
      {confirmingEdit ? (
        <ConfirmDialog
          title="Reset the mapping"
          confirmLabel="Proceed with editing"
          onCancel={() => setConfirmingEdit(false)}
          onConfirm={() => {
            setConfirmingEdit(false);
            setNotice(null);
            onChange({ ...state, locked: false, parsedSample: null, fields: [], mapping: {} });
          }}
        >
          <p>If you edit the payload, you must re-map the fields again.</p>
        </ConfirmDialog>
      ) : null}
      {state.parsedSample !== null ? <MappingTable state={state} onMap={map} /> : null}
      {state.parsedSample !== null ? <AlertPreview sample={state.parsedSample} mapping={state.mapping} /> : null}
    </fieldset>
  );
}

function MappingTable({ state, onMap }: { state: MapperState; onMap: (field: AlertFieldName, key: string | null) => void }) {
  return (
    <table className="table mapping-table">
      <caption className="visually-hidden">Payload alert mapping</caption>
      <TableHead columns={["GitLab alert key", "Payload alert key"]} />
      <tbody>
        {alertFields.map((field) => {
          const options = state.fields
            .filter((candidate) => (field.types as readonly string[]).includes(candidate.type))
            .map((candidate) => ({ value: fieldKey(candidate), label: candidate.label, description: typeLabels[candidate.type] }));
          const mapped = state.mapping[field.name];
          return (
            <tr key={field.name}>
              <th scope="row">
                {field.label} <span className="muted">({fieldTypesLabel(field.types)})</span>
              </th>
              <td>
                <Combobox
                  label={`Payload alert key for ${field.label}`}
                  options={options}
                  value={mapped ? fieldKey(mapped) : null}
                  onChange={(key) => onMap(field.name, key)}
                  placeholder="Select a payload field"
                  emptyText="No fields of a matching type"
                />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The alert the sample would open, computed by the receiver's own (pure) normalization. */
function AlertPreview({ sample, mapping }: { sample: string; mapping: PayloadAttributeMapping }) {
  const headingId = useId();
  const [now] = useState(() => new Date());
  const parsed = parseObject(sample);
  if (!parsed.ok) return null;
  const alert = normalizeGenericPayload(parsed.value, mapping, now);
  const time = (value: Date | null, fallback: string) => (value ? value.toISOString() : fallback);
  const rows: [string, string][] = [
    ["Title", alert.title],
    ["Severity", alertSeverityLabels[alert.severity]],
    ["Start time", alert.startedAt === now ? "When the alert arrives" : time(alert.startedAt, "")],
    ["End time", time(alert.endedAt, "None (the alert fires)")],
    ["Description", alert.description ?? "None"],
    ["Service", alert.service ?? "None"],
    ["Monitoring tool", alert.monitoringTool ?? "None"],
    ["Hosts", alert.hosts.length > 0 ? alert.hosts.join(", ") : "None"],
    ["Environment", alert.environmentName ?? "None"],
  ];
  return (
    <section aria-labelledby={headingId} className="card preview">
      <h3 id={headingId}>Alert preview</h3>
      <DetailsList rows={rows} labelledBy={headingId} />
    </section>
  );
}

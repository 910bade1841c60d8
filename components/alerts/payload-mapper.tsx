"use client";

import { useId, useMemo, useState, type ReactNode } from "react";
import { Combobox } from "@/components/ui/combobox";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DetailsList } from "@/components/ui/details-list";
import { Notice } from "@/components/ui/notice";
import { TableHead } from "@/components/ui/table-head";
import { alertFields, alertSeverities, type AlertFieldName, type MappedField, type PayloadAttributeMapping } from "@/lib/alerts/fields";
import { alertSeverityLabels } from "@/lib/alerts/form-schemas";
import { isPlainObject, jsonPreview } from "@/lib/alerts/json-values";
import { readGenericPayload, truncate, type FieldReading } from "@/lib/alerts/normalize";
import { suggestMapping } from "@/lib/alerts/mapping-suggestions";
import { extractPayloadFields, pathLabel, valueAtPath, type PayloadField } from "@/lib/alerts/payload-fields";
import type { ActionResult } from "@/lib/forms/action-result";

/** What the mapper holds: the sample being edited, the sample the fields were parsed from, and the mapping. */
export interface MapperState {
  sample: string;
  parsedSample: string | null;
  fields: PayloadField[];
  mapping: PayloadAttributeMapping;
  /** A saved sample cannot be edited until the person agrees to lose the mapping. */
  locked: boolean;
  /** Counts the times the mapping was replaced as a whole (a parse, a suggestion), so each field's editor starts afresh. */
  revision: number;
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
    revision: 0,
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

const typeLabels = { string: "String", datetime: "DateTime", number: "Number", array: "Array" } as const;

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
  const parsedSample = useMemo(() => {
    const parsed = state.parsedSample === null ? null : parseObject(state.parsedSample);
    return parsed?.ok ? parsed.value : null;
  }, [state.parsedSample]);

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
    onChange({ ...state, parsedSample: state.sample, fields: result.data, mapping: {}, revision: state.revision + 1 });
    setNotice({ tone: "success", text: "Sample payload has been parsed. You can now map the fields." });
  }

  /** Fills the table with what the fields' names suggest; each stays the Maintainer's to change. */
  function suggest() {
    if (!parsedSample) return;
    const mapping = suggestMapping(state.fields, parsedSample);
    const count = Object.keys(mapping).length;
    onChange({ ...state, mapping, revision: state.revision + 1 });
    setNotice(
      count === 0
        ? { tone: "error", text: "No field of the sample has a name that suggests an alert field: map them by hand." }
        : { tone: "success", text: `${count} ${count === 1 ? "field was" : "fields were"} suggested by their names. Check each one in the table and the preview.` },
    );
  }

  /** Choosing another path keeps the field's value map and fallback. */
  function map(field: AlertFieldName, key: string | null) {
    const next = { ...state.mapping };
    const chosen = key === null ? undefined : state.fields.find((candidate) => fieldKey(candidate) === key);
    if (chosen) next[field] = { ...next[field], path: chosen.path, type: chosen.type, label: chosen.label };
    else delete next[field];
    onChange({ ...state, mapping: next });
  }

  function update(field: AlertFieldName, mapped: MappedField) {
    onChange({ ...state, mapping: { ...state.mapping, [field]: mapped } });
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
        {parsedSample ? (
          <button type="button" className="button button-secondary" onClick={suggest}>
            Suggest a mapping
          </button>
        ) : null}
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
            onChange({ ...state, locked: false, parsedSample: null, fields: [], mapping: {}, revision: state.revision + 1 });
          }}
        >
          <p>If you edit the payload, you must re-map the fields again.</p>
        </ConfirmDialog>
      ) : null}
      {parsedSample ? <MappingTable state={state} sample={parsedSample} onMap={map} onUpdate={update} /> : null}
      {parsedSample ? <AlertPreview sample={parsedSample} mapping={state.mapping} /> : null}
    </fieldset>
  );
}

const sampleLimit = 40;

/** A sample value as the dropdown shows it next to its path: JSON, cut to a glance (and only that much written). */
function sampleText(value: unknown): string {
  return value === undefined ? "" : truncate(jsonPreview(value, sampleLimit), sampleLimit);
}

function MappingTable({
  state,
  sample,
  onMap,
  onUpdate,
}: {
  state: MapperState;
  sample: Record<string, unknown>;
  onMap: (field: AlertFieldName, key: string | null) => void;
  onUpdate: (field: AlertFieldName, mapped: MappedField) => void;
}) {
  return (
    <div className="mapping-table-box">
      <table className="table mapping-table">
        <caption className="visually-hidden">Payload alert mapping</caption>
        <TableHead columns={["GitLab alert key", "Payload alert key"]} />
        <tbody>
          {alertFields.map((field) => {
            const options = state.fields
              .filter((candidate) => (field.types as readonly string[]).includes(candidate.type))
              .map((candidate) => ({
                value: fieldKey(candidate),
                label: candidate.label,
                description: `${typeLabels[candidate.type]}: ${sampleText(valueAtPath(sample, candidate.path))}`,
              }));
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
                  {mapped ? (
                    <ValueOptions
                      key={state.revision}
                      field={field.name}
                      fieldLabel={field.label}
                      mapped={mapped}
                      onChange={(next) => onUpdate(field.name, next)}
                    />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The value map's entries as stored: trimmed, complete pairs only. */
function valueMap(pairs: [string, string][]): Record<string, string> | undefined {
  const complete = pairs.map(([from, to]) => [from.trim(), to.trim()] as const).filter(([from, to]) => from !== "" && to !== "");
  return complete.length > 0 ? Object.fromEntries(complete) : undefined;
}

/** A mapped field without empty extensions, so the stored mapping stays in GitLab's shape unless it uses them. */
function withExtras(mapped: MappedField, values: Record<string, string> | undefined, fallback: string): MappedField {
  const { values: _values, fallback: _fallback, ...base } = mapped;
  return { ...base, ...(values ? { values } : {}), ...(fallback.trim() !== "" ? { fallback: fallback.trim() } : {}) };
}

/** A value box: free text, or for severity a choice of the alert severities. */
function AlertValueInput({
  id,
  field,
  value,
  emptyLabel,
  onChange,
}: {
  id: string;
  field: AlertFieldName;
  value: string;
  emptyLabel: string;
  onChange: (value: string) => void;
}) {
  if (field !== "severity") return <input id={id} type="text" value={value} onChange={(event) => onChange(event.target.value)} />;
  return (
    <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">{emptyLabel}</option>
      {alertSeverities.map((severity) => (
        <option key={severity} value={severity}>
          {alertSeverityLabels[severity]}
        </option>
      ))}
    </select>
  );
}

/** "Values and fallback" of one mapped field: payload value → alert value pairs, and a constant for a missing value. */
function ValueOptions({
  field,
  fieldLabel,
  mapped,
  onChange,
}: {
  field: AlertFieldName;
  fieldLabel: string;
  mapped: MappedField;
  onChange: (mapped: MappedField) => void;
}) {
  const id = useId();
  const [pairs, setPairs] = useState<[string, string][]>(() => Object.entries(mapped.values ?? {}));
  const [fallback, setFallback] = useState(mapped.fallback ?? "");
  const used = Object.keys(mapped.values ?? {}).length + (mapped.fallback ? 1 : 0);
  const [open, setOpen] = useState(used > 0);

  function update(nextPairs: [string, string][], nextFallback: string) {
    setPairs(nextPairs);
    setFallback(nextFallback);
    onChange(withExtras(mapped, valueMap(nextPairs), nextFallback));
  }

  return (
    <details className="mapper-values" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        Values and fallback<span className="visually-hidden"> for {fieldLabel}</span>
        {used > 0 ? <span className="muted"> ({used} set)</span> : null}
      </summary>
      <div className="stack mapper-values-body">
        {pairs.map(([from, to], index) => (
          <div className="mapper-value-pair" key={index}>
            <div className="field">
              <label htmlFor={`${id}-from-${index}`}>
                Payload value {index + 1}
                <span className="visually-hidden"> for {fieldLabel}</span>
              </label>
              <input
                id={`${id}-from-${index}`}
                type="text"
                value={from}
                onChange={(event) => update(pairs.with(index, [event.target.value, to]), fallback)}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-to-${index}`}>{fieldLabel} value {index + 1}</label>
              <AlertValueInput
                id={`${id}-to-${index}`}
                field={field}
                value={to}
                emptyLabel="Choose a severity"
                onChange={(value) => update(pairs.with(index, [from, value]), fallback)}
              />
            </div>
            <button
              type="button"
              className="button button-secondary button-small"
              aria-label={`Remove payload value ${index + 1} for ${fieldLabel}`}
              onClick={() => update(pairs.toSpliced(index, 1), fallback)}
            >
              Remove
            </button>
          </div>
        ))}
        <div>
          <button type="button" className="button button-secondary button-small" onClick={() => update([...pairs, ["", ""]], fallback)}>
            Add a value<span className="visually-hidden"> for {fieldLabel}</span>
          </button>
        </div>
        <div className="field">
          <label htmlFor={`${id}-fallback`}>Fallback for {fieldLabel}</label>
          <AlertValueInput
            id={`${id}-fallback`}
            field={field}
            value={fallback}
            emptyLabel="No fallback"
            onChange={(value) => update(pairs, value)}
          />
          <p className="field-hint">Used when the payload has no value at this path.</p>
        </div>
      </div>
    </details>
  );
}

const noValueBecause: Partial<Record<AlertFieldName, string>> = {
  start_time: "which is not a time",
  end_time: "which is not a time",
  hosts: "which has no text or number values",
};

/** Why a field shows what it shows, when that is not simply the mapped value. */
function readingNote(field: AlertFieldName, reading: FieldReading, empty: boolean): string | null {
  const replaced = [...new Set(reading.replaced.map(([from, to]) => `${from} → ${to}`))];
  if (reading.source === "mapping") {
    if (replaced.length > 0) return `value map: ${replaced.join(", ")}`;
    if (empty) return `${pathLabel(reading.path!)} holds ${sampleText(reading.found)}, ${noValueBecause[field] ?? "which gives no value here"}`;
    return null;
  }
  const missed = reading.path ? `${pathLabel(reading.path)} found nothing in the sample` : "not mapped";
  if (reading.source === "fallback") return `${missed}; the fallback is used`;
  if (reading.source === "standard") return `${missed}; the payload's standard key "${field}" is used`;
  return `${missed}, and the sample has no standard key "${field}", so ${empty ? "it stays empty" : "the default is used"}`;
}

/** The alert the sample would open, computed by the receiver's own (pure) normalization. */
function AlertPreview({ sample, mapping }: { sample: Record<string, unknown>; mapping: PayloadAttributeMapping }) {
  const headingId = useId();
  const [now] = useState(() => new Date());
  const { alert, readings } = readGenericPayload(sample, mapping, now);
  const time = (value: Date | null) => (value ? value.toISOString() : null);
  const fields: [AlertFieldName, string, string | null, string][] = [
    ["title", "Title", alert.title, ""],
    ["severity", "Severity", alertSeverityLabels[alert.severity], ""],
    ["start_time", "Start time", alert.startedAt === now ? null : time(alert.startedAt), "When the alert arrives"],
    ["end_time", "End time", time(alert.endedAt), "None (the alert fires)"],
    ["description", "Description", alert.description, "None"],
    ["service", "Service", alert.service, "None"],
    ["monitoring_tool", "Monitoring tool", alert.monitoringTool, "None"],
    ["hosts", "Hosts", alert.hosts.length > 0 ? alert.hosts.join(", ") : null, "None"],
    ["gitlab_environment_name", "Environment", alert.environmentName, "None"],
  ];
  const rows: [string, ReactNode][] = fields.map(([field, label, value, empty]) => {
    const note = readingNote(field, readings[field], value === null);
    return [
      label,
      <>
        <span className="preview-value">{value ?? empty}</span>
        {note ? <span className="preview-note"> ({note})</span> : null}
      </>,
    ];
  });
  return (
    <section aria-labelledby={headingId} className="card preview">
      <h3 id={headingId}>Alert preview</h3>
      <DetailsList rows={rows} labelledBy={headingId} />
    </section>
  );
}

"use client";

import { useId, useRef, type KeyboardEvent, type ReactNode } from "react";

export interface TabItem {
  key: string;
  label: string;
  disabled?: boolean;
  content: ReactNode;
}

/**
 * WAI-ARIA tabs: a tablist whose tabs switch one panel, with arrow-key movement between enabled tabs. The caller
 * owns which tab is selected, so it can switch tabs itself (e.g. after saving).
 */
export function Tabs({ label, items, selected, onSelect }: { label: string; items: TabItem[]; selected: string; onSelect: (key: string) => void }) {
  const id = useId();
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});
  const enabled = items.filter((item) => !item.disabled);

  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>) {
    const index = enabled.findIndex((item) => item.key === selected);
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (step === 0 || index < 0) return;
    event.preventDefault();
    const next = enabled[(index + step + enabled.length) % enabled.length]!;
    onSelect(next.key);
    tabRefs.current[next.key]?.focus();
  }

  const current = items.find((item) => item.key === selected) ?? items[0];
  return (
    <div className="tabset">
      <div role="tablist" aria-label={label} className="tabs">
        {items.map((item) => (
          <button
            key={item.key}
            ref={(element) => {
              tabRefs.current[item.key] = element;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${item.key}`}
            aria-selected={item.key === current?.key}
            aria-controls={`${id}-panel-${item.key}`}
            tabIndex={item.key === current?.key ? 0 : -1}
            disabled={item.disabled}
            onClick={() => onSelect(item.key)}
            onKeyDown={onKeyDown}
          >
            {item.label}
          </button>
        ))}
      </div>
      {current ? (
        <div role="tabpanel" id={`${id}-panel-${current.key}`} aria-labelledby={`${id}-tab-${current.key}`} className="tabpanel">
          {current.content}
        </div>
      ) : null}
    </div>
  );
}

"use client";

import { useEffect, useRef } from "react";
import type { FormFailure } from "./use-server-errors";
import { Notice } from "./notice";

/** A form's error notice; when nothing else shows the failure it is scrolled into view and takes the focus. */
export function FormFailureNotice({ failure }: { failure: FormFailure | null }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!failure?.focus || !ref.current) return;
    ref.current.focus();
    ref.current.scrollIntoView({ block: "center" });
  }, [failure]);
  if (!failure) return null;
  return (
    <Notice tone="error" ref={ref} focusable>
      {failure.message}
    </Notice>
  );
}

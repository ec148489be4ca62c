'use client';

import { useState } from 'react';
import { ReferenceArea } from 'recharts';
import type { MouseHandlerDataParam } from 'recharts';

/**
 * Zoom by dragging across a time chart: press on one bucket, release on another, and `onZoom` gets the first
 * and last bucket dragged over, in time order. A click without a drag zooms nothing (it only shows the tooltip).
 * The shaded band follows the pointer so the range is seen before it is chosen. The keyboard's way to the same
 * range is the page's From and To fields.
 */
export function useDragZoom(onZoom: (firstBucket: string, lastBucket: string) => void) {
  const [pressedOn, setPressedOn] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const labelOf = (state: MouseHandlerDataParam) =>
    state.activeLabel === undefined ? null : String(state.activeLabel);

  const chartProps = {
    onMouseDown: (state: MouseHandlerDataParam) => {
      setPressedOn(labelOf(state));
      setOver(null);
    },
    onMouseMove: (state: MouseHandlerDataParam) => {
      if (pressedOn !== null) setOver(labelOf(state));
    },
    onMouseUp: () => {
      if (pressedOn !== null && over !== null && over !== pressedOn) {
        // ISO bucket starts sort as text in time order.
        if (pressedOn < over) onZoom(pressedOn, over);
        else onZoom(over, pressedOn);
      }
      setPressedOn(null);
      setOver(null);
    },
    onMouseLeave: () => {
      setPressedOn(null);
      setOver(null);
    },
    style: { cursor: 'crosshair', userSelect: 'none' as const },
  };
  const selection =
    pressedOn !== null && over !== null && over !== pressedOn ? (
      <ReferenceArea
        key="selection"
        x1={pressedOn}
        x2={over}
        fill="var(--accent)"
        fillOpacity={0.15}
        ifOverflow="extendDomain"
      />
    ) : null;
  return { chartProps, selection };
}

import { OTLP_LIMITS } from './otlp-limits';

/**
 * OTLP attribute values (AnyValue) as plain values. Holdfast reads strings,
 * numbers and booleans; arrays, maps and bytes are kept as their JSON text,
 * which no mapping rule reads. 64-bit integers come as decimal strings (both
 * encodings) and are read as numbers when they are safe integers.
 */
export type AttributeValue = string | number | boolean;

export interface OtlpKeyValue {
  key?: unknown;
  value?: Record<string, unknown> | null;
}

/** The longest attribute text kept: an error text is cut to 10,000 characters later anyway. */
export const MAX_TEXT = 20_000;

export function attributesOf(keyValues: readonly OtlpKeyValue[]): Map<string, AttributeValue> {
  const attributes = new Map<string, AttributeValue>();
  for (const { key, value } of keyValues) {
    if (typeof key !== 'string' || !value) continue;
    const plain = plainValue(value);
    if (plain !== undefined) attributes.set(key, plain);
  }
  return attributes;
}

/**
 * An array or kvlist value (OTLP JSON) past the limits of otlp-limits.ts, as the reason to refuse its span:
 * more nested values in all than `nestedValues`, or nested deeper than `nestedDepth`. Walked without recursion.
 */
export function nestedValueProblem(value: Record<string, unknown>): string | undefined {
  let left: number = OTLP_LIMITS.nestedValues;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    const any = current as Record<string, unknown>;
    const nested = (any.arrayValue ?? any.kvlistValue) as { values?: unknown } | undefined | null;
    if (!nested || typeof nested !== 'object') continue;
    if (depth + 1 > OTLP_LIMITS.nestedDepth)
      return `an attribute value nests arrays or kvlists more than ${OTLP_LIMITS.nestedDepth} deep`;
    const values = Array.isArray(nested.values) ? nested.values : [];
    left -= values.length;
    if (left < 0) return `an attribute value holds more than ${OTLP_LIMITS.nestedValues} values`;
    for (const item of values) {
      // A kvlist's items are KeyValues: their values nest further.
      const inner = any.kvlistValue ? (item as { value?: unknown } | null)?.value : item;
      pending.push({ value: inner, depth: depth + 1 });
    }
  }
  return undefined;
}

function plainValue(value: Record<string, unknown>): AttributeValue | undefined {
  if (typeof value.stringValue === 'string') return value.stringValue.slice(0, MAX_TEXT);
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (typeof value.doubleValue === 'number') return value.doubleValue;
  const int = value.intValue;
  if (int !== undefined && int !== null) {
    // A decimal string (JSON), a number, or a 64-bit Long as protobufjs decodes it.
    const number = isLong(int) ? int.high * 2 ** 32 + (int.low >>> 0) : Number(int);
    return Number.isSafeInteger(number) ? number : String(int);
  }
  // Unset fields of a decoded protobuf message are null, absent ones of a JSON object undefined.
  const nested = value.arrayValue ?? value.kvlistValue;
  if (nested !== undefined && nested !== null) return JSON.stringify(nested).slice(0, MAX_TEXT);
  return undefined;
}

function isLong(value: unknown): value is { low: number; high: number } {
  return typeof value === 'object' && value !== null && 'low' in value && 'high' in value;
}

export function textAttribute(attributes: Map<string, AttributeValue>, key: string): string | undefined {
  const value = attributes.get(key);
  if (value === undefined) return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

export function numberAttribute(attributes: Map<string, AttributeValue>, key: string): number | undefined {
  const value = attributes.get(key);
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? number : undefined;
}

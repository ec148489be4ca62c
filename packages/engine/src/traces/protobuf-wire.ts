import { OTLP_LIMITS, type ReadingNotes, UnreadableRequestError } from './otlp-limits';

export interface Range {
  start: number;
  end: number;
}

export const VARINT = 0;
export const I64 = 1;
export const LEN = 2;
export const I32 = 5;

/**
 * The protobuf wire format over one buffer: a message's fields by number, wire type and payload range, and the
 * few scalar readings a message reader needs. Texts are cut at OTLP_LIMITS.valueBytes (a cut is counted).
 */
export class WireReader {
  notes: ReadingNotes = { refused: [], cutTexts: 0 };
  private pos = 0;

  constructor(protected readonly bytes: Buffer) {}

  /** Calls `each` for every field of the message in [start, end): its number, wire type and payload's range. */
  fields(start: number, end: number, each: (field: number, wire: number, start: number, end: number) => void) {
    let at = start;
    while (at < end) {
      this.pos = at;
      const tag = this.varint(end);
      const field = Math.floor(tag / 8);
      const wire = tag % 8;
      if (field === 0) throw unreadable('a field numbered 0');
      let payloadStart = this.pos;
      let payloadEnd: number;
      if (wire === VARINT) {
        this.varint(end);
        payloadEnd = this.pos;
      } else if (wire === I64) payloadEnd = payloadStart + 8;
      else if (wire === I32) payloadEnd = payloadStart + 4;
      else if (wire === LEN) {
        const length = this.varint(end);
        payloadStart = this.pos;
        payloadEnd = payloadStart + length;
      } else throw unreadable(`wire type ${wire}`);
      if (payloadEnd > end) throw unreadable('a field runs past the end of its message');
      each(field, wire, payloadStart, payloadEnd);
      at = payloadEnd;
    }
  }

  /** A varint read at `pos`, exact up to 2^53 (tags, lengths and counts are far below). */
  private varint(end: number): number {
    let value = 0;
    let scale = 1;
    for (let index = 0; index < 10; index += 1) {
      if (this.pos >= end) throw unreadable('a number runs past the end of its message');
      const byte = this.bytes[this.pos]!;
      this.pos += 1;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw unreadable('a number longer than 10 bytes');
  }

  /** A varint at [start, end) as a signed 64-bit integer (int64). */
  protected int64(start: number, end: number): bigint {
    let value = 0n;
    let shift = 0n;
    for (let at = start; at < end; at += 1) {
      value |= BigInt(this.bytes[at]! & 0x7f) << shift;
      shift += 7n;
    }
    return BigInt.asIntN(64, value);
  }

  /** Text at [start, end), of which only the first OTLP_LIMITS.valueBytes are read (a text cut is counted). */
  text(start: number, end: number): string {
    if (end - start <= OTLP_LIMITS.valueBytes) return this.bytes.toString('utf8', start, end);
    this.notes.cutTexts += 1;
    // A character split at the cut decodes as U+FFFD: left out.
    return this.bytes.toString('utf8', start, start + OTLP_LIMITS.valueBytes).replace(/\uFFFD$/, '');
  }

  protected hex(start: number, end: number): string {
    return this.bytes.toString('hex', start, end);
  }
}

/** The request's bytes are no OTLP protobuf request: refused as a whole (400). */
export function unreadable(what: string) {
  return new UnreadableRequestError(`not an OTLP protobuf ExportTraceServiceRequest: ${what}`);
}

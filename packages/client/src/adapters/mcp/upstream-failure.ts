import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorClassOfStatus, StepError } from '../step-loop';

/**
 * What a failed call to the upstream server says about the tool's side
 * effect. Only a failure that proves the call never left, or that the server
 * itself answered, is a failed attempt; any other (a timeout, a connection
 * closed or broken while the call was out) leaves the outcome unknown, and an
 * unknown outcome is never retried.
 */
/** The gateway could not connect to the upstream server (a command that would not start, a refused connection). */
export class UpstreamUnreachable extends Error {
  constructor(cause: unknown) {
    super(`could not connect: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'UpstreamUnreachable';
  }
}

export type UpstreamFailure = { known: true; error: StepError } | { known: false; cause: string };

/** Errors with which a connection refuses before anything is sent. */
const NOTHING_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function upstreamFailureOf(error: unknown): UpstreamFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed) {
      return { known: false, cause: message };
    }
    // The server answered with a protocol error: the call was refused as a request (an unknown tool, bad
    // arguments) or the server failed; either way it said so itself.
    const permanent = [ErrorCode.InvalidParams, ErrorCode.InvalidRequest, ErrorCode.MethodNotFound].includes(
      error.code,
    );
    return {
      known: true,
      error: new StepError(permanent ? 'permanent' : 'unknown', `the server answered error ${error.code}: ${message}`),
    };
  }
  // An HTTP refusal of the request itself (a proxy's 502, a lost session's 404): the server did not take the
  // call. A lost session is transient: the gateway connects again before the retry.
  if (error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code >= 400) {
    const errorClass = error.code === 404 ? 'transient' : errorClassOfStatus(error.code);
    return { known: true, error: new StepError(errorClass, `the server refused the request: ${message}`) };
  }
  // No connection, or the SDK's own "Not connected": the request was never handed to a transport.
  if (error instanceof UpstreamUnreachable || message === 'Not connected' || NOTHING_SENT.has(codeOf(error) ?? '')) {
    return { known: true, error: new StepError('transient', `the server could not be reached: ${message}`) };
  }
  return { known: false, cause: message };
}

/** A Node system error's code, on the error or its cause (fetch wraps it). */
function codeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

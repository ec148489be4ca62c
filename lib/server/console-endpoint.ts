import 'server-only';
import type { NextRequest } from 'next/server';
import { NextResponse } from 'next/server';
import type { z } from 'zod';
import { decide, type Action } from '@holdfast/engine/core';
import { parseInput } from '@holdfast/protocol/validation';
import type { Database } from '@holdfast/engine/db';
import { readConsole } from './read-source/read-console';
import { withDatabaseDeadline } from './database-outage';
import { getDb } from './db';
import { errorResponse, problemResponse } from './problem';
import { encodeReadSource, READ_SOURCE_HEADER } from './read-source/notice';
import { getCurrentPerson, type PersonActor } from './session';

/** What a console route reads besides the person: its query string and its dynamic segments, each by a schema. */
export interface ConsoleEndpointSpec<Query extends z.ZodType | undefined, Params extends z.ZodType | undefined> {
  /** What the person must be allowed to do; reading the console when absent. */
  action?: Action;
  /** The query string's schema: a bad or unknown parameter is a 400 naming it. */
  query?: Query;
  /** The route's dynamic segments' schema (`[id]`), likewise. */
  params?: Params;
}

type Parsed<Schema> = Schema extends z.ZodType ? z.output<Schema> : undefined;

/** What a console handler is given: the database, who is asking, the request, and its parsed query and segments. */
export interface ConsoleRequest<
  Query extends z.ZodType | undefined = undefined,
  Params extends z.ZodType | undefined = undefined,
> {
  /** The replica for a GET when it is current enough (see read-source/read-console.ts), else the primary. */
  db: Database;
  person: PersonActor;
  request: NextRequest;
  query: Parsed<Query>;
  params: Parsed<Params>;
}

/** Next's second argument to a route handler; absent in tests that call a handler without segments. */
interface RouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
}

/**
 * The one way a console route handler (app/api/console/**) runs: the
 * signed-in person (401 without one), may they (403 naming why not), the
 * query and segments parsed (400 naming every bad one), then the handler
 * under the database deadline (a GET's reads from the replica when it is
 * current enough; the response's READ_SOURCE_HEADER says where from). The handler answers a value, sent as JSON
 * that is never cached, or a Response of its own (a CSV export). Whatever
 * is thrown, reading the session included, is mapped: a library error to
 * its code's status, an outage to 503, anything else to a 500 that shows nothing.
 */
export function consoleEndpoint<
  Query extends z.ZodType | undefined = undefined,
  Params extends z.ZodType | undefined = undefined,
>(spec: ConsoleEndpointSpec<Query, Params>, handle: (request: ConsoleRequest<Query, Params>) => Promise<unknown>) {
  const action = spec.action ?? 'console.read';
  return async (request: NextRequest, context?: RouteContext): Promise<Response> => {
    try {
      // Inside the try and the deadline: reading the session may query the database, which may be down or hung.
      const person = await withDatabaseDeadline(getCurrentPerson());
      if (!person) return problemResponse(401, 'UNAUTHENTICATED', 'Sign in first');
      const decision = decide(person, action);
      if (!decision.allowed) return problemResponse(403, 'FORBIDDEN', `You may not ${action}: ${decision.reason}`);
      const query = (
        spec.query ? parseInput(spec.query, Object.fromEntries(request.nextUrl.searchParams)) : undefined
      ) as Parsed<Query>;
      const params = (spec.params ? parseInput(spec.params, await context?.params) : undefined) as Parsed<Params>;
      const work = (db: Database) => handle({ db, person, request, query, params });
      // A GET only reads: it may read from the replica. Anything else writes, so on the primary.
      const { value: answer, source } =
        request.method === 'GET'
          ? await withDatabaseDeadline(readConsole(work))
          : { value: await withDatabaseDeadline(work(getDb())), source: undefined };
      const response =
        answer instanceof Response ? answer : NextResponse.json(answer, { headers: { 'cache-control': 'no-store' } });
      if (source) response.headers.set(READ_SOURCE_HEADER, encodeReadSource(source));
      return response;
    } catch (error) {
      return errorResponse(error);
    }
  };
}

import { z } from 'zod';
import { NotFoundError } from '@holdfast/protocol/errors';
import { getBulkRedrive } from '@/lib/queries/dead-letters';
import { consoleEndpoint } from '@/lib/server/console-endpoint';

export const dynamic = 'force-dynamic';

const bulkRedriveParams = z.strictObject({ id: z.coerce.number().int().min(1) });

/** A bulk redrive's progress, which its progress bar polls. */
export const GET = consoleEndpoint({ params: bulkRedriveParams }, async ({ db, params: { id } }) => {
  const run = await getBulkRedrive(db, id);
  if (!run) throw new NotFoundError(`No bulk redrive ${id}`);
  return run;
});

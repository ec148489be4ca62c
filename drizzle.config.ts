import { defineConfig } from 'drizzle-kit';

// Used only by `npm run db:generate`, which writes SQL migrations into packages/engine/drizzle/.
// Name each one: npm run db:generate -- --name add_holds
// Only the product's schema: the demo fleet's tables (lib/fleet/tables.ts) are made by the
// fleet's own migration set (lib/fleet/migrations), never by these.
export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/engine/src/db/schema/index.ts',
  out: './packages/engine/drizzle',
});

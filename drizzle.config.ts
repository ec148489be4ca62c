import { defineConfig } from 'drizzle-kit';

// Used only by `npm run db:generate`, which writes SQL migrations into drizzle/.
// Name each one: npm run db:generate -- --name add_holds
export default defineConfig({
  dialect: 'postgresql',
  schema: './lib/db/schema/index.ts',
  out: './drizzle',
});

/**
 * Whether `npm start` seeds the demo people (one per role, the admin among them).
 * Only into the embedded database: seeding a named database would leave a
 * known admin account in a real deployment, even after demo mode is turned off.
 */
export function shouldSeedDemoPeople(options: {
  authMode: 'demo' | 'proxy' | undefined;
  embeddedDatabase: boolean;
}): boolean {
  return options.authMode === 'demo' && options.embeddedDatabase;
}

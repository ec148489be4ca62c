// Stands in for the `server-only` marker package when tests import read models.
export {};

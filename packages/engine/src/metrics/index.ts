/** The metrics' face: the scrape GET /metrics serves and its catalog. */
export { METRICS_CONTENT_TYPE, scrapeMetrics } from './scrape';
export { readMetrics } from './read-metrics';
export { metricCatalog } from './catalog';

/** Read from rollups where they exist (the default), or from the raw log alone (the benchmark's raw ceiling). */
export interface ReadOptions {
  rawOnly?: boolean;
}

/** The contract suite's shared setup: HTTP client, oracles, and `usePlatform` (the per-file platform and its helpers). */
export * from './http';
export * from './oracles';
export * from './fixture';

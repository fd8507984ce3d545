/** The contract suite's shared setup: HTTP client, oracles, the platform and the per-file fixture. */
export * from './http';
export * from './oracles';
export * from './fixture';
export { EVERY_PART, startPlatform, type Platform, type PlatformParts } from './platform';

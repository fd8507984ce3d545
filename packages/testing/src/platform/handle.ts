/** What every mode of `startPlatform` answers, whichever it is: where its services are, and how to stop it. */
export type PlatformService = 'auth' | 'user' | 'categorization' | 'notifier';

export interface PlatformHandle {
  /**
   * The base URL of each service the platform started (mode `cluster`: HAProxy's front of each
   * HTTP service; the notifier has none there).
   */
  urls: Partial<Record<PlatformService, string>>;
  /** Stops everything the platform started and removes what it made (database, keys, topology, state folder). */
  stop(): Promise<void>;
}

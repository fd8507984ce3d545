/** What tests outside the service use of its test support (`@platform/user/testing`). */
export * from './harness';
export * from './usage-calls';

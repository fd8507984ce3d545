export * from './migrate';
export * from './pool';
export * from './migrate-command';
export * from './retention-sweeper';
export * from './identity';

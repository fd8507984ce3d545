export * from './access-reconciler';
export * from './alert-contacts';
export * from './pool-credits';
export * from './webhook-queue';
export * from './webhook-state';

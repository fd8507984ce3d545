export * from './access-reconciler';
export * from './alert-contacts';
export * from './key-refusal';
export * from './pool-credits';
export * from './webhook-queue';
export * from './access-watching';
export * from './webhook-state';
export * from './admin-audit';

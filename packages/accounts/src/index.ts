export * from './access-reconciler';
export * from './alert-contacts';

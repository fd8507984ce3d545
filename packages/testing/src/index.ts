export * from './accounts';
export * from './logs';
export * from './servers';
export * from './smtp';
export * from './tcp-proxy';
export * from './wait';

export * from './accounts';
export * from './logs';
export * from './private-database';
export * from './rabbitmq';
export * from './servers';
export * from './smtp';
export * from './tcp-proxy';
export * from './wait';

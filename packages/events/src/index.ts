export * from './amqp-event-bus';
export * from './balance-changed';
export * from './event-bus';
export * from './in-process-event-bus';

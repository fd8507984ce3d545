export * from './balance-changed';

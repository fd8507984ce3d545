export { infrastructureVariables, standaloneOnly, type InfrastructureConfig } from './config';
export {
  openInfrastructure,
  type Adapters,
  type EmbeddedPostgres,
  type Infrastructure,
  type Need,
  type OpenInfrastructureOptions,
  type RedisAdapter,
} from './infrastructure';
export { createFileMailer, createSmtpMailer, type Mailer, type OutgoingMail } from './mailer';
export { serveOn } from './standalone';

export { loadConfig, type NotifierConfig } from './config';
export { createDeps, type NotifierDeps, type ProvidedDeps } from './deps';
export { createFileMailer, createSmtpMailer, type Mailer, type OutgoingMail } from './mailer';
export { startNotifierService, type NotifierService, type StartNotifierOptions } from './service';

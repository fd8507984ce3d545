/** Placeholder: the user service's admin commands (replaced by the service's implementation). */
export function runUserCli(_args: string[], _env: NodeJS.ProcessEnv): Promise<void> {
  return Promise.reject(new Error('not implemented yet'));
}

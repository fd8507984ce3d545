import type { Platform } from './platform';
import { walkThroughExports } from './platform';

/** Where the admin token comes from, for the banner: a generated one is printed once, a given one never (§1). */
function adminTokenLine(platform: Pick<Platform, 'adminToken' | 'adminTokenGenerated'>): string {
  if (platform.adminTokenGenerated) return `${platform.adminToken ?? ''} (generated; set ADMIN_TOKEN or ADMIN_TOKENS to choose)`;
  return platform.adminToken === undefined ? 'from ADMIN_TOKENS' : 'from ADMIN_TOKEN';
}

/** What `pnpm start` prints once every service listens. */
export function startBanner(platform: Platform): string {
  const lines = [
    '',
    `Account access platform is running${platform.embedded.length > 0 ? ` (embedded: ${platform.embedded.join(', ')})` : ''}`,
    `  auth            ${platform.urls.auth}`,
    `  user            ${platform.urls.user}`,
    `  categorization  ${platform.urls.categorization}`,
    `  notifier        ${platform.urls.notifier}`,
    `  account page    ${platform.urls.user}/account/`,
    `  operator console ${platform.urls.user}/admin/`,
    `  admin token     ${adminTokenLine(platform)}`,
    `  data folder     ${platform.dataDir} (stop, then delete it to start afresh)`,
    '',
    'For the README walk-through and pnpm admin, in another shell (without pnpm installed, `pnpm` is `npx --yes pnpm@10`):',
    `  export ${walkThroughExports(platform).join(' ')}`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The auth service's route table (issue 42): every routes file's group, in the order of the
 * OpenAPI document (`declaredRoutes`), and mounted in that order by app.ts (`mountRouteGroups`).
 * A new routes file is one line here; a new route in a file, none.
 */
import { introspectRevokeRoutes } from './introspect-revoke.routes';
import { metadataRoutes } from './metadata.routes';
import { tokenRoutes } from './token.routes';

export const authRouteTable = [tokenRoutes, introspectRevokeRoutes, metadataRoutes];

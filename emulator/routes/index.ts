/** The full route table of the public API. */
import { alertConfigRoutes } from './alert-configs.ts';
import type { Route } from './context.ts';
import { eventRoutes } from './events.ts';
import { physicalHostRoutes } from './physical-hosts.ts';
import { s3ConfigRoutes } from './s3-configs.ts';
import { settingsRoutes } from './settings.ts';
import { usageRoutes } from './usage.ts';

/** Every route, in matching order. */
export const ROUTES: readonly Route[] = [
  ...alertConfigRoutes,
  ...physicalHostRoutes,
  ...usageRoutes,
  ...eventRoutes,
  ...settingsRoutes,
  ...s3ConfigRoutes,
];

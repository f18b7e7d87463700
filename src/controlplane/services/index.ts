// The services beside Keystone, in projection order (docs/architecture.md §2.13). A new service is
// a descriptor file here and one line below; the pipeline, status and teardown take it from SERVICES.
import type { Stage } from '../stage.js';
import type { ServiceDescriptor } from './descriptor.js';
import { placement } from './placement.js';
import { glance } from './glance.js';
import { serviceStage } from './stage.js';

export const SERVICES: readonly ServiceDescriptor[] = [placement, glance];

export const SERVICE_STAGES: readonly Stage[] = SERVICES.map((d) => serviceStage(d, SERVICES));

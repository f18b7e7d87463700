// The failed result of a stage whose spec fields cannot be used (docs/architecture.md §2.8): its
// message names the first ten problems and how many more there are, so it stays bounded.
import { listed } from '../../api/validate.js';
import { REASON, type Reason } from '../conditions.js';
import { failed, type StageResult } from '../stage.js';

export function invalidSpec(errors: string[], requeueSeconds: number, reason: Reason = REASON.InvalidSpec): StageResult {
  return {
    condition: { status: 'False', reason, message: `Invalid spec: ${listed(errors)}` },
    outcome: failed(requeueSeconds),
    children: [],
  };
}

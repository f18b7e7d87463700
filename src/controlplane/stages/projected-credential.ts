// Stages 2 and 3 share one shape (seed: reconcileAdminPassword "mirrors reconcileDBCredentials"):
// brownfield is a no-op True; managed checks the ClusterSecretStore first, projects one
// per-ControlPlane ExternalSecret, and waits for it to sync.
import { GVK } from '../../k8s/kinds.js';
import { REASON, type Reason, type SubConditionType } from '../conditions.js';
import { externalSecret, secretStoreReady, type RemoteValue } from '../external-secret.js';
import { CLUSTER_SECRET_STORE } from '../names.js';
import { isManagedDatabase } from '../spec.js';
import { complete, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { awaitReady } from './await-ready.js';

export interface ProjectedCredential {
  name: string;
  conditionType: SubConditionType;
  reads: string[];
  /** What is projected, for messages ("DB credential", "admin password"). */
  what: string;
  secretName: (input: StageInput) => string;
  data: (input: StageInput) => RemoteValue[];
  waitingReason: Reason;
  readyReason: Reason;
  requeueSeconds: number;
}

export function projectedCredentialStage(p: ProjectedCredential): Stage {
  return {
    name: p.name,
    conditionType: p.conditionType,
    reads: p.reads,
    interval: p.requeueSeconds,
    run(input): StageResult {
      if (!isManagedDatabase(input.spec)) {
        return {
          condition: {
            status: 'True',
            reason: REASON.BrownfieldUserSuppliedCredential,
            message: `Brownfield: the ${p.what} Secret is supplied by the user`,
          },
          outcome: complete(),
          children: [],
        };
      }
      if (!secretStoreReady(input.related)) {
        return {
          condition: {
            status: 'False',
            reason: REASON.SecretStoreNotReady,
            message: `ClusterSecretStore ${CLUSTER_SECRET_STORE} is not Ready`,
          },
          outcome: waiting(p.requeueSeconds),
          children: [],
        };
      }
      const name = p.secretName(input);
      return awaitReady({
        label: `ExternalSecret ${name}`,
        desired: externalSecret(input.cp, name, p.data(input)),
        observed: input.children.get(GVK.ExternalSecret, input.cp.namespace, name),
        waitingReason: p.waitingReason,
        readyReason: p.readyReason,
        readyMessage: `ExternalSecret ${name} synced the ${p.what}`,
        requeueSeconds: p.requeueSeconds,
      });
    },
  };
}

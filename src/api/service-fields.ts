// The schema pieces every OpenStack service of the ControlPlane API shares (Keystone and the
// services beside it): oslo.policy overrides, the Gateway, free-form INI config and the fields every
// declared service takes. A leaf of the API: the services' descriptors (src/controlplane/services/)
// build their spec.services.<svc> schema from it, and the ControlPlane schema assembles them.
import { Type } from '@sinclair/typebox';
import { cel, Int32, LocalObjectReference, StringMap } from './kube.js';

const policyRules = cel(
  { rule: '!has(self.rules) || self.rules.all(k, size(k) > 0)', message: 'policy rule name must not be empty' },
  {
    rule: '!has(self.rules) || self.rules.all(k, size(self.rules[k]) > 0)',
    message: 'policy rule value must not be empty',
  },
);

export const PolicySpec = (description: string) =>
  Type.Object(
    {
      configMapRef: Type.Optional(
        LocalObjectReference('ConfigMap holding a "policy.yaml" key with oslo.policy rule overrides.'),
      ),
      rules: Type.Optional(
        StringMap({
          description:
            'Inline oslo.policy rules: rule name (e.g. "identity:list_users") to rule definition. ' +
            'Inline rules take precedence over ConfigMap rules.',
        }),
      ),
    },
    { description, ...policyRules },
  );

export const Gateway = Type.Object(
  {
    annotations: Type.Optional(StringMap({ description: 'Annotations copied onto the generated HTTPRoute.' })),
    hostname: Type.String({ minLength: 1, description: 'Externally reachable host the HTTPRoute matches.' }),
    parentRef: Type.Object(
      {
        name: Type.String({ minLength: 1, description: 'Gateway name.' }),
        namespace: Type.Optional(Type.String({ description: "Gateway namespace (default: the CR's namespace)." })),
        sectionName: Type.Optional(Type.String({ description: 'Listener of the Gateway to attach to.' })),
      },
      { description: 'The pre-existing Gateway the HTTPRoute attaches to.' },
    ),
    path: Type.Optional(Type.String({ description: 'Path prefix matched by the HTTPRoute (default "/").' })),
  },
  { description: 'Expose Keystone through a Gateway API HTTPRoute; unset means in-cluster only.' },
);

/** Free-form INI sections (section → option → value), as the service CRDs take them. */
export const IniConfig = (description: string) =>
  Type.Unsafe<Record<string, Record<string, string>>>({
    type: 'object',
    description,
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
  });

/** What every declared service beside Keystone takes (services.<svc>). */
export const serviceFields = (title: string, svc: string) => ({
  extraConfig: Type.Optional(IniConfig(`Free-form INI sections for the ${title} service (section → option → value).`)),
  gateway: Type.Optional(Gateway),
  image: Type.Optional(
    Type.Object(
      { repository: Type.String({ minLength: 1 }), tag: Type.String({ minLength: 1 }) },
      { description: `Overrides the ${title} image; unset means ghcr.io/c5c3/${svc}:<openStackRelease>.` },
    ),
  ),
  policyOverrides: Type.Optional(PolicySpec(`${title} oslo.policy overrides; they win over spec.global.`)),
  publicEndpoint: Type.Optional(
    Type.String({
      minLength: 1,
      description: `Externally routable ${title} URL for the public catalog Endpoint. Unset: https://{gateway.hostname}, else the in-cluster URL.`,
    }),
  ),
  replicas: Type.Optional(Int32({ minimum: 1, description: `${title} API replicas; unset means the ${title} operator's default.` })),
});

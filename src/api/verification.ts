// spec.verification (issue 59, seed 002's "post-update verification (Tempest if enabled)"): the
// opt-in Tempest run of a release rollout's Verifying phase. Unset, Verifying checks the Keystone
// credential chain only, as before. The admission rules here refuse what could not run (a Job
// name over 63 characters, a list given twice, no worker), so the hook never builds a Job that
// the API server or Tempest would refuse.
import { Type, type Static } from '@sinclair/typebox';
import { cel, Int32, type CelRule, type KubeOptions } from './kube.js';

/** The Job `{cp}-verify-<release>-<6 hex>` fits a label value (63): the name budget of the ControlPlane. */
export const VERIFY_JOB_INFIX = '-verify-';
/** `2025.2`: OPENSTACK_RELEASE_PATTERN allows exactly four digits, a dot and one digit. */
export const RELEASE_TEXT_LENGTH = 6;
/** The hex of the rollout's identity in the Job's name (verification.ts). */
export const VERIFY_HASH_LENGTH = 6;
/** 63 - "-verify-" - "2025.2" - "-" - 6 hex = 42. */
export const VERIFY_NAME_BUDGET = 63 - VERIFY_JOB_INFIX.length - RELEASE_TEXT_LENGTH - 1 - VERIFY_HASH_LENGTH;

/** Tempest's defaults here: two workers (what the measured runs on 2 cores used), an hour. */
export const TEMPEST_DEFAULTS = { concurrency: 2, deadline: '1h' } as const;

/** A Go duration of whole h/m/s components between 1m and 24h (as spec.rolloutDeadline). */
const TEMPEST_DEADLINE_RULE =
  `self.matches('^([0-9]+(h|m|s))+$') && duration(self) >= duration('1m') && duration(self) <= duration('24h')`;

const ListRef = (what: string) =>
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 253, description: 'The ConfigMap in the ControlPlane namespace.' }),
      key: Type.String({
        minLength: 1,
        maxLength: 253,
        // A ConfigMap key (validation.IsConfigMapKey): it becomes a file name in the Job's volume.
        pattern: '^[-._a-zA-Z0-9]+$',
        description: 'The key holding the list: one regular expression per line, # comments (tempest run --include-list/--exclude-list).',
      }),
    },
    { description: `A ConfigMap key with the ${what} list.` },
  );

/** A tempest.conf section or option name (what the INI writer emits as is). */
export const INI_NAME = '^[A-Za-z0-9_.-]+$';

const Regexes = (what: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
    minItems: 1,
    maxItems: 256,
    description: `Regular expressions of the tests to ${what} (matched against the test id, e.g. ^tempest\\.api\\.identity\\.).`,
  });

const Tests = Type.Object(
  {
    include: Type.Optional(Regexes('run')),
    includeListRef: Type.Optional(ListRef('include')),
    exclude: Type.Optional(Regexes('skip')),
    excludeListRef: Type.Optional(ListRef('exclude')),
  },
  {
    description: "The tests to run. Nothing included: Tempest's smoke set (the tests tagged smoke, as tempest run --smoke).",
    ...cel(
      { rule: '!(has(self.include) && has(self.includeListRef))', message: 'tests: set include or includeListRef, not both' },
      { rule: '!(has(self.exclude) && has(self.excludeListRef))', message: 'tests: set exclude or excludeListRef, not both' },
    ),
  } as KubeOptions,
);

export const Tempest = Type.Object(
  {
    image: Type.Optional(
      Type.Object(
        { repository: Type.String({ minLength: 1 }), tag: Type.String({ minLength: 1 }) },
        { description: 'Overrides the Tempest image; unset means the default of the release rolled out (TEMPEST_IMAGES).' },
      ),
    ),
    concurrency: Type.Optional(
      Int32({
        default: TEMPEST_DEFAULTS.concurrency,
        description: 'Tempest workers (tempest run --concurrency).',
        ...cel({ rule: 'self >= 1', message: 'tempest.concurrency must be at least 1' }),
      }),
    ),
    deadline: Type.Optional(
      Type.String({
        default: TEMPEST_DEFAULTS.deadline,
        maxLength: 32,
        description:
          'How long the Tempest run may take (the Job activeDeadlineSeconds and the Verifying phase deadline): a Go duration between 1m and 24h.',
        ...cel({ rule: TEMPEST_DEADLINE_RULE, message: 'tempest.deadline must be a duration between 1m and 24h (e.g. 1h)' }),
      }),
    ),
    tests: Type.Optional(Tests),
    extraConfig: Type.Optional(
      Type.Unsafe<Record<string, Record<string, string>>>({
        type: 'object',
        maxProperties: 32,
        additionalProperties: { type: 'object', maxProperties: 64, additionalProperties: { type: 'string', maxLength: 1024 } },
        description:
          'tempest.conf options over the ones derived from the ControlPlane (section → option → value): what it cannot know, such as ' +
          "a compute cloud's [compute] image_ref and flavor_ref. The ConfigMap is readable by whoever reads the namespace: no secret here " +
          '(the admin password reaches the Job from its Secret). Section and option names are letters, digits, ., _ and -; others are left out of the file.',
        ...cel(
          { rule: "!has(self.auth) || !('admin_password' in self.auth)", message: 'tempest.extraConfig must not hold [auth] admin_password: the Job reads it from the admin password Secret' },
          { rule: "self.all(s, self[s].all(o, !self[s][o].contains('\\n') && !self[s][o].contains('\\r')))", message: 'tempest.extraConfig: a value is one line' },
        ),
      }),
    ),
  },
  {
    description:
      "Runs OpenStack's Tempest in the Verifying phase of a release rollout: a Job {name}-verify-<release>-<hash>; its success completes the rollout, its failure or the deadline rolls it back (VerificationFailed).",
  },
);

export const Verification = Type.Object(
  { tempest: Type.Optional(Tempest) },
  { description: 'Post-update verification of a release rollout (seed 002). Unset: Verifying checks the Keystone credential chain only.' },
);

/** At the root (metadata.name is visible there): the Job name fits 63 characters. */
export const VERIFICATION_ROOT_RULES: readonly CelRule[] = [
  {
    rule: `!has(self.spec.verification) || !has(self.spec.verification.tempest) || size(self.metadata.name) <= ${VERIFY_NAME_BUDGET}`,
    message: `with spec.verification.tempest the ControlPlane's name must be at most ${VERIFY_NAME_BUDGET} characters (its Job {name}-verify-<release>-<hash> must fit 63)`,
  },
];

/**
 * The Tempest image of each release unless spec.verification.tempest.image says otherwise: the last
 * Tempest tag of the release's series (openstack/releases deliverables/<series>/tempest.yaml;
 * 45.0.0 for flamingo, measured in docs/verification.md). A release not listed runs
 * `TEMPEST_IMAGE_REPOSITORY:<release>`.
 */
export const TEMPEST_IMAGE_REPOSITORY = 'ghcr.io/c5c3/tempest';
export const TEMPEST_IMAGES: Readonly<Record<string, { repository: string; tag: string }>> = {
  '2025.1': { repository: TEMPEST_IMAGE_REPOSITORY, tag: '43.0.0' },
  '2025.2': { repository: TEMPEST_IMAGE_REPOSITORY, tag: '45.0.0' },
};

export type Tempest = Static<typeof Tempest>;
export type Verification = Static<typeof Verification>;

// The YAML documents of issue 41's adversarial pass (item 2): each crashed or stalled the service.
/** The documents: flow nesting, block nesting, aliases (8,000 and 16,000), the last two within the length bound. */
export const HOSTILE_YAML: Record<string, string> = {
  'flow nesting 5,000': `clouds: ${'['.repeat(5000)}${']'.repeat(5000)}`,
  'block nesting 5,000': `clouds:\n${'- '.repeat(5000)}x\n`,
  'aliases 8,000': `clouds: &a [x]\nall:\n${'- *a\n'.repeat(8000)}`,
  'aliases 16,000': `clouds: &a [x]\nall: [${Array.from({ length: 16000 }, () => '*a').join(', ')}]\n`,
};

// What the upstream operator records as Kubernetes Events. Hooks cannot emit Events (docs/architecture.md §1.4): a hook hands
// them to the server, which writes one structured log line per event with the same reason.
export interface HookEvent {
  /** warn for what an operator must act on (ORCTeardownStalled), info otherwise. */
  level: 'warn' | 'info';
  reason: string;
  message: string;
  /** `Kind/name` of the objects concerned. */
  objects: string[];
}

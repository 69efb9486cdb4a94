// Canaries of an operation with configured upstreams (operations.yaml `upstreams:`): besides the operation's own
// status (a probe through the failover, as a customer's call goes), each upstream gets a status of its own, from
// probes pinned to it and from the live calls it served. The status drives the rotation: an upstream whose status
// is down is taken out (markDown) until its next probe, whatever its circuit says; a probe that brings it back to
// ok puts it back at once (markUp), so a fixed upstream is not left waiting for a cool-down.
// The plugin's own providers (operations.yaml `canary.providers`, kuaid's) get a status each the same way, from
// probes pinned to them (host.pin); it only shows and alerts: the plugin's failover is its own.
import { type CanaryConfig, type CanarySample, probedProviders, providerSubject } from '../config/canary-config.js';
import type { Operation } from '../registry/registry.js';
import { type UpstreamHealth, upstreamOfSubject, upstreamSubject } from '../state/upstream-health.js';
import type { Change } from './status-machine.js';
import type { SubjectRow } from './status-store.js';

export interface Probe {
  op: Operation;
  cfg: CanaryConfig;
  sample: CanarySample;
  /** The status key: the sample's platform, or an upstream's (upstreamSubject) or provider's (providerSubject). */
  subject: string;
  /** The upstream the probe is pinned to, else undefined. */
  upstream?: string;
  /** The plugin's own provider the probe is pinned to, else undefined. */
  provider?: string;
}

/**
 * Every probe of an operation with canaries: each sample, and each sample once per configured upstream and once
 * per configured provider of its plugin.
 */
export function probesOf(op: Operation, cfg: CanaryConfig): Probe[] {
  const usable = (op.upstreams ?? []).filter((u) => u.missing.length === 0);
  const providers = probedProviders(op);
  return cfg.samples.flatMap((sample) => [
    { op, cfg, sample, subject: sample.platform },
    ...usable.map((u) => ({ op, cfg, sample, subject: upstreamSubject(sample.platform, u.id), upstream: u.id })),
    ...providers.map((id) => ({ op, cfg, sample, subject: providerSubject(sample.platform, id), provider: id })),
  ]);
}

/** The tick's pause between passes plus a margin: the mark must outlive the wait for the probe that lifts it. */
const MARGIN_S = 60;

/** After an observation of an upstream's status: out of rotation while down, back in when it passes again. */
export async function followStatus(
  health: UpstreamHealth,
  row: SubjectRow,
  ok: boolean,
  change: Change | null,
  now: number,
): Promise<void> {
  const upstream = upstreamOfSubject(row.platform);
  if (upstream === null) return;
  if (!ok && row.state === 'down') {
    const seconds = Math.max(1, Math.ceil((row.nextProbeAt - now) / 1000)) + MARGIN_S;
    await health.markDown(row.operation, upstream, seconds, `canary: ${row.lastDetail ?? 'failed'}`);
  } else if (ok && change?.to === 'ok') {
    await health.markUp(row.operation, upstream);
  }
}

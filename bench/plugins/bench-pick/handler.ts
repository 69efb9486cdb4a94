// Bench only (loaded through PLUGIN_DIRS by bench/upstream-rows.ts): what an operator would write by hand instead
// of `upstreams:` for the bench's stub upstream: one fetch, success check, pick and rename four fields. Its twin
// in configuration is the `up_config` operation of bench/upstream-rows.ts; the bench compares the two.
import type { Host, OperationPlugin } from '../../../core/sandbox/contract.js';

interface Body {
  code?: number;
  data?: { prov?: string; city?: string; isp?: string };
}

export const plugin: OperationPlugin<{ phone: string }> = {
  async run(input: { phone: string }, host: Host) {
    const url = `${String(host.options.url)}?phone=${encodeURIComponent(input.phone)}`;
    const res = await host.fetch(url, { method: 'GET' });
    const body = JSON.parse(res.body) as Body;
    if (res.status !== 200 || body.code !== 0 || !body.data) {
      return { ok: false, code: 'UPSTREAM_FAILED', message: 'upstream failed', message_zh: '上游失败' };
    }
    return {
      ok: true,
      data: { phone: input.phone, province: body.data.prov, city: body.data.city, carrier: body.data.isp },
    };
  },
};

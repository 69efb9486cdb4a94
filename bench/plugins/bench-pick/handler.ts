// Bench only (loaded through PLUGIN_DIRS by bench/upstream-rows.ts): what an operator would write by hand instead
// of `upstreams:` for the bench's stub upstream: one fetch, success check, pick and rename four fields, their
// types checked (as the configured twin's `response` block is). Its twin in configuration is the `up_config`
// operation of bench/upstream-rows.ts; the bench compares the two.
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
    const { prov, city, isp } = body.data;
    // What the configured twin's `response` check does on the host: half an answer is never sold.
    if (typeof prov !== 'string' || typeof city !== 'string' || typeof isp !== 'string') {
      return {
        ok: false,
        code: 'UPSTREAM_FAILED',
        message: 'upstream answer changed shape',
        message_zh: '上游返回的数据格式已变化',
      };
    }
    return { ok: true, data: { phone: input.phone, province: prov, city, carrier: isp } };
  },
};

// The words of the public status page (/status) and the front page's status line, in Chinese and English.
import type { Locale } from '../../accounts/locale.js';
import type { BarState } from '../../health/status-view.js';
import type { HealthState } from '../../store/schema-health.js';

export interface StatusText {
  htmlLang: string;
  title: string;
  lead: string;
  home: string;
  otherLang: string;
  overall: Record<HealthState, string>;
  state: Record<HealthState, string>;
  bar: Record<BarState, string>;
  windows: Record<'24h' | '7d' | '30d', string>;
  since: string;
  lastSuccess: string;
  lastFailure: string;
  never: string;
  field: string;
  classes: Record<string, string>;
  noOperations: string;
  updated: string;
  json: string;
  platforms: Record<string, string>;
  /** The front page's link to /status. */
  frontLink: string;
}

const ZH: StatusText = {
  htmlLang: 'zh-CN',
  title: '服务状态 · Tollgate',
  lead: '每个接口由定时的样例调用（金丝雀）和真实调用共同检测；平台改版、风控或凭据失效会在这里先显示出来。',
  home: '首页',
  otherLang: 'English',
  overall: {
    ok: '所有接口运行正常',
    degraded: '部分接口异常',
    down: '有接口故障',
    unknown: '尚无检测结果',
  },
  state: { ok: '正常', degraded: '异常', down: '故障', unknown: '未知' },
  bar: { ok: '全部成功', degraded: '部分失败', down: '全部失败', none: '无数据' },
  windows: { '24h': '24 小时', '7d': '7 天', '30d': '30 天' },
  since: '状态始于',
  lastSuccess: '最近成功',
  lastFailure: '最近失败',
  never: '暂无',
  field: '字段',
  classes: {
    shape_changed: '平台页面结构变化',
    risk_control: '平台风控 / 验证码',
    credential: '上游凭据失效',
    quota: '上游额度用尽',
    timeout: '上游超时',
    network: '网络故障',
    sample_gone: '样例内容已删除',
    upstream_error: '上游错误',
  },
  noOperations: '本服务尚未配置任何检测。',
  updated: '更新于',
  json: 'JSON 格式',
  platforms: { douyin: '抖音', kuaishou: '快手', xiaohongshu: '小红书', bilibili: 'B站' },
  frontLink: '服务状态',
};

const EN: StatusText = {
  htmlLang: 'en',
  title: 'Service status · Tollgate',
  lead: 'Every operation is watched by scheduled sample calls (canaries) and by real traffic; a platform redesign, a bot wall or an expired credential shows here first.',
  home: 'Home',
  otherLang: '中文',
  overall: {
    ok: 'All operations are working',
    degraded: 'Some operations are degraded',
    down: 'An operation is down',
    unknown: 'No results yet',
  },
  state: { ok: 'OK', degraded: 'Degraded', down: 'Down', unknown: 'Unknown' },
  bar: { ok: 'all succeeded', degraded: 'some failed', down: 'all failed', none: 'no data' },
  windows: { '24h': '24 hours', '7d': '7 days', '30d': '30 days' },
  since: 'Since',
  lastSuccess: 'Last success',
  lastFailure: 'Last failure',
  never: 'none yet',
  field: 'field',
  classes: {
    shape_changed: 'platform page changed',
    risk_control: 'bot wall / risk control',
    credential: 'upstream credential',
    quota: 'upstream quota used up',
    timeout: 'upstream timeout',
    network: 'network failure',
    sample_gone: 'sample post deleted',
    upstream_error: 'upstream error',
  },
  noOperations: 'No checks are configured on this server.',
  updated: 'Updated',
  json: 'as JSON',
  platforms: { douyin: 'Douyin', kuaishou: 'Kuaishou', xiaohongshu: 'Xiaohongshu', bilibili: 'Bilibili' },
  frontLink: 'Status',
};

export function statusText(lang: Locale): StatusText {
  return lang === 'zh' ? ZH : EN;
}

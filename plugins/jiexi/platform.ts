// One module per video platform. Adding a fifth platform = one module implementing PlatformModule,
// one line in platforms/index.ts, and its hosts in plugin.json allow_hosts.
import type { Host, PluginOutcome } from '../../core/sandbox/contract.js';

export type PlatformId = 'douyin' | 'kuaishou' | 'xiaohongshu' | 'bilibili';

export interface JiexiAuthor {
  id: string | null;
  name: string | null;
  avatar: string | null;
}

export interface JiexiMusic {
  title: string | null;
  author: string | null;
  url: string | null;
}

/** The normalised result of /api/jiexi. */
export interface JiexiData {
  platform: PlatformId;
  id: string;
  type: 'video' | 'images';
  title: string;
  cover: string | null;
  /** Watermark-free video address; null for image posts. */
  url: string | null;
  images: string[];
  author: JiexiAuthor;
  /** Seconds, when the platform says. */
  duration: number | null;
  music: JiexiMusic | null;
}

export interface PlatformModule {
  id: PlatformId;
  /** Chinese display name, used in the UNSUPPORTED message ("目前支持: 抖音、快手、小红书、B站"). */
  label: string;
  /** Host names whose links this module parses (exact names or "*.domain" patterns). Share links and long links. */
  linkHosts: string[];
  /** Every host the module fetches (must also be in plugins/jiexi/plugin.json allow_hosts). */
  fetchHosts: string[];
  parse(url: string, host: Host): Promise<PluginOutcome<JiexiData>>;
}

// The platform registry. Order matters only when two modules claim the same host (none do today).
// Adding a platform: write platforms/<name>.ts exporting a PlatformModule, add it to the list below and its
// fetchHosts to plugin.json allow_hosts (test/plugins/jiexi/manifest.test.ts checks the latter).
import type { PlatformModule } from '../platform.js';
import { bilibili } from './bilibili.js';
import { douyin } from './douyin.js';
import { kuaishou } from './kuaishou.js';
import { xiaohongshu } from './xiaohongshu.js';

function isModule(m: PlatformModule | undefined): m is PlatformModule {
  // A module that is half-written (undefined export, missing parse) is dropped rather than breaking the other
  // platforms: the registry is what every jiexi call goes through.
  return (
    !!m &&
    typeof m.parse === 'function' &&
    typeof m.refuseLink === 'function' &&
    Array.isArray(m.linkHosts) &&
    Array.isArray(m.fetchHosts)
  );
}

export const platforms: readonly PlatformModule[] = [douyin, kuaishou, xiaohongshu, bilibili].filter(isModule);

// The gateway as `tollgate serve` starts it, for the bench's upstream rows only, with one difference: the sandbox's
// resolver says "localhost" is a public address, so the plugins may reach the stub upstream on this machine. The
// served gateway never has this: loopback stays refused by the address policy and no setting or operations.yaml
// entry can change that; only a process started from this file (by npm run bench) can.
// With an injected resolver the sandbox uses the global fetch, which connects to what "localhost" really is.
import { createApp } from '../core/app.js';
import { composeServices } from '../core/compose.js';
import { readSettings } from '../core/config/env.js';
import { createGatewayServer, listen } from '../core/http/http-server.js';
import { createProcessLogger } from '../core/kernel/logger.js';
import { systemResolver } from '../core/sandbox/address-policy.js';

const settings = readSettings();
const logger = createProcessLogger(settings.logLevel, settings.logFormat);
const services = await composeServices(settings, {
  logger,
  releaseAllHoldsOnStart: true,
  // 192.0.2.0/24-style documentation ranges are refused too: a global unicast address stands in for loopback.
  resolver: async (hostname) => (hostname === 'localhost' ? ['93.184.216.34'] : systemResolver(hostname)),
});
const { server } = createGatewayServer(createApp(services).callback(), settings.edge, settings.trustProxy, logger);
await listen(server, settings.port);
process.stdout.write('listening\n');
process.once('SIGTERM', () => server.close(() => process.exit(0)));

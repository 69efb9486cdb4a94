// compose.yaml against the parts of the Compose Specification it uses (top-level keys, service keys, healthcheck,
// depends_on long form, volumes), checked with Ajv since `docker compose config` is not available here; then the
// wiring: pinned images, every depends_on target healthy, named volumes declared, the app's URLs pointing at the
// services, and the same password on both sides.

import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import t from 'tap';
import { parse } from 'yaml';

const compose = parse(readFileSync('compose.yaml', 'utf8')) as {
  services: Record<string, Record<string, unknown>>;
  volumes: Record<string, unknown>;
};

// Compose durations: a sequence of number+unit (us ms s m h), e.g. 1m30s.
const duration = { type: 'string', pattern: '^(\\d+(\\.\\d+)?(us|ms|s|m|h))+$' };
const listOrDict = {
  oneOf: [
    { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
    { type: 'array', items: { type: 'string' }, uniqueItems: true },
  ],
};
const serviceSchema = {
  type: 'object',
  additionalProperties: false,
  patternProperties: { '^x-': {} },
  anyOf: [{ required: ['image'] }, { required: ['build'] }],
  properties: {
    image: { type: 'string' },
    build: {
      oneOf: [
        { type: 'string' },
        { type: 'object', properties: { context: { type: 'string' }, dockerfile: { type: 'string' } } },
      ],
    },
    init: { type: 'boolean' },
    restart: { enum: ['no', 'always', 'on-failure', 'unless-stopped'] },
    command: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    ports: {
      type: 'array',
      items: {
        oneOf: [{ type: 'string', pattern: '^(\\d+(\\.\\d+){3}:)?\\d+(:\\d+)?(/(tcp|udp))?$' }, { type: 'object' }],
      },
    },
    environment: listOrDict,
    volumes: {
      type: 'array',
      items: { oneOf: [{ type: 'string', pattern: '^[^:]+:/[^:]*(:(ro|rw))?$' }, { type: 'object' }] },
    },
    depends_on: {
      oneOf: [
        { type: 'array', items: { type: 'string' } },
        {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            required: ['condition'],
            properties: {
              condition: { enum: ['service_started', 'service_healthy', 'service_completed_successfully'] },
              restart: { type: 'boolean' },
              required: { type: 'boolean' },
            },
          },
        },
      ],
    },
    healthcheck: {
      type: 'object',
      additionalProperties: false,
      properties: {
        test: {
          oneOf: [
            { type: 'string' },
            {
              type: 'array',
              minItems: 1,
              items: [{ enum: ['NONE', 'CMD', 'CMD-SHELL'] }],
              additionalItems: { type: 'string' },
            },
          ],
        },
        interval: duration,
        timeout: duration,
        start_period: duration,
        start_interval: duration,
        retries: { type: 'integer', minimum: 0 },
        disable: { type: 'boolean' },
      },
    },
  },
};
const schema = {
  type: 'object',
  additionalProperties: false,
  patternProperties: { '^x-': {} },
  required: ['services'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' },
    services: { type: 'object', additionalProperties: serviceSchema },
    volumes: { type: 'object', additionalProperties: { oneOf: [{ type: 'null' }, { type: 'object' }] } },
    networks: { type: 'object' },
  },
};
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

t.test('the file matches the Compose Specification subset it uses', async (t) => {
  t.ok(validate(compose), JSON.stringify(validate.errors));
  t.notOk(
    validate({ services: { app: { image: 'x:1', healthcheck: { test: ['CMD'], interval: '5 seconds' } } } }),
    'a bad duration fails',
  );
  t.notOk(
    validate({ services: { app: { image: 'x:1', depends_on: { db: { condition: 'service_ready' } } } } }),
    'an unknown condition fails',
  );
  t.notOk(
    validate({ services: { app: { image: 'x:1', healthcheck: { test: ['RUN', 'x'] } } } }),
    'a test not starting with CMD/CMD-SHELL/NONE fails',
  );
  t.notOk(validate({ services: { app: { imgae: 'x:1' } } }), 'a misspelt key fails');
  t.notOk(validate({ services: { app: { restart: 'always' } } }), 'neither image nor build fails');
});

t.test('app, PostgreSQL and Redis, each with a health check; the app starts after both are healthy', async (t) => {
  t.same(Object.keys(compose.services).sort(), ['postgres', 'redis', 'tollgate']);
  for (const [name, svc] of Object.entries(compose.services)) {
    t.ok(svc.healthcheck, `${name} has a healthcheck`);
    if (typeof svc.image === 'string' && !svc.build)
      t.match(
        svc.image,
        /^[a-z0-9./-]+:\d+\.\d+(\.\d+)?(-[a-z0-9.]+)?$/,
        `${name} image pinned to a release (PostgreSQL's are major.minor)`,
      );
  }
  const app = compose.services.tollgate;
  t.same(app.depends_on, { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
  t.match(
    (app.healthcheck as { test: string[] }).test.join(' '),
    /^CMD node -e .*http:\/\/127\.0\.0\.1:8080\/api\/health/,
  );
  t.equal(app.build, '.', 'built from the Dockerfile here');
  t.equal(app.init, true, 'an init reaps children and forwards signals');
});

t.test('named volumes are declared and used; the app points at the services', async (t) => {
  const used = Object.values(compose.services).flatMap((s) =>
    ((s.volumes as string[] | undefined) ?? []).map((v) => v.split(':')[0]),
  );
  t.same(used.sort(), Object.keys(compose.volumes).sort(), 'every named volume declared is used, and only those');
  t.same(compose.services.tollgate.volumes, ['tollgate-data:/data'], 'the image DATA_DIR');
  t.same(compose.services.postgres.volumes, ['postgres-data:/var/lib/postgresql/data']);
  const env = compose.services.tollgate.environment as Record<string, string>;
  const pg = compose.services.postgres.environment as Record<string, string>;
  const url = /^postgres:\/\/([^:]+):(.+)@postgres:5432\/(\w+)$/.exec(env.DATABASE_URL);
  t.ok(url, env.DATABASE_URL);
  t.same(
    [url?.[1], url?.[2], url?.[3]],
    [pg.POSTGRES_USER, pg.POSTGRES_PASSWORD, pg.POSTGRES_DB],
    'user, password and database agree',
  );
  t.match(
    pg.POSTGRES_PASSWORD,
    /^\$\{POSTGRES_PASSWORD:\?/,
    'no default password: compose refuses to start without one',
  );
  t.equal(env.REDIS_URL, 'redis://redis:6379');
  t.match((compose.services.postgres.healthcheck as { test: string[] }).test, [
    'CMD-SHELL',
    `pg_isready -U ${pg.POSTGRES_USER} -d ${pg.POSTGRES_DB}`,
  ]);
});

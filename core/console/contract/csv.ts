// Query parameters the console's CSV exports share: time bounds (the call log and the admin exports take them
// too) and where the file is opened (core/console/api/csv-locale.ts: header language, time zone). Every CSV is
// UTF-8 with a BOM, its header labels in `lang`, its times as YYYY-MM-DD HH:mm:ss in `tz`.
import { oneOf, Type } from './schema.js';

/** The CSV answer itself, as the document names it. */
export const csvText = Type.String({ description: 'RFC 4180 CSV with a header line' });

/**
 * A time bound in a query (core/console/api/input.ts timeOf): epoch ms, or an ISO 8601 date or date-time that is
 * a real date. `rule` adds what else the route checks.
 */
export const timeBound = (description: string, rule = '') =>
  Type.Optional(
    Type.String({
      pattern: '^(\\d{10,15}|\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:?\\d{2})?)?)$',
      description,
      'x-error': { pattern: '@isoDate' },
      'x-rule': `a real calendar date${rule}`,
    }),
  );

const TZ_ERROR = "'tz' must be an IANA time zone such as Asia/Shanghai or Europe/London.";

/** ?tz= and ?lang= of every CSV export. */
export const csvLocaleQuery = {
  tz: Type.Optional(
    Type.String({
      maxLength: 64,
      pattern: '^[A-Za-z][A-Za-z0-9_+\\-/]*$',
      description: 'IANA time zone of the times, e.g. Europe/London (default Asia/Shanghai)',
      'x-error': { pattern: TZ_ERROR },
      'x-rule': 'a zone in the IANA time zone database',
    }),
  ),
  lang: Type.Optional(
    oneOf(['zh', 'en'] as const, {
      type: 'string',
      description: 'header language: zh or en (default: Accept-Language, else zh)',
    }),
  ),
};

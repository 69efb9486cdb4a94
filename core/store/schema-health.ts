// Row types of the canary and operation-status tables (migration 013).
import type { Generated } from 'kysely';

export type HealthState = 'unknown' | 'ok' | 'degraded' | 'down';

export interface CanaryResultsTable {
  id: Generated<number>;
  operation: string;
  platform: string;
  source: 'canary' | 'live';
  ok: number;
  failure_class: string | null;
  field: string | null;
  detail: string | null;
  duration_ms: number | null;
  request_id: string | null;
  created_at: number;
}

export interface OperationStatusTable {
  operation: string;
  platform: string;
  state: HealthState;
  since: number;
  last_success_at: number | null;
  last_failure_at: number | null;
  last_class: string | null;
  last_field: string | null;
  last_detail: string | null;
  failures: number;
  successes: number;
  next_probe_at: number;
  updated_at: number;
}

export interface LeasesTable {
  name: string;
  owner: string;
  until: number;
}

export interface HealthTables {
  canary_results: CanaryResultsTable;
  operation_status: OperationStatusTable;
  leases: LeasesTable;
}

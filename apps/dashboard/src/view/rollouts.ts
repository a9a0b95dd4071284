import { listRolloutSources, pushRolloutCommand, readRolloutRecord, rolloutCommandRefusal, RolloutRecordError, type RedisClient, type RecordKeys, type RolloutCommandVerb, type RolloutRecord } from '@tidemark/contracts';
import { DashboardError, ErrorCode, notFound } from '../api/dashboard-error';
import type { Principal } from '../auth/principal';

export interface RolloutActionsOptions {
  redis: RedisClient;
  keys: RecordKeys;
}

/** RolloutCommandResult is what the dashboard answers a rollout action with: queued for the driver, at which revision. */
export interface RolloutCommandResult {
  action: RolloutCommandVerb;
  source: string;
  revision: string;
  queued: true;
}

/**
 * RolloutActions reads rollout records and queues operators' commands for the rollout driver (the
 * record's one writer). A command the rollout cannot take as it stands is refused here with the
 * engine's own reason (409); one the record moved past meanwhile is refused by the driver and logged.
 */
export class RolloutActions {
  constructor(private readonly options: RolloutActionsOptions) {}

  async list(): Promise<RolloutRecord[]> {
    const records: RolloutRecord[] = [];
    for (const source of await listRolloutSources(this.options.redis, this.options.keys)) {
      const record = await this.read(source).catch(() => undefined);
      if (record) records.push(record);
    }
    return records;
  }

  async get(source: string): Promise<RolloutRecord> {
    const record = await this.read(source);
    if (!record) throw notFound(`a rollout of source ${source}`);
    return record;
  }

  async command(source: string, verb: RolloutCommandVerb, principal: Principal | undefined, revision?: string): Promise<RolloutCommandResult> {
    if (principal?.scope) throw new DashboardError(ErrorCode.Forbidden, 403, 'This token is limited to some sources, namespaces or clusters: a rollout moves a source on every cluster, so it may not act on one.');
    const record = await this.get(source);
    const refused = rolloutCommandRefusal(record, { verb, ...(revision ? { revision } : {}) });
    if (refused) throw new DashboardError(ErrorCode.Conflict, 409, `Cannot ${verb} the rollout of ${source}: ${refused}.`);
    await pushRolloutCommand(this.options.redis, this.options.keys, source, { verb, by: principal?.name ?? 'unknown', at: new Date().toISOString(), revision: revision ?? record.revision });
    return { action: verb, source, revision: revision ?? record.revision, queued: true };
  }

  private async read(source: string): Promise<RolloutRecord | undefined> {
    try {
      return await readRolloutRecord(this.options.redis, this.options.keys, source);
    } catch (error) {
      if (error instanceof RolloutRecordError) throw new DashboardError(ErrorCode.Conflict, 409, error.message, { cause: error });
      throw error;
    }
  }
}
